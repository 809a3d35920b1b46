"""The one seam between the database and the rules engine.

`state_load` builds a `rules.types.CampaignState` from the rows of a campaign, and
`state_save` writes a new state back. Both use a fixed number of queries, whatever the
number of forces: one read per table, and on write one bulk create, one bulk update and one
delete per table, touching only rows that changed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

import rules as R
from battles.models import Battle
from campaign import state_rows, stored_states
from campaign.bulk import rows_sync
from campaign.models import (
    Campaign,
    Command,
    Force,
    Holding,
    Individual,
    Player,
    Side,
    Square,
    Turn,
    TurnResolution,
    Unit,
)
from campaign.selectors import turn_current
from campaign.stored_states import state_before as state_before  # re-exported: the seam
from campaign.stored_states import states_before as states_before
from rules import BattlePack, PendingBattle, PlayerOrders, from_data, to_data

# --- reading ---------------------------------------------------------------------------------


def state_load(
    *, campaign: Campaign, turn: Turn | None = None, battle: str | None = None
) -> R.CampaignState:
    """The rules state of a campaign: its rows decoded once per process and kept under the
    database's stamp of them (`campaign.state_rows`: one query when kept; seven tables read
    otherwise), its own fields read from `campaign`, a turn's carry on top. `battle`: the
    carry as that battle's pages read it, its own pending battle alone and no orders (every
    player's orders and every battle's pack grew with the campaign)."""
    rows = state_rows.rows_get(campaign)
    state = R.CampaignState(
        turn=campaign.turn_number,
        day=campaign.day,
        map=rows.map,
        players=rows.players,
        holdings=rows.holdings,
        forces=rows.forces,
        options=options_of(campaign),
        scenario=campaign.scenario or None,
        weather=R.Weather(campaign.weather),
        force_weather={k: R.Weather(v) for k, v in campaign.force_weather.items()},
        heavy_ground_now=campaign.heavy_ground_now,
        snow=from_data(R.Snow, campaign.snow) if campaign.snow else R.Snow(),
        bank=rows.bank,
        records=rows.records,
        initiative_winner=campaign.initiative_winner or None,
        next_id=campaign.next_id,
        ended=campaign.ended or None,
        winner=campaign.winner or None,
    )
    if turn is not None and turn.carry:
        state = _with_carry(state, turn, battle)
    return state


def _with_carry(state: R.CampaignState, turn: Turn, battle: str | None = None) -> R.CampaignState:
    """Phases 0–2 leave the turn's orders, triggers and moves for Phases 4–8 (rules.turn)."""
    carry = turn.carry
    rows = Battle.objects.filter(turn=turn)
    if battle is not None:
        rows = rows.filter(key=battle)
    pending = tuple(pending_battle_of(b) for b in rows.order_by("contact_order"))
    return replace(
        state,
        phase=carry.get("phase", "orders"),
        orders={
            pid: from_data(PlayerOrders, {"player_id": pid, **po})
            for pid, po in (carry.get("orders", {}) if battle is None else {}).items()
        },
        wtf_triggers={k: tuple(v) for k, v in carry.get("wtf_triggers", {}).items()},
        moves={k: tuple(tuple(s) for s in v) for k, v in carry.get("moves", {}).items()},
        pending_battles=pending,
    )


def carry_of(state: R.CampaignState) -> dict[str, Any]:
    """What `_with_carry` restores, as JSON data for `Turn.carry`."""
    return {
        "phase": state.phase,
        "orders": {pid: to_data(po) for pid, po in state.orders.items()},
        "wtf_triggers": {k: list(v) for k, v in state.wtf_triggers.items()},
        "moves": {k: [list(s) for s in v] for k, v in state.moves.items()},
    }


# --- writing -----------------------------------------------------------------------------------


def state_save(
    *, campaign: Campaign, state: R.CampaignState, before: R.CampaignState | None = None
) -> None:
    """Write a state back in bulk. The map itself never changes in play and is not written.

    `before`: the state as the rows hold it (loaded in the same transaction, e.g. what a
    turn started from). The rules never change a force, command or unit in place: one that
    is the same object as before is unchanged, and the rows of its parts are not read."""
    campaign.turn_number = state.turn
    campaign.day = state.day
    campaign.weather = state.weather.value
    campaign.force_weather = {k: v.value for k, v in state.force_weather.items()}
    campaign.heavy_ground_now = state.heavy_ground_now
    campaign.snow = to_data(state.snow)
    campaign.initiative_winner = state.initiative_winner or ""
    campaign.next_id = state.next_id
    campaign.ended = state.ended or ""
    campaign.winner = state.winner or ""
    campaign.options = to_data(state.options)
    campaign.save()
    pid = rows_sync(
        Player,
        campaign,
        {
            p.id: {
                "surrendered": p.surrendered,
                "bank": state.bank.get(p.id, 0),
                "battles_won": state.record(p.id).battles_won,
                "battles_lost": state.record(p.id).battles_lost,
            }
            for p in state.players
        },
    )
    rows_sync(
        Holding,
        campaign,
        {h.id: _holding_fields(h, pid, i) for i, h in enumerate(state.holdings)},
    )
    _forces_save(campaign, state.forces, pid, before.forces if before else None)


