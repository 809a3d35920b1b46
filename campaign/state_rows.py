"""The rows of a campaign's state, decoded once per process and kept under the database's
stamp of them (`campaign.records.StateStamp`, renewed by triggers on every write).

Every page of a campaign needs its rules state, and decoding it from the rows cost most of
a request (about 60 ms CPU at 240 forces, ten times that at 960): a request should cost
what it shows, not what the campaign holds. The state only changes when a turn resolves
or the set-up (or the admin) changes its rows; each such write renews the stamp in the same
transaction, so a stamp names one committed content of the rows, never two.

A request reads the stamp (one query), and on a hit takes the decoded rows as they are:
they are immutable (frozen dataclasses, tuples, read-only mappings). On a miss it decodes
the rows and keeps them only if the stamp is still the same afterwards: a write committed
in between (READ COMMITTED reads each statement afresh) could have mixed two contents.
Stamps are random, so one rolled back never names another transaction's rows.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, cast

from django.db import connection

import rules as R
from campaign.bulk import json_text, rows_read
from campaign.kept import Kept
from campaign.models import (
    Campaign,
    Command,
    Force,
    Holding,
    Individual,
    Player,
    Square,
    StateStamp,
    Unit,
)

CACHE_MAX = 4  # campaigns a process keeps decoded (a 960-force state is about 20 MB)


@dataclass(frozen=True, slots=True)
class StateRows:
    """What `state_load` decodes from the rows, beside the campaign's own fields."""

    map: R.GameMap
    players: tuple[R.Player, ...]
    holdings: tuple[R.Holding, ...]
    forces: tuple[R.Force, ...]
    bank: Mapping[str, int]
    records: Mapping[str, R.PlayerRecord]


_cache: Kept[tuple[Any, ...], StateRows] = Kept(CACHE_MAX)


def stamp_of(campaign: Campaign) -> str | None:
    """The campaign's stamp now; None where the database keeps none (no triggers, or no row
    written since the campaign was created)."""
    return (
        StateStamp.objects.filter(campaign_id=campaign.pk).values_list("stamp", flat=True).first()
    )


def rows_get(campaign: Campaign) -> StateRows:
    """The campaign's decoded rows: kept ones under the current stamp, or read now."""
    stamp = stamp_of(campaign)
    if stamp is None:
        return rows_load(campaign)
    # the map's size lives on the campaign row, which no trigger watches
    key = (connection.settings_dict["NAME"], campaign.pk, stamp, campaign.width, campaign.height)
    rows = _cache.get(key)
    if rows is not None:
        return rows
    rows = rows_load(campaign)
    if stamp_of(campaign) == stamp:
        _cache.put(key, rows)
    return rows


def clear() -> None:
    """Forget every kept state (tests that measure a cold load)."""
    _cache.clear()
    _derived.clear()


# --- what is worked out of decoded rows, once -------------------------------------------------

# (what, ids of the parts) → (the parts, the value): the decoded rows are shared by the
# requests of a process (above, and a stored resolution's state: campaign.stored_states), so
# what a page works out of all of them (what a side sees, the names of every force) is
# worked out once; each entry keeps its parts alive, so an id is never reused meanwhile
DERIVED_MAX = 64  # a few per viewer of each campaign; each keeps its parts alive
_derived: Kept[tuple[Any, ...], tuple[tuple[Any, ...], Any]] = Kept(DERIVED_MAX)


def derived[T](what: Hashable, parts: tuple[Any, ...], compute: Callable[[], T]) -> T:
    """`compute()`, a value worked out of `parts` (immutable decoded rows: a state's forces,
    holdings, players) alone and never changed by its readers, once for the same parts.
    `what` names the value and anything else it depends on (the language of its labels)."""
    key = (what, *map(id, parts))
    hit = _derived.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], parts, strict=True)):
        return cast(T, hit[1])
    value = compute()
    _derived.put(key, (parts, value))
    return value


# --- decoding the rows ------------------------------------------------------------------------


@functools.lru_cache(maxsize=1024)
def _features(text: str | None) -> frozenset[R.Feature]:
    """A square's features from their JSON text: a map has few distinct sets of them."""
    return frozenset(R.Feature(f) for f in (json_text(text) or ()))


_SPECIALITY = {m.value: m for m in R.Speciality}
_QUALITY = {m.value: m for m in R.Quality}
_STATUS = {m.value: m for m in R.Status}


