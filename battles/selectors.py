"""Reads for the battle result page, the GM inbox and the engine's odds. Keyword-only,
`<entity>_<get/list>…`. (The roster of a battle and the check of an entry: `battles.entry`;
who may do what: `battles.rights`; the pack and the history: `battles.packs`,
`battles.history`.)"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, cast

from django.utils.translation import gettext as _

from battles.models import Battle, BattleAudit, BattlePhoto, WhatIfOdds
from battles.rights import CLOCK_ACTIONS, SETTLED, battle_entered_side_get
from battles.roster import SIDE_KEYS, Roster, battle_roster_get
from campaign.models import Campaign, Side, Turn
from campaign.selectors import user_label
from rules import (
    BattleInput,
    CampaignState,
    Force,
    FormatError,
    SeededDice,
    Status,
    battle_input_from_state,
    derive_seed,
    seen_force,
    to_data,
    what_if,
)

# --- what the page shows besides the form ----------------------------------------------------


@dataclass(frozen=True)
class AuditRow:
    at: datetime
    who: str
    action: str
    label: str
    note: str


def battle_audit_list(*, battle: Battle) -> list[AuditRow]:
    """Every change to the battle's result, oldest first, with who made it and the note."""
    labels = {
        "resolver-set": _("The resolver was set."),
        "entered": _("The result was entered."),
        "confirmed": _("The result was confirmed."),
        "disputed": _("The result was disputed."),
        "overridden": _("The game master settled the result."),
        "photo-added": _("A photo was added."),
        "auto-resolve": _("The tactical engine fought the battle."),
        "auto-resolve-deadline": _(
            "The tactical engine fought the battle at the battles deadline."
        ),
        "amended": _("The game master amended the result."),
        "amended-engine": _(
            "The tactical engine fought the battle again after the game master amended an "
            "earlier turn."
        ),
    }
    clock = _("the campaign clock")  # actions no one took: the deadline check did
    return [
        AuditRow(
            a.created_at,
            clock if a.action in CLOCK_ACTIONS else user_label(a.user),
            a.action,
            labels.get(a.action, a.action),
            a.note,
        )
        for a in BattleAudit.objects.filter(battle=battle).select_related("user")
    ]


def battle_photos_list(*, battle: Battle) -> list[BattlePhoto]:
    return list(battle.photos.select_related("uploaded_by").order_by("uploaded_at", "pk"))


# --- the GM inbox ----------------------------------------------------------------------------


@dataclass(frozen=True)
class BattleInboxItem:
    kind: str  # battle-disputed / battle-entered / battle-none
    text: str
    battle: Battle


def battle_items_for_inbox(*, campaign: Campaign, turn: Turn | None) -> list[BattleInboxItem]:
    """The battles of a turn waiting for its battles whose result holds it up: disputed ones
    first (only the GM can settle them), then those entered and awaiting the other side's
    confirmation, then those with no result yet."""
    if turn is None or turn.campaign_id != campaign.pk or not turn.waiting_for_battles:
        return []
    battles = list(
        Battle.objects.filter(turn=turn, status=Battle.Status.PENDING)
        .exclude(entry__in=SETTLED)
        .select_related("campaign", "entered_by")
        .order_by("contact_order", "key")
    )
    sides = dict(Side.objects.filter(campaign=campaign).values_list("key", "name"))
    items = []
    for b in battles:
        where = {"battle": b.label, "x": b.x, "y": b.y}
        if b.entry == Battle.Entry.DISPUTED:
            disputer = (
                BattleAudit.objects.filter(battle=b, action="disputed")
                .select_related("user")
                .order_by("-created_at", "-pk")
                .first()
            )
            items.append(
                BattleInboxItem(
                    "battle-disputed",
                    _(
                        "The result of battle %(battle)s at (%(x)s, %(y)s) is disputed by "
                        "%(who)s: “%(note)s” It blocks the turn until you settle it."
                    )
                    % {
                        **where,
                        "who": user_label(disputer.user if disputer else None),
                        "note": b.dispute_note,
                    },
                    b,
                )
            )
        elif b.entry == Battle.Entry.ENTERED:
            entered_side = battle_entered_side_get(battle=b)
            pack_sides = (b.pack or {}).get("sides", [])
            if entered_side is None:  # the GM entered it
                awaiting = _("either side")
            else:
                other = pack_sides[1 - SIDE_KEYS.index(entered_side)].get("side", "")
                awaiting = sides.get(other, other)
            items.append(
                BattleInboxItem(
                    "battle-entered",
                    _(
                        "The result of battle %(battle)s at (%(x)s, %(y)s) was entered by "
                        "%(who)s and awaits the confirmation of %(side)s."
                    )
                    % {**where, "who": user_label(b.entered_by), "side": awaiting},
                    b,
                )
            )
        else:
            items.append(
                BattleInboxItem(
                    "battle-none",
                    _("Battle %(battle)s at (%(x)s, %(y)s) has no result yet.") % where,
                    b,
                )
            )
    order = {"battle-disputed": 0, "battle-entered": 1, "battle-none": 2}
    return sorted(items, key=lambda i: order[i.kind])


