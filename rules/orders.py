"""Standing, conditional orders for play between game sessions, and their validation.

Players cannot be asked mid-turn, so every choice the rules give them during a turn is
written in advance: the Phase 1 order change, the movement path, what to do on entering an
enemy zone of control, whether to countermarch, where to retreat, whether to sack.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from rules.errors import OrderError
from rules.scenarios import scenario_for
from rules.types import (
    CampaignState,
    Coord,
    Feature,
    Force,
    General,
    Individual,
    IndividualKind,
    Speciality,
    Status,
    Unit,
)
from rules.waterways import (
    NAVAL_REACH,
    floats,
    is_water,
    river_reach,
    ships_needed,
    voyage_error,
    water_ok,
)


class ZocPolicy(StrEnum):
    STOP = "stop"  # R6.6.3 first option
    ENGAGE = "engage"  # move into contact if movement remains


class CountermarchWhen(StrEnum):
    NEVER = "never"
    ALWAYS = "always"
    IF_STOPPED_IN_ZOC = "if-stopped-in-zoc"


@dataclass(frozen=True, slots=True)
class ForceOrders:
    force_id: str
    change_to: Status | None = None  # Phase 1 requested order (R5.1.1)
    path: tuple[Coord, ...] = ()  # ordered adjacent squares, not including the start
    zoc: ZocPolicy = ZocPolicy.STOP
    countermarch: CountermarchWhen = CountermarchWhen.NEVER
    countermarch_square: Coord | None = None
    retreat_squares: tuple[Coord, ...] = ()  # preference order (§8.4)
    sack: bool = False  # declare the holding carried as loot sacked (§11.6 L-b)
    flank_attack: bool = False  # attack a countermarching force in our ZOC (§7.10.4)
    ambush: bool = False  # Defend force ambushes a Full Speed force entering its ZOC (§7.10.5)
    initiative: str = "early"  # R6.1.5 standing preference: early / late
    # R4.4.3: the force's Wizard moves the weather of its own movement one row of the R4.2
    # table: −1 toward fine, +1 toward the storm (A-17: one clock period = one row)
    weather_shift: int = 0
    by_river: bool = False  # §6.11 [NARAN]: follow the path by boat along a navigable river


@dataclass(frozen=True, slots=True)
class ReinforcementRequest:
    """A standing Phase 7 purchase (R9.3): what to buy when points are available. The units
    join a same-side force in the capital (R9.3.3) or form a new force, which then needs a
    general (R9.3.4)."""

    units: tuple[Unit, ...] = ()
    general: General | None = None
    individuals: tuple[Individual, ...] = ()
    status: Status = Status.DEFEND  # order of a newly formed force
    name: str = ""
    join: str = ""  # R9.3.3: the force he chooses to join if several are in the capital

    @property
    def cost(self) -> int:
        return (
            sum(u.points for u in self.units)
            + (self.general.points if self.general else 0)
            + sum(i.points for i in self.individuals)
        )


@dataclass(frozen=True, slots=True)
class RegroupPurchase:
    """R8.3.2 [NARAN]: figures a force's regrouping pool buys for one of its units of the same
    speciality, before the turn's Phase 1 (so that they fight in its next battle). With
    `new_unit`, R8.3.3: a new unit of that unit's type and command, of `figures` figures at
    least its minimum size, with its Leader's cost."""

    force_id: str
    unit_id: str
    figures: int
    new_unit: bool = False


