"""A draft branch: the campaign's line of turns replayed from an amended input.

The engine re-runs the amended turn with the corrected input and the turn's committed seed,
then every later turn the line has resolved with its players' standing orders (as the engine
took them: `TurnResolution.inputs`) and its battles' results, with each turn's own seed. What
no longer fits is adapted, and said (`Note`):

- orders for a force that is gone, or that can no longer be carried out as written
  (`rules.validate_orders`), are dropped: the force holds, as it does without orders (the
  campaign's missing-orders policy);
- a battle the old line did not fight, or whose result no longer fits it
  (`rules.validate_result`), is fought by the tactical engine with the dice an auto-resolve of
  that battle uses (the turn's seed derived for the battle): the GM may amend that result
  afterwards, like any other.

Nothing here writes: `campaign.turns.amend` previews, commits or discards the branch.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from campaign import adapters
from campaign.models import Amendment, Turn, TurnResolution
from rules import (
    CampaignState,
    FormatError,
    PendingBattle,
    PlayerOrders,
    RulesError,
    SeededDice,
    TacticalError,
    battle_input_from_state,
    derive_seed,
    resolve_after_battles,
    resolve_turn,
    tactical_resolve,
    to_data,
    validate_orders,
    validate_result,
)

TURN = TurnResolution.Stage.TURN
AFTER = TurnResolution.Stage.AFTER


class BranchError(Exception):
    """The line cannot be replayed from this amendment (the message says why)."""


@dataclass(frozen=True)
class Note:
    """Something of a later turn that no longer fitted, and what the branch did instead."""

    turn: int
    kind: str  # "orders-dropped", "result-default", "result-changed-battle"
    subject: str  # the force's or battle's id
    player: str = ""  # whose orders, or "" for a battle
    detail: str = ""  # the rules' reason

    def to_dict(self) -> dict[str, str | int]:
        return {
            "turn": self.turn,
            "kind": self.kind,
            "subject": self.subject,
            "player": self.player,
            "detail": self.detail,
        }


@dataclass
class Stage:
    """One replayed resolution, as a `TurnResolution` would store it."""

    turn: int
    stage: str
    seed: int
    before: CampaignState
    after: CampaignState
    inputs: dict[str, Any]
    ledger: list[dict[str, Any]]
    events: list[dict[str, Any]]
    pending: tuple[PendingBattle, ...] = ()  # Phases 0–2: the battles they produced
    # Phases 4–8: battle key → how its result came: "kept", "amended" or "engine"
    results_how: dict[str, str] = field(default_factory=dict)


@dataclass
class Branch:
    start_turn: int
    start_stage: str
    stages: list[Stage]
    state: CampaignState  # where the branch leaves the campaign
    notes: list[Note]
    last_turn: int  # the last turn the branch resolved (the old line's, or where it ended)

    @property
    def digest(self) -> str:
        """What the branch did, hashed: the same amendment on the same line gives the same."""
        h = hashlib.sha256()
        for s in self.stages:
            h.update(
                json.dumps(
                    [s.turn, s.stage, s.seed, s.inputs, s.ledger, s.events], sort_keys=True
                ).encode()
            )
        h.update(json.dumps(to_data(self.state), sort_keys=True).encode())
        return h.hexdigest()


@dataclass(frozen=True)
class Line:
    """The campaign's stored line from a turn on: its resolutions in the order they ran, the
    state each started from, and the turns' seeds."""

    rows: list[TurnResolution]
    befores: list[CampaignState]
    seeds: dict[int, int]

    def row(self, turn: int, stage: str) -> TurnResolution | None:
        return next((r for r in self.rows if r.turn.number == turn and r.stage == stage), None)

    def before(self, turn: int, stage: str) -> CampaignState | None:
        for r, s in zip(self.rows, self.befores, strict=True):
            if r.turn.number == turn and r.stage == stage:
                return s
        return None

    @property
    def last_turn(self) -> int:
        return max((r.turn.number for r in self.rows if r.stage == AFTER), default=0)

    def digest(self, current: Turn | None) -> str:
        """The line as it stands, by content (each stored resolution's turn, stage, seed,
        inputs and events, and where the current turn stands), so that it is the same line
        in another database after an export: a commit made on another line than the one
        previewed is refused."""
        h = hashlib.sha256()
        for r in self.rows:
            h.update(json.dumps([r.turn.number, r.stage, r.seed, r.inputs, r.events]).encode())
        h.update(json.dumps([current.number, current.status] if current else None).encode())
        return h.hexdigest()


