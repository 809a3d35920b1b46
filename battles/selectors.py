"""Reads for the battle result page and the GM inbox. Keyword-only, `<entity>_<get/list>…`.

Who may do what with a battle's result is decided once, in `BattleRights`: the page uses it
to show the right forms, and `battles.services` to refuse what it does not allow.

The roster of a battle (its sides, forces, units, generals and characters, as they stood when
the battle was fought) comes from the campaign state while the turn waits for its battles,
and from the state Phases 4–8 started from once they have run.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from datetime import datetime

from django.utils.translation import gettext as _

from battles.models import Battle, BattleAudit, BattlePhoto, WhatIfOdds
from campaign import adapters
from campaign.access import Viewer
from campaign.models import Campaign, Side, Turn, TurnResolution
from campaign.services_setup import LABELS
from rules.battle import BattlePack, PendingBattle
from rules.codec import FormatError, from_data, to_data
from rules.dice import SeededDice, derive_seed
from rules.tactical import BattleInput, battle_input_from_state
from rules.tactical.inputs import seen_force, what_if
from rules.types import CampaignState, Force, Status, Territory

SIDE_KEYS = ("a", "b")  # pack.sides[0] is "a" (the contacting side), pack.sides[1] is "b"
COUNTS = ("killed", "fled", "left_oppose", "left_retreat")  # R7.1.1, in the order of the rule
FATES = ("killed", "fled")

# audit actions taken by the periodic deadline check, not by a user
CLOCK_ACTIONS = {"auto-resolve-deadline"}

# result entry states in which the turn may go on to Phases 4–8
SETTLED = (Battle.Entry.CONFIRMED, Battle.Entry.OVERRIDDEN)


# --- the roster ------------------------------------------------------------------------------


@dataclass(frozen=True)
class UnitRow:
    id: str
    dom: str  # a safe HTML id fragment ("u3"): unit ids are data, not markup
    type: str
    speciality: str
    quality: str
    figures: int  # when the battle was fought
    mercenary: bool
    general: str  # the general of its command, for the reader

    @property
    def label(self) -> str:
        return f"{self.type} ({self.id})"


@dataclass(frozen=True)
class PersonRow:
    id: str
    dom: str
    label: str
    role: str  # general / individual


@dataclass(frozen=True)
class ForceRoster:
    id: str
    name: str
    owner: str  # player key
    owner_name: str
    status: str
    units: tuple[UnitRow, ...]
    people: tuple[PersonRow, ...]

    @property
    def figures(self) -> int:
        return sum(u.figures for u in self.units)


@dataclass(frozen=True)
class SideRoster:
    key: str  # "a" / "b"
    alliance: str  # the Side key
    name: str
    players: tuple[str, ...]  # player keys
    player_names: tuple[str, ...]
    territory: str
    points: int
    forces: tuple[ForceRoster, ...]

    @property
    def figures(self) -> int:
        return sum(f.figures for f in self.forces)

    @property
    def units(self) -> tuple[UnitRow, ...]:
        return tuple(u for f in self.forces for u in f.units)

    @property
    def people(self) -> tuple[PersonRow, ...]:
        return tuple(p for f in self.forces for p in f.people)

    @property
    def territory_label(self) -> str:
        return {
            Territory.FRIENDLY.value: _("friendly territory"),
            Territory.NEUTRAL.value: _("neutral territory"),
            Territory.ENEMY.value: _("enemy territory"),
        }.get(self.territory, self.territory)


@dataclass(frozen=True)
class Roster:
    """A battle's two sides as they stood when it was fought, with what validation needs."""

    battle: Battle
    sides: tuple[SideRoster, SideRoster]
    method: str  # battle_result_method option: core / english / italian
    storm_allowed: bool  # option storm_ends_battle (R4.2 table, A-60)
    state: CampaignState = field(repr=False)
    pending: PendingBattle = field(repr=False)
    _units: dict[str, tuple[str, UnitRow]] = field(default_factory=dict, repr=False)
    _people: dict[str, tuple[str, PersonRow]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for side in self.sides:
            for u in side.units:
                self._units[u.id] = (side.key, u)
            for p in side.people:
                self._people[p.id] = (side.key, p)

    def side(self, key: str) -> SideRoster:
        return self.sides[SIDE_KEYS.index(key)]

    def unit(self, uid: object) -> tuple[str, UnitRow] | None:
        return self._units.get(uid) if isinstance(uid, str) else None

    def person(self, pid: object) -> tuple[str, PersonRow] | None:
        return self._people.get(pid) if isinstance(pid, str) else None


def battle_state_get(*, battle: Battle) -> CampaignState:
    """The campaign state the battle's result is read against: the current state (with the
    turn's carried data) while the turn waits for its battles, else the state Phases 4–8
    started from."""
    turn = battle.turn
    if turn.status != Turn.Status.BATTLES:
        stored = _after_state(turn)
        if stored is not None:
            return stored
    return adapters.state_load(campaign=battle.campaign, turn=turn)


def _after_state(turn: Turn) -> CampaignState | None:
    r = TurnResolution.objects.filter(turn=turn, stage=TurnResolution.Stage.AFTER).first()
    if r is None:
        return None
    return from_data(CampaignState, r.state_before, "state_before")


def battle_roster_get(*, battle: Battle, state: CampaignState | None = None) -> Roster:
    """The battle's sides, forces, units (with their figures when it was fought), generals
    and characters, in pack order: side "a" first, a side's forces in pack order, a force's
    units in roster order, then its generals, then its characters (the rules' dice order)."""
    state = state or battle_state_get(battle=battle)
    pending = next((b for b in state.pending_battles if b.battle_id == battle.key), None)
    if pending is None:  # the state lost it (a campaign imported without its carry)
        pending = PendingBattle(
            battle.key,
            (battle.x, battle.y),
            battle.contact_order,
            from_data(BattlePack, battle.pack, "pack"),
        )
    names = dict(Side.objects.filter(campaign_id=battle.campaign_id).values_list("key", "name"))
    players = {p.id: p.name or p.id for p in state.players}
    counter = iter(range(1, 1_000_000))
    sides = []
    for key, side in zip(SIDE_KEYS, pending.pack.sides, strict=True):
        forces = []
        for bf in side.forces:
            try:
                f = state.force(bf.force_id)
            except KeyError:
                continue  # destroyed since; nothing to enter for it
            forces.append(_force_roster(f, players, counter))
        sides.append(
            SideRoster(
                key=key,
                alliance=side.side,
                name=names.get(side.side, side.side),
                players=tuple(side.players),
                player_names=tuple(players.get(p, p) for p in side.players),
                territory=side.territory,
                points=side.points,
                forces=tuple(forces),
            )
        )
    return Roster(
        battle=battle,
        sides=(sides[0], sides[1]),
        method=state.options.battle_result_method,
        storm_allowed=state.options.storm_ends_battle,
        state=state,
        pending=pending,
    )


def _force_roster(f: Force, players: dict[str, str], counter) -> ForceRoster:
    units = tuple(
        UnitRow(
            id=u.id,
            dom=f"u{next(counter)}",
            type=u.type,
            speciality=str(LABELS.get(u.speciality, u.speciality.value)),
            quality=str(LABELS.get(u.quality, u.quality.value)),
            figures=u.figures,
            mercenary=u.mercenary,
            general=(c.general.name or c.general.id) if c.general else "",
        )
        for c in f.commands
        for u in c.units
    )
    people = tuple(
        PersonRow(
            g.id,
            f"p{next(counter)}",
            _("%(name)s, general (command value %(cv)s)") % {"name": g.name or g.id, "cv": g.cv},
            "general",
        )
        for g in f.generals
    ) + tuple(
        PersonRow(
            i.id,
            f"p{next(counter)}",
            f"{i.name}, {LABELS.get(i.kind, i.kind.value)}"
            if i.name
            else str(LABELS.get(i.kind, i.kind.value)),
            "individual",
        )
        for i in f.individuals
    )
    return ForceRoster(
        id=f.id,
        name=f.name or f.id,
        owner=f.owner,
        owner_name=players.get(f.owner, f.owner),
        status=str(LABELS.get(f.status, f.status.value)),
        units=units,
        people=people,
    )


# --- who may do what -------------------------------------------------------------------------


@dataclass(frozen=True)
class BattleRights:
    """What one member may do with one battle's result, now. Who may see the battle at all is
    the battle pages' one rule (`battles.queries.battle_visible`)."""

    is_gm: bool
    side: str | None  # "a" / "b": the viewer is a player of that side (alliance) of the battle
    entry: str  # Battle.Entry
    entered_side: str | None  # the side whose player entered the result (None: the GM)
    waiting: bool  # the battle's turn waits for battle results

    @property
    def can_enter(self) -> bool:
        """A player of the battle while the result is not confirmed, disputed or settled;
        the GM too, while no one has confirmed it (after that he overrides)."""
        return (
            self.waiting
            and (self.is_gm or self.side is not None)
            and self.entry in (Battle.Entry.NONE, Battle.Entry.ENTERED)
        )

    @property
    def can_confirm(self) -> bool:
        """A player of the other side than the one who entered it (either side for a
        result the GM entered)."""
        return (
            self.waiting
            and self.entry == Battle.Entry.ENTERED
            and self.side is not None
            and self.side != self.entered_side
        )

    @property
    def can_dispute(self) -> bool:
        return self.can_confirm

    @property
    def can_override(self) -> bool:
        return self.waiting and self.is_gm

    @property
    def can_set_resolver(self) -> bool:
        return self.waiting and self.is_gm and self.entry not in SETTLED

    @property
    def can_add_photo(self) -> bool:
        return self.is_gm or self.side is not None


def battle_side_for_alliance(*, battle: Battle, side_key: str | None) -> str | None:
    """The battle side ("a" or "b") of an alliance, if it fights in the battle."""
    if not side_key:
        return None
    for key, side in zip(SIDE_KEYS, (battle.pack or {}).get("sides", []), strict=False):
        if side.get("side") == side_key:
            return key
    return None


def battle_entered_side_get(*, battle: Battle) -> str | None:
    """The side whose player entered the current result (from the audit log); None when the
    GM entered it or nothing is entered."""
    if battle.entry == Battle.Entry.NONE:
        return None
    last = (
        BattleAudit.objects.filter(battle=battle, action="entered")
        .order_by("-created_at", "-pk")
        .values_list("data", flat=True)
        .first()
    )
    side = last.get("side") if isinstance(last, dict) else None
    return side if side in SIDE_KEYS else None


def battle_rights_for_viewer(*, battle: Battle, viewer: Viewer) -> BattleRights:
    """Only players act for a side: an observer who follows a player may read, not enter."""
    return BattleRights(
        is_gm=viewer.is_gm,
        side=battle_side_for_alliance(battle=battle, side_key=viewer.side_key)
        if viewer.is_player
        else None,
        entry=battle.entry,
        entered_side=battle_entered_side_get(battle=battle),
        waiting=battle.turn.status == Turn.Status.BATTLES,
    )


# --- what the page shows besides the form ----------------------------------------------------


def user_label(user) -> str:
    if user is None:
        return _("someone no longer registered")
    return user.get_full_name() or user.get_username()


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
    if turn is None or turn.campaign_id != campaign.pk or turn.status != Turn.Status.BATTLES:
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
        where = {"battle": b.key, "x": b.x, "y": b.y}
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


def battle_odds_get(*, battle: Battle) -> dict | None:
    """The cached odds of the battle, or None when missing or computed for another version of
    its pack and rosters."""
    if not battle.odds or not battle.odds_pack_hash:
        return None
    if battle.odds_pack_hash != battle_odds_hash(battle=battle):
        return None
    return battle.odds


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


def what_if_odds_get(*, campaign: Campaign, input_hash: str) -> dict | None:
    row = WhatIfOdds.objects.filter(campaign=campaign, input_hash=input_hash).first()
    return row.odds if row is not None else None