# --- the engine's odds -----------------------------------------------------------------------


def battle_odds_input(*, battle: Battle) -> BattleInput:
    """What the tactical engine fights: the battle's rosters as they stood when it was fought."""
    roster = battle_roster_get(battle=battle)
    return battle_input_from_state(roster.state, roster.pending)


def _input_data(inp: BattleInput) -> object:
    try:
        return to_data(inp)
    except (FormatError, TypeError):  # not a codec type: its repr is as stable
        return repr(inp)


def _sha256(data: object) -> str:
    text = json.dumps(data, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def battle_odds_hash(*, battle: Battle, inp: BattleInput | None = None) -> str:
    """The version of the pack and rosters the odds are computed for (sha256)."""
    inp = inp if inp is not None else battle_odds_input(battle=battle)
    return _sha256({"pack": battle.pack, "rosters": _input_data(inp)})


def battle_odds_get(*, battle: Battle, roster: Roster | None = None) -> dict[str, Any] | None:
    """The cached odds of the battle, or None when missing or computed for another version of
    its pack and rosters (`roster`: the battle's, when the caller has it already)."""
    if not battle.odds or not battle.odds_pack_hash:
        return None
    inp = battle_input_from_state(roster.state, roster.pending) if roster is not None else None
    if battle.odds_pack_hash != battle_odds_hash(battle=battle, inp=inp):
        return None
    return cast(dict[str, Any], battle.odds)  # a JSONField: the odds `_simulate` stored


# --- what-if odds: a force against a visible enemy force (the orders page) ---------------------


def what_if_input_get(
    *, state: CampaignState, force: Force, enemy: Force, status: Status | None = None
) -> BattleInput:
    """The battle the engine fights when a player asks how his `force` would fare against a
    visible `enemy` force: his force as it stands (with `status` if he is thinking of asking
    for that order), the enemy as his side sees it (`seen_force`: its figures and status
    only, never its roster), on the enemy's square with its terrain, in the current weather,
    under the campaign's options. Deterministic: the dice that build the pack (ammunition of
    Confused or Unsteady missile units, R7.8.3) are seeded from the two forces.
    Raises `TacticalError` when the engine cannot fight it."""
    mine = replace(force, status=status) if status is not None else force
    seen = seen_force(
        enemy.id, enemy.owner, figures=enemy.figures, status=enemy.status, name=enemy.name
    )
    dice = SeededDice(derive_seed(0, "what-if-pack", force.id, enemy.id))
    return what_if(
        [mine],
        [seen],
        dice,
        features=state.map.features_at(enemy.square),
        weather=state.weather,
        options=state.options,
    )


def what_if_hash(*, inp: BattleInput) -> str:
    """The key what-if odds are cached under (sha256 of the engine input)."""
    return _sha256(_input_data(inp))


def what_if_odds_get(*, campaign: Campaign, input_hash: str) -> dict[str, Any] | None:
    row = WhatIfOdds.objects.filter(campaign=campaign, input_hash=input_hash).first()
    return row.odds if row is not None else None
