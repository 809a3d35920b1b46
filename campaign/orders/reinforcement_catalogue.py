"""What a player may buy as reinforcements (§9.3) and what his page shows of it.

The prices are his roster's own: every unit type (with its quality, speciality and points
per figure), general and character his army had at the start of the campaign or has now is
an entry of the catalogue. Elite types are listed apart, not for sale (R9.3.2). Entries are
keyed by their place in a stable order, so the form posts a key and the price is read here,
never from the form.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _

from campaign import adapters
from campaign.models import Campaign, TurnResolution
from campaign.text.labels import INDIVIDUAL_KIND, QUALITY, SPECIALITY, STATUS, label
from rules import (
    CampaignState,
    Force,
    FormatError,
    General,
    Holding,
    Individual,
    PlayerOrders,
    Quality,
    ReinforcementRequest,
    Unit,
    load_scenario,
)

ALLOWED_QUALITIES = (Quality.LEVY, Quality.AVERAGE, Quality.VETERAN)  # R9.3.2


@dataclass(frozen=True)
class UnitType:
    key: str
    unit: Unit  # one figure's worth: its `figures` is 1

    @property
    def label(self) -> str:
        u = self.unit
        extra = [label(SPECIALITY, u.speciality), label(QUALITY, u.quality)]
        if u.mercenary:
            extra.append(_("mercenary"))
        if u.mounted and u.speciality != "cavalry":
            extra.append(_("mounted"))
        if u.missile and u.speciality != "missile":
            extra.append(_("missile weapons"))
        return f"{u.type} ({', '.join(extra)})"

    @property
    def elite(self) -> bool:
        return self.unit.quality not in ALLOWED_QUALITIES


@dataclass(frozen=True)
class GeneralType:
    key: str
    general: General

    @property
    def label(self) -> str:
        g = self.general
        text = _("General, command value %(cv)s, %(points)s points") % {
            "cv": g.cv,
            "points": g.points,
        }
        return text + (_(", mounted") if g.mounted else "")


@dataclass(frozen=True)
class CharacterType:
    key: str
    individual: Individual

    @property
    def label(self) -> str:
        i = self.individual
        text = _("%(kind)s, %(points)s points") % {
            "kind": label(INDIVIDUAL_KIND, i.kind),
            "points": i.points,
        }
        if i.magic_points:
            text += _(", %(mp)s magic points") % {"mp": i.magic_points}
        return text + (_(", mounted") if i.mounted else "")


@dataclass(frozen=True)
class Catalogue:
    units: tuple[UnitType, ...]  # for sale
    elite: tuple[UnitType, ...]  # shown, not for sale (R9.3.2)
    generals: tuple[GeneralType, ...]
    characters: tuple[CharacterType, ...]

    def unit(self, key: str) -> UnitType | None:
        return next((t for t in (*self.units, *self.elite) if t.key == key), None)

    def general(self, key: str) -> GeneralType | None:
        return next((t for t in self.generals if t.key == key), None)

    def character(self, key: str) -> CharacterType | None:
        return next((t for t in self.characters if t.key == key), None)


def _initial_state(campaign: Campaign) -> CampaignState | None:
    """The state the first resolution started from: the army as it was set up."""
    first = (
        TurnResolution.objects.filter(turn__campaign=campaign)
        .order_by("turn__number", "pk")
        .only("state_before", "created_at")
        .first()
    )
    if first is None:
        return None
    try:
        return adapters.state_before(first)
    except FormatError:
        return None


def catalogue_get(*, campaign: Campaign, state: CampaignState, player_key: str) -> Catalogue:
    """The player's catalogue: his roster's unit types, generals and characters, from the
    army as set up and as it stands now (reinforcements bought since included)."""
    forces: list[Force] = [f for f in state.forces if f.owner == player_key]
    initial = _initial_state(campaign)
    if initial is not None:
        forces += [f for f in initial.forces if f.owner == player_key]
    units = {
        (u.type, u.speciality, u.quality, u.points_per_figure, u.mercenary, u.missile, u.mounted)
        for f in forces
        for u in f.units
    }
    generals = {(g.cv, g.points, g.mounted) for f in forces for g in f.generals}
    characters = {
        (i.kind, i.points, i.mounted, i.magic_points) for f in forces for i in f.individuals
    }
    types = [
        UnitType(f"t{n}", Unit("", t, s, q, 1, ppf, merc, missile, mounted))
        for n, (t, s, q, ppf, merc, missile, mounted) in enumerate(sorted(units), 1)
    ]
    return Catalogue(
        units=tuple(t for t in types if not t.elite),
        elite=tuple(t for t in types if t.elite),
        generals=tuple(
            GeneralType(f"g{n}", General("", cv, "", points, mounted))
            for n, (cv, points, mounted) in enumerate(sorted(generals), 1)
        ),
        characters=tuple(
            CharacterType(f"i{n}", Individual("", kind, "", points, mounted, mp))
            for n, (kind, points, mounted, mp) in enumerate(sorted(characters), 1)
        ),
    )


# --- the page --------------------------------------------------------------------------------


@dataclass(frozen=True)
class RequestRow:
    """A standing request as the page lists it."""

    index: int
    request: ReinforcementRequest
    destination: str
    notes: tuple[str, ...]

    @property
    def number(self) -> int:
        return self.index + 1

    @property
    def contents(self) -> list[str]:
        r = self.request
        out = [f"{u.figures} × {u.type} ({label(QUALITY, u.quality)})" for u in r.units]
        if r.general is not None:
            out.append(
                _("general %(name)s (command value %(cv)s)")
                % {"name": r.general.name or "—", "cv": r.general.cv}
            )
        out += [
            f"{i.name}, {label(INDIVIDUAL_KIND, i.kind)}"
            if i.name
            else label(INDIVIDUAL_KIND, i.kind)
            for i in r.individuals
        ]
        return out


def capital_of(state: CampaignState, player_key: str) -> tuple[Holding | None, str]:
    """His own capital and, when it cannot send reinforcements (R9.3.1), why not."""
    capital = next(
        (h for h in state.holdings if h.capital and h.original_owner == player_key), None
    )
    if capital is None:
        return None, _("Your army has no capital: no reinforcements can be sent (R9.3.1).")
    name = capital.name or capital.id
    if capital.destroyed:
        why = _("Your capital %(name)s has been destroyed")
    elif capital.sacked or capital.carried_by:
        why = _("Your capital %(name)s has been sacked")
    elif capital.owner != player_key:
        why = _("Your capital %(name)s is in enemy hands")
    else:
        return capital, ""
    return capital, (why % {"name": name}) + _(
        ": no reinforcements can be sent while it is (R9.3.1). Your bank is kept."
    )


def forces_in_capital(
    state: CampaignState, player_key: str, capital: Holding | None
) -> list[Force]:
    """Forces of his side in his capital now: the reinforcements must join one (R9.3.3)."""
    if capital is None:
        return []
    side = state.side_of(player_key)
    return [
        f for f in state.forces if f.square == capital.square and state.side_of(f.owner) == side
    ]


def request_rows(
    state: CampaignState, player_key: str, orders: PlayerOrders, capital: Holding | None
) -> list[RequestRow]:
    here = forces_in_capital(state, player_key, capital)
    names = {f.id: f.name or f.id for f in state.forces}
    rows = []
    for n, r in enumerate(orders.reinforcements):
        notes = []
        if r.join and r.join in names:
            where = _("Join %(force)s if it is in the capital on the day") % {
                "force": names[r.join]
            }
        else:
            where = _("Join a force of your side in the capital")
        if r.general is not None:
            where += " " + _("(otherwise a new force, %(name)s, under %(order)s)") % {
                "name": r.name or _("unnamed"),
                "order": label(STATUS, r.status),
            }
        elif not here:
            notes.append(
                _(
                    "No force of your side is in the capital now: unless one is there on the "
                    "day, these reinforcements need a general to form a new force (R9.3.4)."
                )
            )
        rows.append(RequestRow(n, r, where, tuple(notes)))
    return rows


def next_reinforcement_day(state: CampaignState, player_key: str) -> int | None:
    """The first day from this turn's (R9.2.3: turn n is day n) on which this player is due
    reinforcements: the scenario's key days for his role (§11.8), else every
    `reinforcement_interval_days` (§9.3 [SR])."""
    if state.scenario:
        scenario = load_scenario(state.scenario)
        if scenario.schedule:
            role = state.player(player_key).role
            days = sorted(k.day for k in scenario.schedule if k.day >= state.turn)
            for day in days:
                rd = scenario.key_day(day)
                got = rd.roles.get(role) if rd is not None else None
                if got is not None and got.reinforcements != "none":
                    return day
            return None
    every = state.options.reinforcement_interval_days
    if every <= 0:
        return None
    turn = max(state.turn, 1)
    return turn + (-turn % every)