@dataclass(frozen=True, slots=True)
class PlayerOrders:
    player_id: str
    forces: Mapping[str, ForceOrders] = field(default_factory=dict)
    initiative_priority: tuple[str, ...] = ()  # R6.1.5: force ids, first to get a counter
    # R6.1.2: having won the initiative by army, move all his forces "first" or make the
    # others move first ("last")
    army_initiative: str = "first"
    reinforcements: tuple[ReinforcementRequest, ...] = ()  # Phase 7 purchases, in order
    # §9.4.1 result 8 and the §11.8 day-7 table: "potete rilanciare", he may roll again
    event_reroll: bool = True
    # §9.4 / A-41: the target a blow falls on is its owner's choice; per EVENT_TARGET_KINDS,
    # his ranked force or holding ids (the first still valid is struck)
    event_targets: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    regroup: tuple[RegroupPurchase, ...] = ()  # R8.3.2, spent at the start of Phase 1

    def for_force(self, force_id: str) -> ForceOrders | None:
        return self.forces.get(force_id)


TurnOrders = Mapping[str, PlayerOrders]  # by player id


def orders_index(orders: TurnOrders) -> dict[str, ForceOrders]:
    """Force id → its orders, over all players."""
    return {fid: fo for po in orders.values() for fid, fo in po.forces.items()}


def legal_moves(state: CampaignState, force: Force) -> set[Coord]:
    """Squares a movement path of this force may use this turn: every on-map square within
    its best possible allowance (3) by king moves, excluding squares it may never enter
    (those holding forces of a third hostile side, or across a river where crossing only at
    bridges is required). Defend and storm-bound forces have none (R6.4.4, R4.2)."""
    if force.status is Status.DEFEND:
        return set()
    frontier = {force.square}
    seen = {force.square}
    for _ in range(NAVAL_REACH if floats(state, force) else 3):
        nxt = set()
        for sq in frontier:
            for n in state.map.neighbours(sq):
                if n in seen or not _enterable(state, force, sq, n):
                    continue
                nxt.add(n)
        seen |= nxt
        frontier = nxt
    seen.discard(force.square)
    return seen | river_reach(state, force)


def _enterable(state: CampaignState, force: Force, frm: Coord, to: Coord) -> bool:
    if is_water(state, to) and not water_ok(state, force, to):
        return False  # §6.11: sea and lake squares only by ship, or craft near the shore
    return not (state.options.rivers_only_at_crossings and not crossing_allowed(state, frm, to))


def crossing_allowed(state: CampaignState, frm: Coord, to: Coord) -> bool:
    """R2.1.3 option: with `rivers_only_at_crossings`, a step between two river squares, or
    into or out of a river square, needs a bridge on the river square(s) involved [SR]."""
    for sq in (frm, to):
        feats = state.map.features_at(sq)
        if Feature.RIVER in feats and Feature.BRIDGE not in feats:
            return False
    return True


PROBE_SPECIALITIES = frozenset({Speciality.CAVALRY, Speciality.AIR_CAVALRY})


def probe_composition_ok(force: Force) -> bool:
    """R2.7.3 [NARAN] (option `naran_probe_composition`): a Probe force is light or medium
    cavalry or light chariots, may include flyers, and never Terrible Creatures. The roster
    does not tell light from heavy cavalry, so every cavalry unit qualifies [SR]."""
    return all(u.speciality in PROBE_SPECIALITIES for u in force.units)


ARMY_INITIATIVE = ("first", "last")
# Blows whose target the owner chooses, and what each list ranks: force or holding ids.
EVENT_TARGET_KINDS = {
    "leader-stress": "force",  # §9.4.1 11: which force's leader
    "blizzard": "force",  # §9.4.3 3: which force is Shattered (or annihilated)
    "epidemic-holding": "holding",  # §9.4.3 4: which holding
    "catastrophe-force": "force",  # §9.4.3 6, a 5: the square of which force
    "catastrophe-holding": "holding",  # §9.4.3 6, a 6: the square of which holding
}


def regroup_cost(force: Force, purchase: RegroupPurchase) -> tuple[str, int] | None:
    """The pool (speciality) a purchase draws on and its points, or None when the unit is
    not the force's."""
    unit = next((u for u in force.units if u.id == purchase.unit_id), None)
    if unit is None:
        return None
    leader = unit.leader_points if purchase.new_unit else 0  # R8.3.3
    return unit.speciality.value, purchase.figures * unit.points_per_figure + leader