def rows_load(campaign: Campaign) -> StateRows:
    """The campaign's rows as the rules read them: one query per table."""
    players = list(
        rows_read(
            Player.objects.filter(campaign=campaign).order_by("position", "key"),
            "pk key side__key name race role initial_points tribal light surrendered bank "
            "battles_won battles_lost",
        )
    )
    pkey = {p.pk: p.key for p in players}
    holdings = tuple(
        R.Holding(
            id=h.key,
            square=(h.x, h.y),
            owner=pkey[h.owner_id],
            original_owner=pkey[h.original_owner_id],
            capital=h.capital,
            name=h.name,
            feature=h.feature or None,
            sacked=h.sacked,
            carried_by=h.carried_by or None,
            destroyed=h.destroyed,
            artefacts_holder=h.artefacts_holder or None,
            port=h.port,
        )
        for h in rows_read(
            Holding.objects.filter(campaign=campaign).order_by("position", "key"),
            "key x y owner_id original_owner_id capital name feature sacked carried_by destroyed "
            "artefacts_holder port",
        )
    )
    return StateRows(
        map=_map_load(campaign),
        players=tuple(
            R.Player(
                id=p.key,
                side=p.side__key,
                name=p.name,
                race=p.race,
                role=p.role,
                initial_points=p.initial_points,
                tribal=p.tribal,
                light=p.light,
                surrendered=p.surrendered,
            )
            for p in players
        ),
        holdings=holdings,
        forces=tuple(_forces_load(campaign, pkey)),
        bank=MappingProxyType({p.key: p.bank for p in players if p.bank}),
        records=MappingProxyType(
            {
                p.key: R.PlayerRecord(p.battles_won, p.battles_lost)
                for p in players
                if p.battles_won or p.battles_lost
            }
        ),
    )


def _map_load(campaign: Campaign) -> R.GameMap:
    features: dict[R.Coord, frozenset[R.Feature]] = {}
    zones: dict[R.Coord, str] = {}
    squares = rows_read(Square.objects.filter(campaign=campaign), "x y features zone", "features")
    for x, y, text, zone in squares:
        if feats := _features(text):
            features[(x, y)] = feats
        if zone:
            zones[(x, y)] = zone
    return R.GameMap(campaign.width, campaign.height, features, zones)


def _units_load(campaign: Campaign) -> dict[int, list[R.Unit]]:
    """Command pk → its units, in their order."""
    units: dict[int, list[R.Unit]] = defaultdict(list)
    for u in rows_read(
        Unit.objects.filter(campaign=campaign).order_by("command_id", "position"),
        "command_id key type speciality quality figures points_per_figure mercenary missile "
        "mounted min_figures leader_points",
    ):
        units[u.command_id].append(
            R.Unit(
                id=u.key,
                type=u.type,
                speciality=_SPECIALITY[u.speciality],
                quality=_QUALITY[u.quality],
                figures=u.figures,
                points_per_figure=u.points_per_figure,
                mercenary=u.mercenary,
                missile=u.missile,
                mounted=u.mounted,
                min_figures=u.min_figures,
                leader_points=u.leader_points,
            )
        )
    return units


def _forces_load(campaign: Campaign, pkey: dict[int, str]) -> list[R.Force]:
    units = _units_load(campaign)
    commands: dict[int, list[R.Command]] = defaultdict(list)
    for c in rows_read(
        Command.objects.filter(campaign=campaign).order_by("force_id", "position"),
        "pk force_id key general_key general_cv general_name general_points general_mounted",
    ):
        general = None
        if c.general_key:
            general = R.General(
                id=c.general_key,
                cv=c.general_cv or 0,
                name=c.general_name,
                points=c.general_points,
                mounted=c.general_mounted,
            )
        commands[c.force_id].append(R.Command(c.key, general, tuple(units[c.pk])))
    individuals: dict[int, list[R.Individual]] = defaultdict(list)
    for i in rows_read(
        Individual.objects.filter(campaign=campaign).order_by("force_id", "position"),
        "force_id key kind name points mounted magic_points",
    ):
        individuals[i.force_id].append(
            R.Individual(
                id=i.key,
                kind=R.IndividualKind(i.kind),
                name=i.name,
                points=i.points,
                mounted=i.mounted,
                magic_points=i.magic_points,
            )
        )
    return [
        R.Force(
            id=f.key,
            owner=pkey[f.owner_id],
            square=(f.x, f.y),
            status=_STATUS[f.status],
            commands=tuple(commands[f.pk]),
            individuals=tuple(individuals[f.pk]),
            leader_id=f.leader_key or None,
            name=f.name,
            loot=tuple(json_text(f.loot_text) or ()),
            works_quota=f.works_quota,
            works_square=tuple(square) if (square := json_text(f.works_square_text)) else None,
            works_built=f.works_built,
            ships=f.ships,
            sea_folk=f.sea_folk,
            boats=f.boats,
            rafts=f.rafts,
            afloat=f.afloat,
            figures_lost=f.figures_lost,
            tokens=json_text(f.tokens_text),
            regroup_pool=json_text(f.regroup_pool_text),
        )
        for f in rows_read(
            Force.objects.filter(campaign=campaign).order_by("position", "key"),
            "pk key owner_id x y status leader_key name loot works_quota works_square "
            "works_built ships sea_folk boats rafts afloat figures_lost tokens regroup_pool",
            "loot works_square tokens regroup_pool",
        )
    ]
