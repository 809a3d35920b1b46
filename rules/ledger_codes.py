"""The closed set of codes the dice ledger speaks.

The engine writes data, never prose: a modifier is a reason code, its value and (when the
reason varies) typed params; an outcome is a code and typed values; a per-die detail of a
figure check is a small dict. Readers (the command line's `rules.cli.ledger_words`, the web
app's `campaign.text.ledger`) word them in their own language. A code is never renamed: a
stored ledger holds it. See docs/state-format.md, "Dice ledger".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# A modifier's reason code → the names of its params (values: int, or a str from an enum).
MODIFIERS: Mapping[str, tuple[str, ...]] = {
    # force test (R5.2), movement (R6.2), weather (R4.2), Will to Fight (R11)
    "leader-cv": (),
    "force-status": ("status",),  # a Status value
    "mountain": (),
    "territory": ("territory",),  # friendly / enemy / neutral
    "snow": ("n",),  # snow levels (§11.5)
    "full-speed": (),
    "starts-on": ("feature",),  # a Feature value
    "weather": ("weather",),  # a Weather value
    "heavy-ground": (),
    "season": ("season",),  # a Season value
    # wounded and deserters (R8.1, R8.2)
    "ambush": ("ambush",),  # ambusher / ambushed
    "quality": ("quality",),  # a Quality value
    "shattered": (),
    "battles-won": ("n",),
    "battles-lost": ("n",),
    "enemy-holdings-held": ("n",),
    "own-holdings-lost": ("n",),
    "enemy-capital-held": (),
    "own-capital-lost": (),
    # unit orders and command tests (R10.2, R10.3; §10.3 in the tactical engine)
    "unit-quality": (),
    "fanatic": (),
    "delivered-by-leader": (),
    "delivered-by-messenger": (),
    "different-race": (),
    "unfavourable-light": (),
    "unit-disorganised": (),
    "reactions": (),
    "no-unit-leader": (),
    "good-omens": (),
    "bad-omens": (),
    "promise-kept": (),
    "promise-not-kept": (),
    "talismans": ("n",),
    "unit-routed": (),
    "unit-destroyed": (),
    "leader-lost": (),
    "ambushed": (),
    "general-retreat": ("hour",),  # R7.9.12
    "general-cv": ("general",),  # the general's person id; absent: no general
    "mounted": (),
    # naval movement (§6.11)
    "rapids": (),
    "upstream": (),
    "bridge-ahead": (),
    "rafts-with-mounts": (),
    "downstream": (),
    "wind": ("wind",),  # contrary / calm / favourable
    "reefs": (),
    "no-ships": (),
    # the tactical engine's Action − Opposition terms (§10.4)
    "charge": (),
    "flank-attack": (),
    "in-column": (),
    "field-works": (),
    "demoralised": (),
    "range": (),
    "combat": (),
    "enemy-combat": ("unit",),  # the opposing unit's id
    "strength": (),
    "enemy-resistance": ("unit",),
    "shooting": (),
    "weapon-strength": (),
    "willpower": (),
    "horse-terrain": (),
    "river-crossing": (),
    "cover": (),
    "battle-weather": (),
    "stress": (),
    "disorder": (),
    "opposition": ("cause",),  # saturation / advantage
}

# An outcome code → the names of its values ("" is a roll without an outcome).
OUTCOMES: Mapping[str, tuple[str, ...]] = {
    "rolled": ("n",),  # who tests first (R5.1): the total
    "force-test": ("result", "status"),  # R5.2 result (ok/defend/a reaction/destroyed), new status
    "initiative": ("n",),
    "tie-reroll": ("n",),
    "squares": ("n",),  # R6.2 movement allowance
    "weather": ("weather",),
    "wounded": ("recovered", "dead"),  # R8.1 figures
    "deserters": ("returned", "deserted"),  # R8.2 figures
    "passed": (),  # Will to Fight (R11)
    "disaster": (),
    "tokens": ("n", "kind"),  # ammunition (R7.8.3, no kind) or an event's tokens (kind)
    "tokens-half": ("n",),  # Unsteady ammunition: half the die, rounded up
    "snow": ("n",),  # levels a key day's snow roll adds (R11.8)
    "event": ("event",),  # the key of a random event's row (§9.4, §11.8)
    "struck": ("target",),  # catastrophe: forces / holding / none (§9.4.3)
    "climate": ("climate",),
    "season": ("season",),
    "holding-feature": ("feature",),  # R2.3.5
    "relic": ("relic",),  # R2.4
    "unit-order": ("result",),  # R10.2 row
    "command-test": ("result",),  # R10.3 row
    "wind": ("wind",),  # §6.11 wind test
    "naval-squares": ("n",),  # §6.11 naval table
    "figures-lost": ("n",),  # R6.10.1 terrain attrition
    "scenery": ("feature",),  # §7.7 row
    "hits": ("n", "on", "crit"),  # §10.4 Action Table: successes on `on`+, criticals
    "wounds": ("n", "on", "crit"),
    "successes": ("n", "on", "crit"),
}

# A figure check's per-die detail: {"die": face, "fate": FATE} with "total" (die + modifiers)
# for faces 2–5 and "natural": true for a natural 1 or 6, which the modifiers do not touch.
FATES = ("recovered", "dead", "returned", "deserted")

Params = Mapping[str, Any]
