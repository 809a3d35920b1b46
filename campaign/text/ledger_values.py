"""The names of the values a dice ledger's outcomes and params carry that no other page
names: random events, scenery rows, unit-order and command-test results, the wind, kinds
of tokens. Keyed by the rules' plain values; read with `campaign.text.labels.label`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext_lazy, pgettext_lazy

# a random event's row (§9.4 general, tribal and catastrophe tables; §11.8 key-day tables)
RANDOM_EVENT: Mapping[str, Any] = {
    "none": gettext_lazy("No particular event"),
    "reinforcements-50": gettext_lazy("Reinforcements: 50 points"),
    "reinforcements-100": gettext_lazy("Reinforcements: 100 points"),
    "reinforcements-150": gettext_lazy("Reinforcements: 150 points"),
    "reinforcements-100-reroll": gettext_lazy("Reinforcements: 100 points and another roll"),
    "hero-arrives": gettext_lazy("A Hero arrives"),
    "hero-rouses-people": gettext_lazy("A Hero rouses the people"),
    "leader-stress": gettext_lazy("A leader under stress"),
    "scouts": gettext_lazy("Scouts"),
    "leader-emerges": gettext_lazy("A leader emerges"),
    "individual-emerges": gettext_lazy("An individual character emerges"),
    "magic-item": gettext_lazy("A magic item"),
    "ars-arcana-200": gettext_lazy("200 Ars Arcana points"),
    "wizard-magic-points": gettext_lazy("Magic points for a Wizard"),
    "wizard-joins": gettext_lazy("A Wizard joins"),
    "spirit-rations": gettext_lazy("Spirit rations"),
    "poisoned-arrows": gettext_lazy("Poisoned arrows"),
    "storm": gettext_lazy("A storm"),
    "epidemic-holding": gettext_lazy("An epidemic in a holding"),
    "epidemic-capital": gettext_lazy("An epidemic in the capital"),
    "catastrophe-square": gettext_lazy("A catastrophe strikes a square"),
    # the Incursion's key-day tables (rules/scenarios/incursion.toml)
    "points": gettext_lazy("Reinforcement points"),
    "tokens": gettext_lazy("Tokens"),
    "hero": gettext_lazy("A Hero"),
    "individual": gettext_lazy("An individual character"),
    "wizard": gettext_lazy("A Wizard"),
    "lose-bank": gettext_lazy("Reserve points lost"),
    "blizzard": gettext_lazy("A blizzard"),
}
TOKEN_KIND: Mapping[str, Any] = {  # the tokens an event hands out
    "spirit": pgettext_lazy("tokens", "Spirit"),
    "poisoned-arrows": pgettext_lazy("tokens", "Poisoned Arrows"),
    "hero": pgettext_lazy("tokens", "Hero"),
}
STRUCK: Mapping[str, Any] = {  # §9.4.3 catastrophe: what a player's die strikes
    "forces": gettext_lazy("a square with his forces"),
    "holding": gettext_lazy("a square with his holding"),
    "none": gettext_lazy("nothing"),
}
SCENERY_ROW: Mapping[
    str, Any
] = {  # §7.7 the rows of the Naran scenery tables, the rulebook's words
    "flat": gettext_lazy("Flat region"),
    "hilly": gettext_lazy("Hilly region"),
    "mountainous": gettext_lazy("Mountainous region"),
    "grassland": gettext_lazy("Natural vegetation"),
    "cultivated-fields": gettext_lazy("Cultivated fields"),
    "wood": gettext_lazy("Wood"),
    "forest-or-jungle": gettext_lazy("Forest or jungle"),
    "desert-or-wasteland": gettext_lazy("Desert or wasteland"),
    "river": gettext_lazy("Stream, river or wadi"),
    "marsh": gettext_lazy("Marsh"),
    "lake": gettext_lazy("Lake"),
    "swamp": gettext_lazy("Swamp"),
    "volcano": gettext_lazy("Volcano and river of lava"),
    "dunes": gettext_lazy("Dunes"),
    "boulders": gettext_lazy("Boulders"),
    "isolated-mountain": gettext_lazy("Isolated mountain"),
    "glacier-or-chasm": gettext_lazy("Glacier or chasm"),
    "mine-ruins-cemetery": gettext_lazy("Mine, ruins or cemetery"),
    "farm-or-village": gettext_lazy("Farm or village"),
    "isolated-temple": gettext_lazy("Isolated temple"),
    "isolated-tower": gettext_lazy("Isolated tower"),
    "sanctuary": gettext_lazy("Sanctuary"),
    "burial-mound": gettext_lazy("Burial mound"),
    "road": gettext_lazy("Road"),
    "bridge": gettext_lazy("Bridge"),
    "mountain-pass": gettext_lazy("Mountain pass"),
    "barrier": gettext_lazy("Barrier"),
}
UNIT_ORDER: Mapping[str, Any] = {  # R10.2 the unit order table's rows
    "ok": gettext_lazy("order accepted"),
    "ok-confusion": gettext_lazy("accepted, with confusion"),
    "delay": gettext_lazy("delay"),
    "delay-confusion": gettext_lazy("delay and confusion"),
    "ignored": gettext_lazy("ignored"),
    "ignored-confused": gettext_lazy("ignored and confused"),
    "chaos": gettext_lazy("chaos"),
    "panic": gettext_lazy("panic"),
}
COMMAND_TEST: Mapping[str, Any] = {  # R10.3 the command test's rows
    "ok": gettext_lazy("the army is OK"),
    "all-disorganised": gettext_lazy("all units disorganised"),
    "all-demoralised": gettext_lazy("all units demoralised"),
    "army-routs": gettext_lazy("the army routs"),
}
WIND: Mapping[str, Any] = {  # §6.11 wind test
    "contrary": gettext_lazy("contrary wind"),
    "calm": gettext_lazy("calm"),
    "favourable": gettext_lazy("favourable wind"),
}