def regroup_errors(
    state: CampaignState, player_id: str, purchases: tuple[RegroupPurchase, ...]
) -> list[OrderError]:
    """R8.3.2: a pool buys figures only for a unit of its force and speciality, up to the
    points in it (the purchases of one pool together)."""
    errors: list[OrderError] = []
    spent: dict[tuple[str, str], int] = {}
    for p in purchases:
        force = next((f for f in state.forces if f.id == p.force_id), None)
        if force is None or force.owner != player_id:
            errors.append(OrderError(p.force_id, "not-your-force", "This force is not yours."))
            continue
        if not state.options.naran_regroup:
            errors.append(
                OrderError(p.force_id, "regroup-off", "Regrouping is not used (R8.3).", "regroup")
            )
            continue
        cost = regroup_cost(force, p)
        if cost is None or p.figures < 1:
            errors.append(
                OrderError(
                    p.force_id,
                    "regroup-bad-unit",
                    "A regrouping buys at least one figure for one of the force's units.",
                    "regroup",
                )
            )
            continue
        if p.new_unit and (small := _new_unit_error(force, p)) is not None:
            errors.append(small)
            continue
        key = (p.force_id, cost[0])
        spent[key] = spent.get(key, 0) + cost[1]
        if spent[key] > force.regroup_pool.get(cost[0], 0):
            errors.append(
                OrderError(
                    p.force_id,
                    "regroup-over-pool",
                    f"The {cost[0]} pool of {p.force_id} holds "
                    f"{force.regroup_pool.get(cost[0], 0)} points (R8.3.2).",
                    "regroup",
                )
            )
    return errors


def _new_unit_error(force: Force, p: RegroupPurchase) -> OrderError | None:
    """R8.3.3: a new unit needs its army list's minimum size, as the roster gives it."""
    unit = next(u for u in force.units if u.id == p.unit_id)
    if not unit.min_figures:
        return OrderError(
            p.force_id,
            "regroup-no-minimum",
            f"The roster gives no minimum size for {unit.type}: no new unit of it (R8.3.3).",
            "regroup",
        )
    if p.figures < unit.min_figures:
        return OrderError(
            p.force_id,
            "regroup-under-minimum",
            f"A new unit of {unit.type} needs at least {unit.min_figures} figures (R8.3.3).",
            "regroup",
        )
    return None


def may_sack(state: CampaignState, player_id: str) -> bool:
    """§11.6 (p. 44): carrying off loot "concerns only the Raiders": the scenario role that
    wins by bringing loot home (`victory.loot_to_capital`)."""
    scenario = scenario_for(state)
    if scenario is None or scenario.victory.loot_to_capital is None:
        return False
    try:
        return state.player(player_id).role == scenario.victory.loot_to_capital
    except KeyError:
        return False


