"""Adjudication case files (before / orders / dice / after), in TOML.

A case describes a starting state, the players' orders, the scripted dice, optional battle
results, and what must hold afterwards. See tests/rules/cases/README.md for the format.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from rules.battle import BattleResult
from rules.codec import from_data, to_data
from rules.dice import ScriptedDice
from rules.orders import PlayerOrders, validate_orders
from rules.turn import TurnOutcome, resolve_after_battles, resolve_turn
from rules.types import CampaignState

CASES = Path(__file__).parent / "cases"


def expand_force(f: dict[str, Any]) -> dict[str, Any]:
    """Shorthand: `cv` + `units` (+ `general_id`) instead of `commands`."""
    f = dict(f)
    if "commands" not in f:
        cv = f.pop("cv", 3)
        units = f.pop("units", [])
        gid = f.pop("general_id", f"g-{f['id']}")
        f["commands"] = [{"id": f"c-{f['id']}", "general": {"id": gid, "cv": cv}, "units": units}]
    return f


def expand_map(m: dict[str, Any]) -> dict[str, Any]:
    """Shorthand: `zones = { red = [[0,0],[4,1]] }` gives each player a rectangle
    (inclusive corners) of friendly territory."""
    m = dict(m)
    squares = {(s["x"], s["y"]): dict(s) for s in m.get("squares", [])}
    for pid, (a, b) in m.pop("zones", {}).items():
        for x in range(min(a[0], b[0]), max(a[0], b[0]) + 1):
            for y in range(min(a[1], b[1]), max(a[1], b[1]) + 1):
                squares.setdefault((x, y), {"x": x, "y": y})["zone"] = pid
    m["squares"] = list(squares.values())
    return m


def load_state(before: dict[str, Any]) -> CampaignState:
    d = dict(before)
    d.setdefault("turn", 1)
    d.setdefault("day", 0)
    d.setdefault("holdings", [])
    d["map"] = expand_map(d["map"])
    d["forces"] = [expand_force(f) for f in d.get("forces", [])]
    return from_data(CampaignState, d)


def load_orders(raw: dict[str, Any]) -> dict[str, PlayerOrders]:
    out = {}
    for pid, po in raw.items():
        po = dict(po)
        po["player_id"] = pid
        forces = {fid: {"force_id": fid, **fo} for fid, fo in po.get("forces", {}).items()}
        po["forces"] = forces
        out[pid] = from_data(PlayerOrders, po)
    return out


def load_results(raw: dict[str, Any]) -> dict[str, BattleResult]:
    return {bid: from_data(BattleResult, {"battle_id": bid, **r}) for bid, r in raw.items()}


class Case:
    def __init__(self, path: Path) -> None:
        self.path = path
        with path.open("rb") as fh:
            self.data = tomllib.load(fh)
        self.name = self.data.get("name", path.stem)

    def run(self) -> tuple[TurnOutcome, TurnOutcome | None, ScriptedDice]:
        state = load_state(self.data["before"])
        orders = load_orders(self.data.get("orders", {}))
        dice = ScriptedDice(self.data.get("dice", []))
        if self.data.get("start") == "after-battles":
            out1 = TurnOutcome(state, (), ())
        else:
            out1 = resolve_turn(state, orders, dice)
        out2 = None
        if "results" in self.data or self.data.get("run_after_battles", False):
            results = load_results(self.data.get("results", {}))
            out2 = resolve_after_battles(out1.state, results, dice)
        return out1, out2, dice

    def check(self) -> None:
        self.check_order_errors()
        out1, out2, dice = self.run()
        dice.assert_exhausted()
        expect = self.data.get("after", {})
        final = out2.state if out2 else out1.state
        events = [e.to_dict() for e in out1.events] + (
            [e.to_dict() for e in out2.events] if out2 else []
        )
        check_expectations(expect, final, out1, events)

    def check_order_errors(self) -> None:
        """`[after] order_errors = { player = ["code", ...] }`: what `validate_orders` says
        of that player's orders on the starting state (an empty list: they are legal)."""
        expected = self.data.get("after", {}).get("order_errors")
        if expected is None:
            return
        state = load_state(self.data["before"])
        orders = load_orders(self.data.get("orders", {}))
        for pid, codes in expected.items():
            got = [e.code for e in validate_orders(state, pid, orders[pid])]
            assert got == codes, f"order_errors.{pid}: expected {codes}, got {got}"


def _subset(expected: Any, actual: Any, where: str) -> None:
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: expected an object, got {actual!r}"
        for k, v in expected.items():
            assert k in actual, f"{where}: no field {k!r} in {sorted(actual)}"
            _subset(v, actual[k], f"{where}.{k}")
    else:
        assert expected == actual, f"{where}: expected {expected!r}, got {actual!r}"


def check_expectations(
    expect: dict[str, Any], final: CampaignState, out1: TurnOutcome, events: list[dict]
) -> None:
    data = to_data(final)
    forces = {f["id"]: f for f in data["forces"]}
    for fid, exp in expect.get("forces", {}).items():
        assert fid in forces, f"force {fid} is gone; expected {exp}"
        exp = dict(exp)
        if "figures" in exp:
            figs = sum(u["figures"] for c in forces[fid]["commands"] for u in c["units"])
            assert figs == exp.pop("figures"), f"force {fid}: figures {figs}"
        if "unit_figures" in exp:
            units = {u["id"]: u["figures"] for c in forces[fid]["commands"] for u in c["units"]}
            for uid, n in exp.pop("unit_figures").items():
                assert units.get(uid) == n, f"force {fid} unit {uid}: {units.get(uid)} != {n}"
        _subset(exp, forces[fid], f"forces.{fid}")
    for fid in expect.get("removed_forces", []):
        assert fid not in forces, f"force {fid} should have been removed"
    holdings = {h["id"]: h for h in data["holdings"]}
    for hid, exp in expect.get("holdings", {}).items():
        _subset(exp, holdings[hid], f"holdings.{hid}")
    for key in ("turn", "day", "weather", "ended", "winner", "bank", "records", "snow"):
        if key in expect:
            _subset(expect[key], data[key], key)
    if "players" in expect:
        players = {p["id"]: p for p in data["players"]}
        for pid, exp in expect["players"].items():
            _subset(exp, players[pid], f"players.{pid}")
    if "pending_battles" in expect:
        got = [
            {
                "square": list(b.square),
                "a": sorted(f.force_id for f in b.pack.sides[0].forces),
                "b": sorted(f.force_id for f in b.pack.sides[1].forces),
            }
            for b in out1.pending_battles
        ]
        want = [
            {"square": b["square"], "a": sorted(b["a"]), "b": sorted(b["b"])}
            for b in expect["pending_battles"]
        ]
        assert got == want, f"pending battles: {got} != {want}"
    if "pack" in expect:
        pack = to_data(out1.pending_battles[0].pack)
        _subset(expect["pack"], pack, "pack")
    types = [e["type"] for e in events]
    it = iter(types)
    for t in expect.get("events", []):
        assert t in it, f"event {t} missing or out of order in {types}"
    for t in expect.get("no_events", []):
        assert t not in types, f"event {t} should not occur: {types}"
    for exp in expect.get("event_details", []):
        matches = [e for e in events if e["type"] == exp["type"]]
        assert any(all(e.get(k) == v for k, v in exp.items()) for e in matches), (
            f"no event matching {exp} among {matches}"
        )


def all_cases() -> list[Path]:
    return sorted(CASES.rglob("*.toml"))