def _holding_fields(h: R.Holding, pid: dict[str, int], position: int) -> dict[str, Any]:
    return {
        "position": position,
        "name": h.name,
        "x": h.square[0],
        "y": h.square[1],
        "owner_id": pid[h.owner],
        "original_owner_id": pid[h.original_owner],
        "capital": h.capital,
        "feature": h.feature or "",
        "sacked": h.sacked,
        "carried_by": h.carried_by or "",
        "destroyed": h.destroyed,
        "artefacts_holder": h.artefacts_holder or "",
        "port": h.port,
    }


def _units_save(
    campaign: Campaign, commands: Sequence[R.Command], cpk: dict[str, int], scoped: bool
) -> None:
    rows_sync(
        Unit,
        campaign,
        {
            u.id: {
                "command_id": cpk[c.id],
                "position": i,
                "type": u.type,
                "speciality": u.speciality.value,
                "quality": u.quality.value,
                "figures": u.figures,
                "points_per_figure": u.points_per_figure,
                "mercenary": u.mercenary,
                "missile": u.missile,
                "mounted": u.mounted,
                "min_figures": u.min_figures,
                "leader_points": u.leader_points,
            }
            for c in commands
            for i, u in enumerate(c.units)
        },
        {"command_id__in": [cpk[c.id] for c in commands]} if scoped else None,
    )


class _Changed:
    """Which parts of `forces` are not the very objects of `before` (all, without it)."""

    def __init__(self, forces: Sequence[R.Force], before: Sequence[R.Force] | None) -> None:
        self.scoped = before is not None
        self._forces = forces
        self._before = {f.id: f for f in before or ()}
        self._commands = {c.id: (f.id, c) for f in before or () for c in f.commands}

    def forces(self, part: str) -> list[R.Force]:
        """The forces whose `part` (commands, individuals) is new or another object."""
        if not self.scoped:
            return list(self._forces)
        was = self._before
        return [
            f
            for f in self._forces
            if f.id not in was or getattr(was[f.id], part) is not getattr(f, part)
        ]

    def commands(self) -> list[R.Command]:
        """The commands whose units are new or another object, or that changed force (the
        force they left may be gone, its rows with it: theirs and their units' are written
        again). Their forces' commands then are another object too."""
        was = self._commands
        out = []
        for f in self.forces("commands"):
            for c in f.commands:
                before = was.get(c.id)
                if before is None or before[0] != f.id or before[1].units is not c.units:
                    out.append(c)
        return out


def _forces_save(
    campaign: Campaign,
    forces: Sequence[R.Force],
    pid: dict[str, int],
    before: Sequence[R.Force] | None,
) -> None:
    fpk = rows_sync(
        Force,
        campaign,
        {
            f.id: {
                "position": i,
                "owner_id": pid[f.owner],
                "name": f.name,
                "x": f.square[0],
                "y": f.square[1],
                "status": f.status.value,
                "leader_key": f.leader_id or "",
                "loot": list(f.loot),
                "works_quota": f.works_quota,
                "works_square": list(f.works_square) if f.works_square else None,
                "works_built": f.works_built,
                "ships": f.ships,
                "sea_folk": f.sea_folk,
                "boats": f.boats,
                "rafts": f.rafts,
                "afloat": f.afloat,
                "figures_lost": f.figures_lost,
                "tokens": dict(f.tokens),
                "regroup_pool": dict(f.regroup_pool),
            }
            for i, f in enumerate(forces)
        },
    )
    changed = _Changed(forces, before)
    scoped = changed.scoped
    with_commands = changed.forces("commands")
    cpk = rows_sync(
        Command,
        campaign,
        {
            c.id: {
                "force_id": fpk[f.id],
                "position": i,
                "general_key": c.general.id if c.general else "",
                "general_name": c.general.name if c.general else "",
                "general_cv": c.general.cv if c.general else None,
                "general_points": c.general.points if c.general else 0,
                "general_mounted": c.general.mounted if c.general else False,
            }
            for f in with_commands
            for i, c in enumerate(f.commands)
        },
        {"force_id__in": [fpk[f.id] for f in with_commands]} if scoped else None,
    )
    _units_save(campaign, changed.commands(), cpk, scoped)
    with_individuals = changed.forces("individuals")
    rows_sync(
        Individual,
        campaign,
        {
            ind.id: {
                "force_id": fpk[f.id],
                "position": n,
                "kind": ind.kind.value,
                "name": ind.name,
                "points": ind.points,
                "mounted": ind.mounted,
                "magic_points": ind.magic_points,
            }
            for f in with_individuals
            for n, ind in enumerate(f.individuals)
        },
        {"force_id__in": [fpk[f.id] for f in with_individuals]} if scoped else None,
    )