def validate_orders(state: CampaignState, player_id: str, orders: PlayerOrders) -> list[OrderError]:
    """Every problem with a player's standing orders, as typed errors. An empty list means
    the orders are legal as written (the dice may still cut a path short)."""
    errors: list[OrderError] = []
    try:
        player = state.player(player_id)
    except KeyError:
        return [OrderError(None, "unknown-player", f"There is no player {player_id!r}.")]
    if player.surrendered:
        errors.append(
            OrderError(None, "player-out", "You have surrendered: you can no longer give orders.")
        )
    if orders.player_id != player_id:
        errors.append(OrderError(None, "wrong-player", "These orders belong to another player."))
    if orders.army_initiative not in ARMY_INITIATIVE:
        errors.append(
            OrderError(
                None,
                "bad-army-initiative",
                "With initiative by army the winner moves first or last (R6.1.2).",
                "army_initiative",
            )
        )
    for kind in orders.event_targets:
        if kind not in EVENT_TARGET_KINDS:
            errors.append(
                OrderError(
                    None,
                    "bad-event-target",
                    "Only the random events that strike a force or holding of yours take a "
                    "choice of target.",
                    "event_targets",
                )
            )
    forces = {f.id: f for f in state.forces}
    errors += regroup_errors(state, player_id, orders.regroup)
    for fid in orders.initiative_priority:
        f = forces.get(fid)
        if f is None or f.owner != player_id:
            errors.append(
                OrderError(
                    fid,
                    "not-your-force",
                    f"Force {fid} in the initiative list is not yours.",
                    "initiative_priority",
                )
            )
    for fid, fo in orders.forces.items():
        if fo.force_id != fid:
            errors.append(OrderError(fid, "mismatch", "Order keyed under another force id."))
        force = forces.get(fid)
        if force is None:
            errors.append(OrderError(fid, "unknown-force", f"There is no force {fid}."))
            continue
        if force.owner != player_id:
            errors.append(OrderError(fid, "not-your-force", f"Force {fid} is not yours."))
            continue
        errors.extend(_validate_force(state, force, fo))
    return errors


def _validate_force(state: CampaignState, force: Force, fo: ForceOrders) -> list[OrderError]:
    # The status the force will most likely hold when it moves: the requested order if the
    # test passes. Paths are checked against both possibilities where they matter.
    effective = fo.change_to if fo.change_to is not None else force.status
    # R5.2 / R6.4.4: a force asking for Defend moves only if its test fails into a reaction
    # (results 1–3), which may move; its path and countermarch stand as conditional orders.
    moving = force.status if defend_is_conditional(force, fo) else effective
    return [
        *_order_change_errors(state, force, fo),
        *_sack_errors(state, force, fo, effective),
        *_path_errors(state, force, fo, moving),
        *_countermarch_errors(state, force.id, fo, moving),
        *_retreat_errors(state, force.id, fo),
        *_preference_errors(force.id, fo, effective),
        *_weather_shift_errors(state, force, fo),
    ]


def has_weather_magic(state: CampaignState, force: Force) -> bool:
    """R4.4.1: a force's Wizard may alter its weather, when the campaign rolls any (§4; the
    Incursion has no weather phase, R3.1)."""
    return (
        state.options.weather_phase
        and state.scenario != "incursion"
        and any(i.kind is IndividualKind.WIZARD for i in force.individuals)
    )


def _weather_shift_errors(state: CampaignState, force: Force, fo: ForceOrders) -> list[OrderError]:
    if not fo.weather_shift:
        return []
    if fo.weather_shift not in (-1, 1):
        return [
            OrderError(
                force.id,
                "bad-weather-shift",
                "A Wizard moves the weather one row, better or worse (R4.4.1, A-17).",
                "weather_shift",
            )
        ]
    if not has_weather_magic(state, force):
        return [
            OrderError(
                force.id,
                "weather-shift-no-wizard",
                "Only a force with a Wizard may change its weather, in a campaign with the "
                "weather phase (R4.4.1).",
                "weather_shift",
            )
        ]
    return []


def defend_is_conditional(force: Force, fo: ForceOrders) -> bool:
    """Whether the force asks for Defend from another status: its movement orders then
    apply only if the force test fails (R5.2 results 1–3)."""
    return fo.change_to is Status.DEFEND and force.status is not Status.DEFEND


def _order_change_errors(state: CampaignState, force: Force, fo: ForceOrders) -> list[OrderError]:
    """Whether the Phase 1 order change may be requested: only an order (R5.1.1), Probe only
    for a light force under the Naran option (R2.7), no Full Speed with loot (§11.6 rule 3)."""
    errs: list[OrderError] = []
    fid = force.id
    if fo.change_to is not None and not fo.change_to.is_order:
        errs.append(
            OrderError(
                fid,
                "bad-order",
                "An order change must request Full Speed, Probe or Defend (R5.1.1).",
                "change_to",
            )
        )
    if (
        fo.change_to is Status.PROBE
        and state.options.naran_probe_composition
        and not probe_composition_ok(force)
    ):
        errs.append(
            OrderError(
                fid,
                "probe-composition",
                "Only cavalry, chariots and flyers may receive Probe (R2.7, Naran option).",
                "change_to",
            )
        )
    if fo.change_to is Status.FULL_SPEED and (force.carries_loot or fo.sack):
        errs.append(
            OrderError(
                fid,
                "loot-full-speed",
                "A force carrying loot may not receive the Full Speed order (§11.6 rule 3).",
                "change_to",
            )
        )
    return errs


