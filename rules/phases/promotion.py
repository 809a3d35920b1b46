"""R8.6 — a force left with no general promotes a new leader (step (8) of Phase 4).

Core (R8.6.1, p. 37): the new leader is promoted "from the ranks", on foot, with CV 1, so the
figure comes out of one of the force's units. Naran (R8.6.2, option `naran_promotion`): the
printed priority picks an individual character, else the Leader of the best unit.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rules.events import Event, LeaderPromoted
from rules.types import (
    CampaignState,
    Command,
    Force,
    General,
    Individual,
    IndividualKind,
    Quality,
    Speciality,
    Unit,
)

# R8.6.2 [SR sort key]: Hero/Destroyer/Special Fighter first, then the printed order.
PROMOTION_RANK = {
    IndividualKind.HERO: 0,
    IndividualKind.DESTROYER: 0,
    IndividualKind.SPECIAL_FIGHTER: 0,
    IndividualKind.DRUID: 1,
    IndividualKind.WIZARD: 2,
    IndividualKind.PRIEST: 3,
    IndividualKind.ENCHANTRESS: 4,
    IndividualKind.SEER: 5,
    IndividualKind.STANDARD_BEARER: 6,
    IndividualKind.HERALD: 7,
    IndividualKind.SCOUT: 8,
    IndividualKind.MESSENGER: 9,
    IndividualKind.ORDER_BEARER: 10,  # [SR] not listed; last, after the Messenger
}
# R8.6.2.3: Cavalry > Infantry > Missile > Artillery; flyers and creatures cannot (R8.6.2.4).
UNIT_PROMOTION_RANK = {
    Speciality.CAVALRY: 0,
    Speciality.INFANTRY: 1,
    Speciality.MISSILE: 2,
    Speciality.ARTILLERY: 3,
}
QUALITY_RANK = {Quality.LEVY: 0, Quality.AVERAGE: 1, Quality.VETERAN: 2, Quality.ELITE: 3}
# Flyers and Terrible Creatures never supply a leader (R8.6.2.4, applied to the core rule too).
NEVER_PROMOTE = frozenset({Speciality.AIR_CAVALRY, Speciality.TERRIBLE_CREATURE})


@dataclass(frozen=True, slots=True)
class _Pick:
    """The figure promoted: its id and profile, the unit it leaves (if any)."""

    gid: str
    name: str
    source: str
    mounted: bool = False
    points: int = 0
    unit_id: str | None = None


def replace_leader(state: CampaignState, f: Force) -> tuple[CampaignState, list[Event]]:
    """R8.6: a force with no general left promotes a CV 1 leader; the core rule takes him
    from the ranks (`_core_pick`), `naran_promotion` follows R8.6.2's priority (CV 1 too,
    R8.6.2.6)."""
    if f.generals:
        return state, []
    individuals = f.individuals
    pick: _Pick | None = None
    if state.options.naran_promotion:
        pick = _naran_individual(individuals) or _naran_unit(f)
        if pick is not None and pick.unit_id is None:
            individuals = tuple(i for i in individuals if i.id != pick.gid)
    if pick is None:  # the core rule; also R8.6.2.3's last resort, "an ordinary warrior"
        pick = _core_pick(f)
    if pick is None:
        # [SR] no figure can be spared (see `_core_pick`): the leader stands up from the
        # ranks without thinning them, as the force must keep a general (R8.6.1).
        gid, state = state.new_id("g")
        pick = _Pick(gid, "promoted leader", "ranks")
    elif not pick.gid:
        gid, state = state.new_id("g")
        pick = replace(pick, gid=gid)
    commands = _take_figure(list(f.commands), pick.unit_id)
    host = _host(commands, pick.unit_id, f)
    general = General(pick.gid, cv=1, name=pick.name, points=pick.points, mounted=pick.mounted)
    commands[host] = replace(commands[host], general=general)
    state = state.replace_force(replace(f, commands=tuple(commands), individuals=individuals))
    return state, [LeaderPromoted(f.id, pick.gid, pick.source)]


def _on_foot(u: Unit) -> bool:
    return not u.mounted and u.speciality is not Speciality.CAVALRY and _may_supply(u)


def _may_supply(u: Unit) -> bool:
    return u.speciality not in NEVER_PROMOTE and u.figures >= 1


def _core_pick(f: Force) -> _Pick | None:
    """R8.6.1 [SR]: the figure leaves an on-foot unit of the force (not mounted, not a flyer
    or Terrible Creature), the one with the most figures, lowest id on ties. A unit down to
    its last figure gives it only when no on-foot unit has two or more, and only if the force
    keeps another unit (R2.5.2 would otherwise remove the force it is meant to save). With
    no on-foot figure to spare, a mounted unit of two or more gives one, who leads on foot
    (R8.6.1 "on foot"). With none of these, `None`."""
    units = f.units
    by_size = sorted(units, key=lambda u: (-u.figures, u.id))
    foot = [u for u in by_size if _on_foot(u)]
    best = next((u for u in foot if u.figures >= 2), None)
    if best is None and len(units) > 1:
        best = next((u for u in foot if u.figures == 1), None)
    if best is None:
        best = next((u for u in by_size if _may_supply(u) and u.figures >= 2), None)
    if best is None:
        return None
    # the figure's cost goes with him, as in R8.6.2.5
    return _Pick(
        "", "promoted leader", f"unit:{best.id}", points=best.points_per_figure, unit_id=best.id
    )


def _naran_individual(individuals: tuple[Individual, ...]) -> _Pick | None:
    """R8.6.2.1–2: the first individual character by rank, cost, mount; he keeps his own
    profile (R8.6.2.5)."""
    if not individuals:
        return None
    best = min(
        individuals,
        key=lambda i: (PROMOTION_RANK.get(i.kind, 99), -i.points, not i.mounted, i.id),
    )
    return _Pick(
        best.id,
        best.name or best.kind.value,
        f"individual:{best.kind.value}",
        mounted=best.mounted,
        points=best.points,
    )


def _naran_unit(f: Force) -> _Pick | None:
    """R8.6.2.3–4: the unit Leader (Capo) of the best eligible unit of two or more figures;
    [SR] the figure leaves its unit (it loses its Leader, R8.6.2.3)."""
    cands = [u for u in f.units if u.speciality in UNIT_PROMOTION_RANK and u.figures >= 2]
    if not cands:
        return None
    u = min(
        cands,
        key=lambda u: (
            UNIT_PROMOTION_RANK[u.speciality],
            -u.points_per_figure,
            -QUALITY_RANK[u.quality],
        ),
    )
    return _Pick(
        "",
        "promoted leader",
        f"unit:{u.id}",
        mounted=u.mounted,
        points=u.points_per_figure,
        unit_id=u.id,
    )


def _take_figure(commands: list[Command], unit_id: str | None) -> list[Command]:
    """The promoted figure leaves its unit; a unit that gave its last figure is gone."""
    if unit_id is None:
        return commands
    out = []
    for c in commands:
        units = tuple(replace(u, figures=u.figures - 1) if u.id == unit_id else u for u in c.units)
        out.append(replace(c, units=tuple(u for u in units if u.figures > 0)))
    return out


def _host(commands: list[Command], unit_id: str | None, f: Force) -> int:
    """The command the new leader takes: the one his unit belongs to, else the first with
    units (a force in play always has one, R2.5.2)."""
    for i, c in enumerate(f.commands):
        if unit_id is not None and any(u.id == unit_id for u in c.units) and commands[i].units:
            return i
    return next(i for i, c in enumerate(commands) if c.units)