def state_create(*, campaign: Campaign, state: R.CampaignState, colours: dict[str, str]) -> None:
    """Create every row of a new campaign from a rules state (scenario, fixture, import)."""
    sides = {
        key: Side(campaign=campaign, key=key, name=key.replace("-", " ").title())
        for key in dict.fromkeys(p.side for p in state.players)
    }
    Side.objects.bulk_create(sides.values())
    players = [
        Player(
            campaign=campaign,
            key=p.id,
            position=i,
            side=sides[p.side],
            name=p.name or p.id,
            race=p.race,
            role=p.role,
            colour=colours.get(p.id, "#888888"),
            initial_points=p.initial_points,
            tribal=p.tribal,
            light=p.light,
            surrendered=p.surrendered,
            bank=state.bank.get(p.id, 0),
            battles_won=state.record(p.id).battles_won,
            battles_lost=state.record(p.id).battles_lost,
        )
        for i, p in enumerate(state.players)
    ]
    Player.objects.bulk_create(players)
    Square.objects.bulk_create(_squares(campaign, state.map))
    state_save(campaign=campaign, state=state)


def _squares(campaign: Campaign, gmap: R.GameMap) -> Iterable[Square]:
    for y in range(gmap.height):
        for x in range(gmap.width):
            feats = gmap.features.get((x, y), frozenset())
            yield Square(
                campaign=campaign,
                x=x,
                y=y,
                features=sorted(f.value for f in feats),
                zone=gmap.zones.get((x, y), ""),
            )


# --- stored states and inputs ----------------------------------------------------------------


def state_current(*, campaign: Campaign) -> R.CampaignState:
    """The campaign's state now, with its current turn's carried data (Phases 0–2 → 4–8)."""
    return state_load(campaign=campaign, turn=turn_current(campaign=campaign))


def options_of(campaign: Campaign) -> R.Options:
    """The campaign's options (R-options of `rules.types.Options`) as the rules read them."""
    return options_from_data(campaign.options)


def options_from_data(data: Any, where: str = "options") -> R.Options:
    return from_data(R.Options, data, where)


def options_to_data(options: R.Options) -> Any:
    return to_data(options)


def state_from_data(data: Any, where: str = "state") -> R.CampaignState:
    """A state stored as data (an export, a resolution's `state_before`); `FormatError` says
    where it is malformed."""
    return from_data(R.CampaignState, data, where)


def state_to_data(state: R.CampaignState) -> Any:
    return to_data(state)


def resolution_state_fields(*, campaign: Campaign, state: R.CampaignState) -> dict[str, Any]:
    """The fields a new resolution of `campaign` stores of the state it starts from (a
    delta of the resolution before it, the map by reference; where each force stands).
    Pass the saved row to `resolution_noted`."""
    data = {
        name: _map_data(state.map) if name == "map" else to_data(getattr(state, name))
        for name in _STATE_FIELDS
    }
    return {
        "state_before": stored_states.state_stored(campaign=campaign, data=data),
        "squares_before": stored_states.squares_of(data),
    }


resolution_noted = stored_states.stored_noted

_STATE_FIELDS = tuple(f.name for f in fields(R.CampaignState) if f.init)
_MAPS_WRITTEN: list[tuple[R.GameMap, Any]] = []  # the maps last written, with their data


def _map_data(gmap: R.GameMap) -> Any:
    """The map as data, the same object for the same map: the map never changes in play,
    and its data (4,096 squares) need not be written again at every stage, nor its digest
    taken again. Nobody changes the data it gives."""
    for known, data in list(_MAPS_WRITTEN):
        if known is gmap or known == gmap:
            return data
    data = to_data(gmap)
    _MAPS_WRITTEN.insert(0, (gmap, data))
    del _MAPS_WRITTEN[4:]
    return data


