"""The closed sets of codes that turn events carry in their reason and outcome fields.

An event never holds a sentence: it holds one of these kebab-case codes and, in its own typed
fields, the parameters the code needs (ids, numbers, enum values). Readers word them: the
command line in English (`rules.cli.event_words`), the web app in the reader's language.
A new code is added here first; tests fail while any reader has no words for it.
"""

from __future__ import annotations

from typing import Final

# ForceDestroyed.reason: why a force left play (with the rule of the event)
FORCE_DESTROYED: Final = frozenset(
    {
        "no-units-left",  # R2.5.2 after a battle's losses
        "no-retreat-square",  # R8.4.7 [SR]: no legal square to retreat to
        "force-test-disaster",  # R5.2: a force test of 0 or less
        "player-surrendered",  # R9.1: its owner failed his will to fight
        "terrain-attrition",  # R6.10: attrition left it without units
        "shattered-force-engaged",  # R6.7.8: a Shattered force caught by an enemy
        "annihilated",  # a storm on a player whose forces are all Shattered (§9.4.3, §11.8)
        "epidemic",  # an epidemic's points took its last figures (§9.4.3)
        "catastrophe",  # a catastrophe's square (§9.4.3)
    }
)

# ForceMoved.reason: a force's own march, a move after a battle, or a reaction (§7.10)
FORCE_MOVED: Final = frozenset(
    {
        "movement",  # Phase 2 (R6.4)
        "post-battle-retreat",  # R8.4: the loser's retreat
        "post-battle-stalemate",  # R8.4: both sides separate after a stalemate
        "ambush",  # §7.10.5: an ambusher springs into the square
        "flank-attack",  # §7.10.4: a flank attacker moves in
    }
)

# OrderRefused.reason: a standing order the rules refuse at resolution time
ORDER_REFUSED: Final = frozenset(
    {
        "sack-outside-incursion",  # §11.6: sacking exists only in the Incursion scenario
        "sack-not-raiders",  # §11.6: only the Raiders carry off loot
        "sack-no-captured-holding",  # §11.6 L-a: not on an enemy holding it captured
        "sack-under-full-speed",  # §11.6 rule 3
        "loot-full-speed",  # §11.6 rule 3: a force carrying loot may not receive Full Speed
        "probe-composition",  # R2.7.2: only cavalry, chariots and flyers may receive Probe
    }
)

# ReinforcementsRefused.reason; parameters in the event's `force_id`, `cost`, `bank`,
# `units` and `status` fields. The first seven are `rules.reinforcement_request_problems`'
# codes (a request unbuyable whatever the map).
REINFORCEMENTS_REFUSED: Final = frozenset(
    {
        "empty",  # R9.3: the request buys nothing
        "elite",  # R9.3.2: `units` are Elite
        "no-figures",  # §1.1: a unit without figures
        "general-alone",  # §1.1: a general comes with at least one unit
        "cv-out-of-range",  # §1.1: a general's CV out of range
        "negative-points",  # R9.3: points cannot be negative
        "status",  # R9.3.4: a new force starts under an order, not `status`
        "capital-lost",  # R9.3.1: the capital is not in his hands
        "bank-short",  # R9.3.8: costs `cost`, the bank holds `bank`: kept for later
        "too-many-individuals",  # R9.3.5: joining `force_id` would make individuals > units
        "new-force-needs-general",  # R9.3.4 (the points stay banked)
        "new-force-needs-unit",  # R2.5.2
        "new-force-too-many-individuals",  # R9.3.5
        "new-force-mercenaries",  # R2.5.7
        "new-force-status",  # R9.3.4: not under an order (`status`)
    }
)

# BankChanged.reason: which event moved the reinforcement bank
BANK_CHANGED: Final = frozenset(
    {
        "event-points",  # extra reinforcement points (§9.4.1, §11.8)
        "hero-rouses-people",  # §9.4.1 10, §11.8 day 21
        "epidemic-capital",  # §9.4.3 5 / §11.8 day 28: lost from current reinforcements
        "epidemic",  # §9.4.3 4: an epidemic in the capital, chosen as the holding
        "catastrophe",  # §9.4.3 6: a catastrophe on the capital's square halves the reserves
    }
)

# ForcePointsLost.reason
FORCE_POINTS_LOST: Final = frozenset({"epidemic", "catastrophe"})

# CaptureBlocked.reason
CAPTURE_BLOCKED: Final = frozenset({"capital-needs-siege"})  # R2.3.6 [NARAN]

# RandomEvent.outcome and SupplyConvoy.outcome: "done" when the follow-up events (BankChanged,
# IndividualJoined, LeaderCvChanged, TokensGained, MagicPointsGained, ReactionSuffered,
# ForceDestroyed, EpidemicStruck, CatastropheStruck …) tell all it did; otherwise what kept
# it (or part of it, with `lost` of `kind`, or `count` tokens of `kind`) from happening.
EVENT_OUTCOMES: Final = frozenset(
    {
        "done",
        "none",  # the row gives no particular event
        "no-room",  # `lost` characters of `kind` found no force with room (R2.5.5): lost
        "no-leader",  # no leader the CV change can apply to
        "nobody",  # `count` of `kind` (tokens, an item) had nobody to receive them: lost
        "no-wizard",  # no Wizard to receive the magic points
        "no-force",  # no force for the storm to strike
        "no-holding",  # no holding for the epidemic to strike
        "no-one-struck",  # the catastrophe's rolls struck no square
    }
)

# ForceStopped.reason: why a force's march ended early
FORCE_STOPPED: Final = frozenset(
    {
        "enemy-zoc",  # R6.6.3
        "illegal-step",  # R6.4.7
        "two-hostile-sides",  # R6.7.7 [SR]
        "no-countermarch-square",  # R6.5.3
    }
)

# IndividualLost.fate
INDIVIDUAL_FATE: Final = frozenset({"killed", "deserted"})  # R8.1.2, R8.2

# CampaignEnded.reason (a scenario's `end_reason` is one of these)
CAMPAIGN_ENDED: Final = frozenset(
    {"will-to-fight", "all-surrendered", "loot-brought-home", "honourable-withdrawal"}
)

# TokensGained.kind and RandomEvent.kind for tokens (§9.4; [SR] items kept as tokens)
TOKEN_KINDS: Final = frozenset({"spirit", "poisoned-arrows", "magic-item", "ars-arcana-points"})

# RandomEvent.table: the §9.4 tables; a scenario key day's table is "day-<day>-<role>", with
# the event's `day` and `role` fields set.
EVENT_TABLES: Final = frozenset({"general", "tribal", "catastrophe"})

# Every coded field, by event type and field name (the documentation and the readers' tests
# walk this table).
CODED_FIELDS: Final[dict[tuple[str, str], frozenset[str]]] = {
    ("ForceDestroyed", "reason"): FORCE_DESTROYED,
    ("ForceMoved", "reason"): FORCE_MOVED,
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
    ("TokensGained", "kind"): TOKEN_KINDS,
}