def line_get(*, turns: Sequence[Turn], from_turn: int) -> Line:
    """The stored resolutions of these turns (a campaign's) from `from_turn` on."""
    order = TurnResolution.STAGE_ORDER
    rows = sorted(
        TurnResolution.objects.filter(
            turn__in=[t for t in turns if t.number >= from_turn]
        ).select_related("turn"),
        key=lambda r: (r.turn.number, order.get(r.stage, 9)),
    )
    return Line(rows, adapters.states_before(rows), {t.number: t.seed for t in turns if t.seed})


def _orders_of(row: TurnResolution) -> dict[str, PlayerOrders]:
    return {
        pid: adapters.orders_from_data(pid, po, f"orders of {pid}")
        for pid, po in sorted(row.inputs.items())
    }


def _results_of(row: TurnResolution | None) -> dict[str, Any]:
    if row is None:
        return {}
    return {k: v for k, v in row.inputs.items() if k != TurnResolution.SCRIPTED_DICE}


def _orders_fitted(
    state: CampaignState, orders: Mapping[str, PlayerOrders], turn: int, notes: list[Note]
) -> dict[str, PlayerOrders]:
    """The orders with what no longer fits the branch's state dropped (the force holds)."""
    out = {}
    for pid, po in orders.items():
        bad: dict[str, str] = {}
        for e in validate_orders(state, pid, po):
            if e.force_id is not None and e.force_id not in bad:
                bad[e.force_id] = e.message
        for fid, why in bad.items():
            notes.append(Note(turn, "orders-dropped", fid, pid, why))
        if bad:
            po = replace(
                po,
                forces={k: v for k, v in po.forces.items() if k not in bad},
                initiative_priority=tuple(f for f in po.initiative_priority if f not in bad),
            )
        out[pid] = po
    return out


def _engine_result(state: CampaignState, battle: PendingBattle, seed: int) -> dict[str, Any]:
    """The result the tactical engine gives, with the dice an auto-resolve of it uses."""
    dice = SeededDice(derive_seed(seed, "battle", battle.battle_id))
    try:
        outcome = tactical_resolve(battle_input_from_state(state, battle), dice)
    except TacticalError as e:
        raise BranchError(f"The tactical engine cannot fight battle {battle.battle_id}: {e}") from e
    return adapters.result_to_data(outcome.result)


def _result_fits(state: CampaignState, battle: PendingBattle, data: Any) -> str:
    """Why a stored result does not fit the battle ("" when it does)."""
    try:
        validate_result(state, battle, adapters.result_from_data(battle.battle_id, data))
    except (FormatError, RulesError) as e:
        return str(e)
    return ""


def _results_for(
    state: CampaignState,
    stored: Mapping[str, Any],
    amended: Mapping[str, Any],
    old_packs: Mapping[str, Any],
    turn: int,
    seed: int,
    notes: list[Note],
) -> tuple[dict[str, Any], dict[str, str]]:
    """A result for every battle the branch's Phases 0–2 produced: the amended one, the old
    line's when it still fits, else the engine's."""
    results: dict[str, Any] = {}
    how: dict[str, str] = {}
    for b in state.pending_battles:
        key = b.battle_id
        if key in amended:
            results[key], how[key] = amended[key], "amended"
            continue
        data = stored.get(key)
        why = _result_fits(state, b, data) if data is not None else "new"
        if not why:
            results[key], how[key] = data, "kept"
            if old_packs.get(key) is not None and old_packs[key] != to_data(b.pack):
                notes.append(Note(turn, "result-changed-battle", key))
            continue
        results[key], how[key] = _engine_result(state, b, seed), "engine"
        notes.append(Note(turn, "result-default", key, "", "" if why == "new" else why))
    return results, how


