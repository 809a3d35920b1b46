"""Turn replay: re-run the stored resolutions of a turn from their `state_before`, inputs and
seed, and compare the ledger and the events, entry by entry, with what was stored. Also
checks that the turn's seed matches the hash published before resolution, and that each
stage used the seed derived from it. Anyone may ask for it once the turn is resolved (what a
player may read of the differences: `campaign.reports.turn_report.turn_replay_for_viewer`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from campaign import adapters
from campaign.exchange.export import plain
from campaign.models import Turn, TurnResolution
from rules import (
    Dice,
    FormatError,
    RulesError,
    ScriptedDice,
    SeededDice,
    derive_seed,
    resolve_after_battles,
    resolve_turn,
)


@dataclass
class ReplayReport:
    ok: bool = True
    differences: list[str] = field(default_factory=list)
    stages: list[str] = field(default_factory=list)  # the stages replayed, in order


def turn_replay(*, turn: Turn) -> ReplayReport:
    """Re-run each stored resolution of a turn and compare its ledger and events, entry by
    entry, with the stored ones. Also checks that the turn's seed matches the hash published
    before resolution, and that each stage used the seed derived from it."""
    report = ReplayReport()
    order = TurnResolution.STAGE_ORDER
    resolutions = sorted(turn.resolutions.all(), key=lambda r: order.get(r.stage, 9))
    if not resolutions:
        report.ok = False
        report.differences.append(f"Turn {turn.number} has no stored resolution to replay.")
        return report
    if turn.seed is not None and turn.seed_hash:
        published = turn.hash_of(turn.seed)
        if published != turn.seed_hash:
            report.differences.append(
                f"seed hash: published {turn.seed_hash}, the seed {turn.seed} gives {published}"
            )
    for r in resolutions:
        stage = str(TurnResolution.Stage(r.stage).label)
        report.stages.append(stage)
        expected_seed = (
            turn.seed
            if r.stage == TurnResolution.Stage.TURN
            else (derive_seed(turn.seed, "after-battles") if turn.seed is not None else None)
        )
        if r.seed != expected_seed:
            report.differences.append(
                f"{stage}: seed: the turn fixed {expected_seed}, the resolution used {r.seed}"
            )
        if _scripted(r) is not None:
            # a run given its dice (tests) proves nothing about the seed: flag it, and replay
            # it with the dice it stored so that the rules are still checked
            report.differences.append(
                f"{stage}: resolved with scripted dice, not with the turn's seed: the replay "
                "re-uses the stored dice and cannot check the seed"
            )
        try:
            ledger, events = _rerun(r)
        except (FormatError, RulesError, KeyError, TypeError, ValueError) as e:
            report.differences.append(f"{stage}: the replay failed: {e}")
            continue
        report.differences += _ledger_diff(stage, r.ledger, ledger)
        report.differences += _events_diff(stage, r.events, events)
    report.ok = not report.differences
    return report


def _scripted(r: TurnResolution) -> list[int] | None:
    """The dice a Phases 4–8 run was given instead of its seed (`TurnResolution.SCRIPTED_DICE`)."""
    if r.stage != TurnResolution.Stage.AFTER or not isinstance(r.inputs, dict):
        return None
    return r.inputs.get(TurnResolution.SCRIPTED_DICE)


def _rerun(r: TurnResolution) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    state = adapters.state_before(r)
    scripted = _scripted(r)
    inputs = {
        k: v for k, v in r.inputs.items() if scripted is None or k != TurnResolution.SCRIPTED_DICE
    }
    dice: Dice = SeededDice(r.seed) if scripted is None else ScriptedDice(scripted)
    if r.stage == TurnResolution.Stage.TURN:
        orders = {
            pid: adapters.orders_from_data(pid, po, f"orders of {pid}")
            for pid, po in inputs.items()
        }
        out = resolve_turn(state, orders, dice)
    else:
        results = {
            bid: adapters.result_from_data(bid, res, f"result of {bid}")
            for bid, res in inputs.items()
        }
        out = resolve_after_battles(state, results, dice)
    return plain([x.to_dict() for x in out.ledger]), plain([e.to_dict() for e in out.events])


def _mismatches(
    stored: list[dict[str, Any]], replayed: list[dict[str, Any]]
) -> Iterator[tuple[int, dict[str, Any] | None, dict[str, Any] | None]]:
    """Each position where the two lists differ, with both entries (None past one's end)."""
    for i in range(max(len(stored), len(replayed))):
        a = stored[i] if i < len(stored) else None
        b = replayed[i] if i < len(replayed) else None
        if a != b:
            yield i, a, b


def _ledger_diff(
    stage: str, stored: list[dict[str, Any]], replayed: list[dict[str, Any]]
) -> list[str]:
    out = []
    for i, a, b in _mismatches(stored, replayed):
        entry = a or b or {}
        where = f"{stage}: ledger #{entry.get('seq', i + 1)} ({entry.get('purpose', '?')})"
        out.append(f"{where}: {_describe(a, b)}")
    return out


def _events_diff(
    stage: str, stored: list[dict[str, Any]], replayed: list[dict[str, Any]]
) -> list[str]:
    return [
        f"{stage}: event #{i + 1} ({(a or b or {}).get('type', '?')}): {_describe(a, b)}"
        for i, a, b in _mismatches(stored, replayed)
    ]


def _describe(stored: dict[str, Any] | None, replayed: dict[str, Any] | None) -> str:
    """The two values, or for two entries only the fields that differ."""
    if stored is None:
        return f"not stored, replay gives {_short(replayed)}"
    if replayed is None:
        return f"stored {_short(stored)}, the replay has no such entry"
    keys = sorted(set(stored) | set(replayed))
    return "; ".join(
        f"{k}: stored {_short(stored.get(k))}, replayed {_short(replayed.get(k))}"
        for k in keys
        if stored.get(k) != replayed.get(k)
    )


def _short(value: Any, limit: int = 200) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"