def _sack_errors(
    state: CampaignState, force: Force, fo: ForceOrders, effective: Status
) -> list[OrderError]:
    """Whether a declared sack is allowed: only in the Incursion (§11.6), by the Raiders
    (§11.6 "concerns only the Raiders", p. 44), on an enemy holding the force captured
    (§11.6 L-a), and not under Full Speed (§11.6 rule 3)."""
    if not fo.sack:
        return []
    fid = force.id
    h = state.holding_at(force.square)
    if state.scenario != "incursion":
        return [
            OrderError(
                fid, "no-sack", "Sacking exists only in the Incursion scenario (§11.6).", "sack"
            )
        ]
    if not may_sack(state, force.owner):
        return [
            OrderError(fid, "sack-raiders-only", "Only the Raiders carry off loot (§11.6).", "sack")
        ]
    if h is None or h.owner != force.owner or h.original_owner == force.owner:
        return [
            OrderError(
                fid,
                "no-sack",
                "The force must stand on an enemy holding it captured to sack it (§11.6 L-a).",
                "sack",
            )
        ]
    if effective is Status.FULL_SPEED:
        return [
            OrderError(
                fid,
                "sack-full-speed",
                "A force under Full Speed may not declare a sack (§11.6 rule 3).",
                "sack",
            )
        ]
    return []


def _path_errors(
    state: CampaignState, force: Force, fo: ForceOrders, effective: Status
) -> list[OrderError]:
    """Whether the path may be followed: a force on Defend has none (R6.4.4), at most 3 squares
    (R6.2), and every step legal (`_step_error`; the first bad step ends the check)."""
    errs: list[OrderError] = []
    if not fo.path:
        return errs
    fid = force.id
    if effective is Status.DEFEND:
        errs.append(
            OrderError(
                fid,
                "defend-path",
                "A force on Defend never moves (R6.4.4): clear its path or request another order.",
                "path",
            )
        )
    if fo.by_river:
        return errs + _voyage_errors(state, force, fo)
    if len(fo.path) > (NAVAL_REACH if floats(state, force) else 3):
        errs.append(
            OrderError(
                fid,
                "path-too-long",
                "A path has at most 3 squares, the best movement allowance (R6.2).",
                "path",
            )
        )
    prev = force.square
    for i, sq in enumerate(fo.path):
        err = _step_error(state, force, i, prev, sq)
        if err is not None:
            errs.append(err)
            break
        prev = sq
    return errs


def _voyage_errors(state: CampaignState, force: Force, fo: ForceOrders) -> list[OrderError]:
    """§6.11: a voyage by river goes at most the naval table's 4 squares, by adjacent steps,
    along navigable squares with craft or ships enough (`waterways.voyage_error`)."""
    fid = force.id
    if len(fo.path) > NAVAL_REACH:
        msg = "A voyage by river has at most 4 squares, the naval table's best (§6.11)."
        return [OrderError(fid, "river-too-long", msg, "path")]
    prev = force.square
    for i, sq in enumerate(fo.path):
        if max(abs(sq[0] - prev[0]), abs(sq[1] - prev[1])) != 1:
            msg = f"Step {i + 1} {sq} is not adjacent to {prev} (R6.4.2)."
            return [OrderError(fid, "not-adjacent", msg, "path", i)]
        prev = sq
    code, why = voyage_error(state, force, fo.path)
    if code:
        return [OrderError(fid, code, f"No voyage by river: {why}.", "by_river")]
    return []


