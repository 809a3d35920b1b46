"""The calculator's input files: JSON from a path or stdin, decoded and checked."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from rules.battle import BattleResult
from rules.cli.registry import CalculatorError
from rules.codec import from_data
from rules.orders import PlayerOrders, validate_orders
from rules.setup.references import validate_state_references
from rules.types import CampaignState


def read_json(path: str, what: str) -> Any:
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise CalculatorError(f"cannot read the {what} file {path}: {e.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise CalculatorError(
            f"the {what} file {path} is not JSON: {e.msg} at line {e.lineno} column {e.colno}"
        ) from None


def load_state(path: str) -> CampaignState:
    data = read_json(path, "state")
    if isinstance(data, dict) and "state" in data and "ledger" in data:
        data = data["state"]  # the whole output of a previous `turn` run
    state = from_data(CampaignState, data, "state")
    problems = validate_state_references(state)
    if problems:
        raise CalculatorError("state: " + " ".join(p.message for p in problems))
    return state


def _keyed(data: Any, what: str) -> dict[str, dict[str, Any]]:
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise CalculatorError(f"the {what} file must be a JSON object of objects")
    return data


def load_orders(path: str, state: CampaignState) -> dict[str, PlayerOrders]:
    orders: dict[str, PlayerOrders] = {}
    for pid, raw in _keyed(read_json(path, "orders"), "orders").items():
        forces = raw.get("forces", {})
        if not isinstance(forces, dict):
            raise CalculatorError(f"orders.{pid}.forces must be an object keyed by force id")
        po = {
            **raw,
            "player_id": raw.get("player_id", pid),
            "forces": {
                fid: {"force_id": fid, **fo} if isinstance(fo, dict) else fo
                for fid, fo in forces.items()
            },
        }
        orders[pid] = from_data(PlayerOrders, po, f"orders.{pid}")
        errors = validate_orders(state, pid, orders[pid])
        if errors:
            listed = "; ".join(
                f"{e.force_id + ': ' if e.force_id else ''}{e.message}" for e in errors
            )
            raise CalculatorError(f"orders of {pid}: {listed}")
    return orders


def load_results(path: str) -> dict[str, BattleResult]:
    return {
        bid: from_data(BattleResult, {"battle_id": bid, **raw}, f"results.{bid}")
        for bid, raw in _keyed(read_json(path, "results"), "results").items()
    }