@dataclass(frozen=True)
class Change:
    """The amended input."""

    kind: str  # Amendment.Kind
    turn: int
    target: str = ""
    data: Any = None


def branch_replay(*, line: Line, change: Change, packs: Mapping[str, Any]) -> Branch:
    """Replay `line` (from `change.turn` on) with the change; `packs`: the old line's battle
    packs by key (to say when a kept result is of a battle that changed)."""
    first = change.turn
    start_stage = AFTER if change.kind == Amendment.Kind.RESULT else TURN
    state = line.before(first, start_stage)
    if state is None:
        raise BranchError(f"Turn {first} has no stored resolution to start from.")
    if change.kind == Amendment.Kind.OPTIONS:
        state = replace(state, options=adapters.options_from_data(change.data))
    notes: list[Note] = []
    stages: list[Stage] = []
    branch = Branch(first, start_stage, stages, state, notes, first - 1)
    if change.kind == Amendment.Kind.ROLLBACK:
        return branch
    last = line.last_turn
    turn, stage = first, start_stage
    try:
        while turn <= last and not state.ended:
            seed = line.seeds.get(turn)
            row = line.row(turn, stage)
            if seed is None or row is None:
                raise BranchError(f"Turn {turn} has no stored {stage} resolution to replay.")
            if stage == TURN:
                state = _turn_stage(state, row, change, seed, stages, notes)
                stage = AFTER
            else:
                amended = (
                    {change.target: change.data}
                    if change.kind == Amendment.Kind.RESULT and turn == first
                    else {}
                )
                state = _after_stage(state, row, amended, packs, seed, stages, notes)
                branch.last_turn = turn
                turn, stage = turn + 1, TURN
    except (FormatError, RulesError) as e:
        raise BranchError(f"Turn {turn} cannot be replayed: {e}") from e
    branch.state = state
    return branch


def _turn_stage(
    state: CampaignState,
    row: TurnResolution,
    change: Change,
    seed: int,
    stages: list[Stage],
    notes: list[Note],
) -> CampaignState:
    turn = row.turn.number
    orders = _orders_of(row)
    if change.kind == Amendment.Kind.ORDERS and turn == change.turn:
        orders[change.target] = adapters.orders_from_data(change.target, change.data)
        orders = dict(sorted(orders.items()))
    orders = _orders_fitted(state, orders, turn, notes)
    out = resolve_turn(state, orders, SeededDice(seed))
    stages.append(
        Stage(
            turn,
            TURN,
            seed,
            state,
            out.state,
            {pid: adapters.orders_to_data(po) for pid, po in sorted(orders.items())},
            [r.to_dict() for r in out.ledger],
            [e.to_dict() for e in out.events],
            pending=out.pending_battles,
        )
    )
    return out.state


def _after_stage(
    state: CampaignState,
    row: TurnResolution,
    amended: Mapping[str, Any],
    packs: Mapping[str, Any],
    seed: int,
    stages: list[Stage],
    notes: list[Note],
) -> CampaignState:
    turn = row.turn.number
    data, how = _results_for(state, _results_of(row), amended, packs, turn, seed, notes)
    results = {k: adapters.result_from_data(k, v) for k, v in data.items()}
    after_seed = derive_seed(seed, "after-battles")
    out = resolve_after_battles(state, results, SeededDice(after_seed))
    stages.append(
        Stage(
            turn,
            AFTER,
            after_seed,
            state,
            out.state,
            {k: adapters.result_to_data(r) for k, r in sorted(results.items())},
            [r.to_dict() for r in out.ledger],
            [e.to_dict() for e in out.events],
            results_how=how,
        )
    )
    return out.state