def _step_error(
    state: CampaignState, force: Force, i: int, prev: Coord, sq: Coord
) -> OrderError | None:
    """What is wrong with step `i` of a path, from `prev` to `sq`, if anything: it stays on the
    map (R6.4.7), goes to an adjacent square (R6.4.2) and crosses no river away from a
    bridge where that is required (R2.1.3 option)."""
    fid = force.id
    if not state.map.on_map(sq):
        return OrderError(fid, "off-map", f"Step {i + 1} {sq} leaves the map (R6.4.7).", "path", i)
    if max(abs(sq[0] - prev[0]), abs(sq[1] - prev[1])) != 1:
        return OrderError(
            fid,
            "not-adjacent",
            f"Step {i + 1} {sq} is not adjacent to {prev} (R6.4.2).",
            "path",
            i,
        )
    if is_water(state, sq) and not water_ok(state, force, sq) and floats(state, force):
        return OrderError(
            fid,
            "craft-open-sea",
            f"Step {i + 1} {sq} is open sea: boats and rafts sail only lakes and the sea "
            "beside the shore (R6.11.4).",
            "path",
            i,
        )
    if is_water(state, sq) and not water_ok(state, force, sq):
        need, have = ships_needed(force), force.ships
        why = (
            "naval movement is not used in this campaign (§6.11)"
            if not state.options.naval_movement
            else f"the force has {have} ship(s) and needs {need} to carry it all (R6.11.3)"
        )
        return OrderError(fid, "naval-no-ships", f"Step {i + 1} {sq} is water: {why}.", "path", i)
    if not _enterable(state, force, prev, sq):
        return OrderError(
            fid,
            "river-crossing",
            f"Step {i + 1} {sq} crosses a river away from a bridge (R2.1.3 option).",
            "path",
            i,
        )
    return None


def _countermarch_errors(
    state: CampaignState, fid: str, fo: ForceOrders, effective: Status
) -> list[OrderError]:
    """Whether the countermarch order holds: never on Defend or Shattered (R6.5.2), and its
    square on the map."""
    errs: list[OrderError] = []
    if fo.countermarch is not CountermarchWhen.NEVER and effective in (
        Status.DEFEND,
        Status.SHATTERED,
    ):
        errs.append(
            OrderError(
                fid,
                "no-countermarch",
                "Forces on Defend or Shattered cannot countermarch (R6.5.2).",
                "countermarch",
            )
        )
    if fo.countermarch_square is not None and not state.map.on_map(fo.countermarch_square):
        errs.append(
            OrderError(
                fid, "off-map", "The countermarch square is off the map.", "countermarch_square"
            )
        )
    return errs


def _retreat_errors(state: CampaignState, fid: str, fo: ForceOrders) -> list[OrderError]:
    """Every preferred retreat square (§8.4) off the map."""
    return [
        OrderError(fid, "off-map", f"Retreat square {sq} is off the map.", "retreat_squares")
        for sq in fo.retreat_squares
        if not state.map.on_map(sq)
    ]


def _preference_errors(fid: str, fo: ForceOrders, effective: Status) -> list[OrderError]:
    """Whether the standing choices hold: an ambush only on Defend (§7.10.5), an initiative
    preference of early or late (R6.1.5)."""
    errs: list[OrderError] = []
    if fo.ambush and effective is not Status.DEFEND:
        errs.append(
            OrderError(
                fid,
                "ambush-needs-defend",
                "Only a force on Defend can lay an ambush (§7.10.5).",
                "ambush",
            )
        )
    if fo.initiative not in ("early", "late"):
        errs.append(
            OrderError(
                fid,
                "bad-initiative",
                "Initiative preference must be early or late (R6.1.5).",
                "initiative",
            )
        )
    return errs
