"""The reader's words for the codes turn events carry (`rules.event_codes`): why a force left
play or moved, why an order or a reinforcement was refused, what moved the bank, the random
events' tables, events and outcomes, in the rulebook's terms. `word` reads a table; a code
with no words here fails `tests/campaign/text/test_event_words.py`, never shows as a slug.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext_lazy, ngettext

log = logging.getLogger(__name__)

FORCE_DESTROYED: Mapping[str, Any] = {
    "no-units-left": gettext_lazy("it had no units left"),
    "no-retreat-square": gettext_lazy("it had no legal square to retreat to"),
    "force-test-disaster": gettext_lazy("a complete disaster in its force test"),
    "player-surrendered": gettext_lazy("its player surrendered"),
    "terrain-attrition": gettext_lazy("lost to terrain attrition"),
    "shattered-force-engaged": gettext_lazy("a Shattered force caught by the enemy"),
    "annihilated": gettext_lazy("annihilated: all its player's forces were already Shattered"),
    "epidemic": gettext_lazy("an epidemic took its last figures"),
    "catastrophe": gettext_lazy("a catastrophe"),
}
FORCE_MOVED: Mapping[str, Any] = {  # "movement" reads without a reason
    "post-battle-retreat": gettext_lazy("retreat after the battle"),
    "post-battle-stalemate": gettext_lazy("separation after a stalemate"),
    "ambush": gettext_lazy("ambush"),
    "flank-attack": gettext_lazy("flank attack"),
}
ORDER_REFUSED: Mapping[str, Any] = {
    "sack-outside-incursion": gettext_lazy("sacking exists only in the Incursion scenario"),
    "sack-not-raiders": gettext_lazy("only the Raiders carry off loot"),
    "sack-no-captured-holding": gettext_lazy(
        "the force does not stand on an enemy holding it captured"
    ),
    "sack-under-full-speed": gettext_lazy("a force under Full Speed may not declare a sack"),
    "loot-full-speed": gettext_lazy("a force carrying loot may not receive Full Speed"),
    "probe-composition": gettext_lazy("only cavalry, chariots and flyers may receive Probe"),
}
# parameters: %(force)s, %(cost)s, %(bank)s, %(units)s, %(status)s
REINFORCEMENTS_REFUSED: Mapping[str, Any] = {
    "empty": gettext_lazy("the request buys nothing"),
    "elite": gettext_lazy(
        "%(units)s: Elite troops cannot be sent as reinforcements, only Levy, Average or Veteran"
    ),
    "no-figures": gettext_lazy("every unit needs at least one figure"),
    "general-alone": gettext_lazy("a general comes with at least one unit"),
    "cv-out-of-range": gettext_lazy("the general's command value is out of range"),
    "negative-points": gettext_lazy("points cannot be negative"),
    "status": gettext_lazy("a new force starts under an order, not %(status)s"),
    "capital-lost": gettext_lazy(
        "your capital is not in your hands: no reinforcements can be sent"
    ),
    "bank-short": gettext_lazy(
        "it costs %(cost)s points and the bank holds %(bank)s: it is kept for a later occasion"
    ),
    "too-many-individuals": gettext_lazy(
        "%(force)s would have more individual characters than units"
    ),
    "new-force-needs-general": gettext_lazy(
        "no force of your side is in the capital, and a new force needs a general; the "
        "points stay banked"
    ),
    "new-force-needs-unit": gettext_lazy(
        "a new force needs at least one unit; the points stay banked"
    ),
    "new-force-too-many-individuals": gettext_lazy(
        "more individual characters than units; the points stay banked"
    ),
    "new-force-mercenaries": gettext_lazy(
        "mercenaries cannot form a force on their own; the points stay banked"
    ),
    "new-force-status": gettext_lazy(
        "a new force starts under an order, not %(status)s; the points stay banked"
    ),
}
BANK_CHANGED: Mapping[str, Any] = {
    "event-points": gettext_lazy("extra reinforcement points"),
    "hero-rouses-people": gettext_lazy("a Hero rouses the people"),
    "epidemic-capital": gettext_lazy("an epidemic in the capital"),
    "epidemic": gettext_lazy("an epidemic in the capital"),
    "catastrophe": gettext_lazy("a catastrophe on the capital's square"),
}
FORCE_POINTS_LOST: Mapping[str, Any] = {
    "epidemic": gettext_lazy("an epidemic"),
    "catastrophe": gettext_lazy("a catastrophe"),
}
CAPTURE_BLOCKED: Mapping[str, Any] = {
    "capital-needs-siege": gettext_lazy("a capital falls only to a siege"),
}
FORCE_STOPPED: Mapping[str, Any] = {
    "enemy-zoc": gettext_lazy("it entered an enemy zone of control"),
    "illegal-step": gettext_lazy("the next step of its path was not allowed"),
    "two-hostile-sides": gettext_lazy("forces of two hostile sides held the next square"),
    "no-countermarch-square": gettext_lazy("there was no square to countermarch to"),
}
INDIVIDUAL_FATE: Mapping[str, Any] = {
    "killed": gettext_lazy("killed"),
    "deserted": gettext_lazy("deserted"),
}
CAMPAIGN_ENDED: Mapping[str, Any] = {
    "will-to-fight": gettext_lazy("every other side lost its will to fight"),
    "all-surrendered": gettext_lazy("every side surrendered"),
    "loot-brought-home": gettext_lazy("the Raiders brought their loot home"),
    "honourable-withdrawal": gettext_lazy("honourable withdrawal"),
}
# what happened to a random event, beyond its follow-up events ("done": nothing to add;
# "none": its name says it). Parameters: %(count)s, %(what)s.
EVENT_OUTCOMES: Mapping[str, Any] = {
    "done": "",
    "none": "",
    "no-room": "",  # worded with its count (`outcome_clause`)
    "no-leader": gettext_lazy("there was no leader it could apply to"),
    "nobody": "",  # worded with its count
    "no-wizard": gettext_lazy("there was no Wizard to receive the magic points"),
    "no-force": gettext_lazy("there was no force for it to strike"),
    "no-holding": gettext_lazy("there was no holding for it to strike"),
    "no-one-struck": gettext_lazy("it struck no one"),
}
EVENT_TABLES: Mapping[str, Any] = {
    "general": gettext_lazy("the general events table (§9.4.1)"),
    "tribal": gettext_lazy("the tribal events table (§9.4.2)"),
    "catastrophe": gettext_lazy("the catastrophic events table (§9.4.3)"),
}
ROLES: Mapping[str, Any] = {  # a scenario's roles (§11.2), as a key day's table names them
    "raiders": gettext_lazy("the Raiders"),
    "defenders": gettext_lazy("the Defenders"),
}
# RandomEvent.event: a row of the §9.4 tables, or an effect of a scenario's key-day table
RANDOM_EVENTS: Mapping[str, Any] = {
    "none": gettext_lazy("no particular event"),
    "reinforcements-50": gettext_lazy("50 extra reinforcement points"),
    "reinforcements-100": gettext_lazy("100 extra reinforcement points"),
    "reinforcements-150": gettext_lazy("150 extra reinforcement points"),
    "reinforcements-100-reroll": gettext_lazy("100 extra reinforcement points and another roll"),
    "hero-arrives": gettext_lazy("a Hero arrives"),
    "hero-rouses-people": gettext_lazy("a Hero rouses the people"),
    "leader-stress": gettext_lazy("a leader under stress"),
    "scouts": gettext_lazy("scouts offer their services"),
    "leader-emerges": gettext_lazy("a leader emerges"),
    "individual-emerges": gettext_lazy("an individual emerges from the ranks"),
    "magic-item": gettext_lazy("a magic item"),
    "ars-arcana-200": gettext_lazy("200 points of Ars Arcana"),
    "wizard-magic-points": gettext_lazy("25 magic points for a Wizard"),
    "wizard-joins": gettext_lazy("a Wizard joins the cause"),
    "spirit-rations": gettext_lazy("spirit rations"),
    "poisoned-arrows": gettext_lazy("poisoned arrows"),
    "storm": gettext_lazy("a storm"),
    "epidemic-holding": gettext_lazy("an epidemic in a holding"),
    "epidemic-capital": gettext_lazy("an epidemic in the capital"),
    "catastrophe-square": gettext_lazy("a catastrophe on a square"),
    # the effects a scenario's table names (rules.scenarios.EVENT_PARAMS)
    "points": gettext_lazy("extra reinforcement points"),
    "tokens": gettext_lazy("tokens"),
    "hero": gettext_lazy("a Hero joins"),
    "individual": gettext_lazy("an individual character joins"),
    "wizard": gettext_lazy("a Wizard joins"),
    "blizzard": gettext_lazy("a blizzard"),
    "lose-bank": gettext_lazy("reinforcements lost to an epidemic"),
    "ars-arcana": gettext_lazy("Ars Arcana points"),
    "wizard-points": gettext_lazy("magic points for a Wizard"),
    "catastrophe": gettext_lazy("a catastrophe"),
}
TOKEN_KINDS = ("spirit", "poisoned-arrows", "magic-item", "ars-arcana-points")


def tokens(kind: Any, count: int) -> str:
    """`count` tokens of `kind` (rules.event_codes.TOKEN_KINDS), with their number."""
    values = {"count": count}
    if kind == "spirit":
        return ngettext("%(count)s spirit token", "%(count)s spirit tokens", count) % values
    if kind == "poisoned-arrows":
        text = ngettext(
            "%(count)s token of poisoned arrows", "%(count)s tokens of poisoned arrows", count
        )
        return text % values
    if kind == "magic-item":
        return ngettext("%(count)s magic item", "%(count)s magic items", count) % values
    if kind == "ars-arcana-points":
        text = ngettext("%(count)s point of Ars Arcana", "%(count)s points of Ars Arcana", count)
        return text % values
    log.error("no words for the token kind %r", kind)
    return str(count)


def word(table: Mapping[str, Any], code: Any) -> str:
    """The words for `code` in `table`. A code without words is a bug the tests catch; here
    it reads as a dash, never as a slug."""
    found = table.get(str(code))
    if found is None:
        log.error("no words for the event code %r", code)
        return "—"
    return str(found)


# every coded event field (rules.event_codes.CODED_FIELDS) and the table that words it
WORDS: dict[tuple[str, str], Mapping[str, Any]] = {
    ("ForceDestroyed", "reason"): FORCE_DESTROYED,
    ("ForceMoved", "reason"): {"movement": "", **FORCE_MOVED},
    ("OrderRefused", "reason"): ORDER_REFUSED,
    ("ReinforcementsRefused", "reason"): REINFORCEMENTS_REFUSED,
    ("BankChanged", "reason"): BANK_CHANGED,
    ("ForcePointsLost", "reason"): FORCE_POINTS_LOST,
    ("CaptureBlocked", "reason"): CAPTURE_BLOCKED,
    ("RandomEvent", "outcome"): EVENT_OUTCOMES,
    ("SupplyConvoy", "outcome"): EVENT_OUTCOMES,
    ("ForceStopped", "reason"): FORCE_STOPPED,
    ("IndividualLost", "fate"): INDIVIDUAL_FATE,
    ("CampaignEnded", "reason"): CAMPAIGN_ENDED,
    ("TokensGained", "kind"): {k: k for k in TOKEN_KINDS},
}
