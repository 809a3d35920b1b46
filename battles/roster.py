"""A battle's roster as it was fought: its two sides, their forces, units (with their figures
when the battle began), generals and characters, in pack order. It comes from the campaign
state while the turn waits for its battles, and from the state Phases 4–8 started from once
they have run (`campaign.adapters.battle_state_get`). Result entry (`battles.entry`), the
result form and the engine's odds read it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from battles.models import Battle
from campaign import adapters
from campaign.models import Side
from campaign.text.labels import INDIVIDUAL_KIND, QUALITY, SPECIALITY, STATUS, TERRITORY, label
from campaign.text.names import force_label, general_label
from campaign.text.units import unit_kind
from rules import CampaignState, Force, PendingBattle

SIDE_KEYS = ("a", "b")  # pack.sides[0] is "a" (the contacting side), pack.sides[1] is "b"
COUNTS = ("killed", "fled", "left_oppose", "left_retreat")  # R7.1.1, in the order of the rule
FATES = ("killed", "fled")


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
    force: str = ""  # its force's name: two units of a battle may share a type

    @property
    def label(self) -> str:
        """How an error names the unit: by its type and force, never by its id."""
        if not self.force:
            return self.type
        return _("%(unit)s of %(force)s") % {"unit": self.type, "force": self.force}

    @property
    def kind(self) -> str:
        """ "Veteran infantry", "Fanteria veterana"."""
        return unit_kind(self.quality, self.speciality)


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
    works_left: int = 0  # R7.8.6: field works it may still build for this battle

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
        return label(TERRITORY, self.territory)


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


def battle_roster_get(*, battle: Battle, state: CampaignState | None = None) -> Roster:
    """The battle's sides, forces, units (with their figures when it was fought), generals
    and characters, in pack order: side "a" first, a side's forces in pack order, a force's
    units in roster order, then its generals, then its characters (the rules' dice order)."""
    state = state or adapters.battle_state_get(battle=battle)
    pending = next((b for b in state.pending_battles if b.battle_id == battle.key), None)
    if pending is None:  # the state lost it (a campaign imported without its carry)
        pending = adapters.pending_battle_of(battle)
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
            forces.append(_force_roster(f, players, counter, bf.works_quota))
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


def _force_roster(
    f: Force, players: dict[str, str], counter: Iterator[int], works_left: int = 0
) -> ForceRoster:
    units = tuple(
        UnitRow(
            id=u.id,
            dom=f"u{next(counter)}",
            type=u.type,
            speciality=label(SPECIALITY, u.speciality),
            quality=label(QUALITY, u.quality),
            figures=u.figures,
            mercenary=u.mercenary,
            general=general_label(c.general, f) if c.general else "",
            force=force_label(f),
        )
        for c in f.commands
        for u in c.units
    )
    people = tuple(
        PersonRow(
            g.id,
            f"p{next(counter)}",
            (
                _("%(name)s, general (command value %(cv)s)")
                if g.name
                else _("%(name)s (command value %(cv)s)")
            )
            % {"name": general_label(g, f), "cv": g.cv},
            "general",
        )
        for g in f.generals
    ) + tuple(
        PersonRow(
            i.id,
            f"p{next(counter)}",
            _("%(name)s, %(kind)s") % {"name": i.name, "kind": label(INDIVIDUAL_KIND, i.kind)}
            if i.name
            else label(INDIVIDUAL_KIND, i.kind),
            "individual",
        )
        for i in f.individuals
    )
    return ForceRoster(
        id=f.id,
        name=force_label(f),
        owner=f.owner,
        owner_name=players.get(f.owner, f.owner),
        status=label(STATUS, f.status),
        units=units,
        people=people,
        works_left=works_left,
    )