def _object(data: Any, where: str) -> dict[str, Any]:
    """Stored data that must be an object (None: an empty one); `FormatError` otherwise, as
    the codec says it (an amendment's orders are typed by the GM)."""
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise R.FormatError(f"{where}: expected an object, got {type(data).__name__}")
    return data


def orders_from_data(player_key: str, data: Any, where: str = "") -> PlayerOrders:
    """A player's stored orders (`Orders.data`: no player id; a force's id may be left out,
    it is the key its orders are filed under)."""
    data = {**_object(data, where or "orders"), "player_id": player_key}
    if isinstance(data.get("forces"), dict):
        data["forces"] = {
            fid: {**fo, "force_id": fo.get("force_id", fid)} if isinstance(fo, dict) else fo
            for fid, fo in data["forces"].items()
        }
    return from_data(PlayerOrders, data, where)


def orders_to_data(orders: PlayerOrders) -> dict[str, Any]:
    """What `Orders.data` stores (the player is the row's)."""
    data: dict[str, Any] = to_data(orders)
    data.pop("player_id")
    return data


def result_from_data(battle_key: str, data: Any, where: str = "") -> R.BattleResult:
    """A battle's stored result (`Battle.result`: no battle id, the row's key is it)."""
    data = {**_object(data, where or "result"), "battle_id": battle_key}
    return from_data(R.BattleResult, data, where)


def result_to_data(result: R.BattleResult) -> dict[str, Any]:
    data: dict[str, Any] = to_data(result)
    data.pop("battle_id", None)
    return data


def pending_battle_of(battle: Battle) -> PendingBattle:
    """A battle row as the rules' pending battle (its pack as it was built)."""
    return PendingBattle(
        battle.key, (battle.x, battle.y), battle.contact_order, from_data(BattlePack, battle.pack)
    )


@dataclass(frozen=True)
class StageStates:
    """A stored resolution with the state it started from and the state it left."""

    resolution: TurnResolution
    before: R.CampaignState
    after: R.CampaignState


def stage_states_list(*, campaign: Campaign, number: int | None = None) -> list[StageStates]:
    """The stored resolutions (of turn `number`, or all) in the order they ran, each with the
    state it started from and the state it left: the next resolution's `state_before`, or the
    current state for the latest (its rows: the turn's carried orders are not read, as no
    reader of a stage needs them). One turn's (`number`) come without their inputs, and
    without their stored states unless not decoded yet."""
    qs = TurnResolution.objects.filter(turn__campaign=campaign).select_related("turn")
    if number is not None:
        qs = qs.filter(turn__number__in=[number, number + 1]).defer(
            "state_before", "inputs", "squares_before"
        )
    order = TurnResolution.STAGE_ORDER
    rs = sorted(qs, key=lambda r: (r.turn.number, order.get(r.stage, 9)))
    befores = states_before(rs)
    current: R.CampaignState | None = None
    out = []
    for i, r in enumerate(rs):
        if number is not None and r.turn.number != number:
            continue
        if i + 1 < len(rs):
            after = befores[i + 1]
        else:
            current = current or state_load(campaign=campaign)
            after = current
        out.append(StageStates(r, befores[i], after))
    return out


def battle_state_get(*, battle: Battle) -> R.CampaignState:
    """The state the battle's result is read against: the state Phases 4–8 started from once
    they have run, else the state now (with the turn's carried data as the battle's pages
    read it: `state_load`'s `battle`) while the turn waits."""
    after = (
        TurnResolution.objects.filter(turn_id=battle.turn_id, stage=TurnResolution.Stage.AFTER)
        .only("created_at")  # the state is read only if not decoded already
        .first()
    )
    if after is not None:
        return state_before(after)
    return state_load(campaign=battle.campaign, turn=battle.turn, battle=battle.key)


def turn_state_after_get(*, turn: Turn) -> R.CampaignState:
    """The state Phases 4–8 of `turn` left: the next turn's starting state, or the current."""
    nxt = (
        TurnResolution.objects.filter(
            turn__campaign_id=turn.campaign_id,
            turn__number=turn.number + 1,
            stage=TurnResolution.Stage.TURN,
        )
        .only("created_at")  # the state is read only if not decoded already
        .first()
    )
    if nxt is not None:
        return state_before(nxt)
    return state_current(campaign=turn.campaign)
