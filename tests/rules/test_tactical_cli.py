"""`python -m rules battle`, run as a real subprocess: a result with its ledger, the odds of a
simulation, both input forms, the hand-off to `after-battles`, and bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rules.dice import SeededDice
from rules.tactical.inputs import what_if
from rules.tactical.samples import sample_force
from rules.types import Status

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rules", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def ok(*args: str | Path) -> dict[str, Any]:
    proc = run(*args)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    return json.loads(proc.stdout)


def bad(*args: str | Path) -> str:
    proc = run(*args)
    assert proc.returncode == 2, proc.stdout
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


@pytest.fixture(scope="module")
def turn_out(tmp_path_factory) -> Path:
    """The docs example after Phases 0–2: one pending battle, t1-b1."""
    path = tmp_path_factory.mktemp("battle") / "turn.json"
    out = ok(
        "turn",
        "--state",
        "docs/examples/state.json",
        "--orders",
        "docs/examples/orders.json",
        "--seed",
        "3",
    )
    assert [b["battle_id"] for b in out["pending_battles"]] == ["t1-b1"]
    path.write_text(json.dumps(out), encoding="utf-8")
    return path


def test_a_battle_prints_its_result_log_and_ledger(turn_out):
    out = ok("battle", "--pack", turn_out, "--seed", "5")
    assert out["command"] == "battle" and out["battle_id"] == "t1-b1" and out["seed"] == 5
    result = out["result"]
    assert result["resolver"] == "auto"
    assert {result["outcomes"]["a"], result["outcomes"]["b"]} <= {"won", "lost", "stalemate"}
    assert {u["unit_id"] for u in result["units"]} == {"r1u1", "r1u2", "b1u1"}
    assert out["log"] and out["ledger"] and out["dice"]
    attack = next(e for e in out["ledger"] if e["rule"] == "§10.4 attack")
    assert attack["sides"] == 10 and attack["modifiers"] and attack["outcome"]
    assert out["figures"]["start"] == {"a": 30, "b": 16}


def test_the_same_seed_prints_the_same_battle(turn_out):
    first = run("battle", "--pack", turn_out, "--seed", "11")
    second = run("battle", "--pack", turn_out, "--seed", "11")
    assert first.returncode == 0 and first.stdout == second.stdout


def test_the_result_feeds_after_battles(turn_out, tmp_path):
    out = ok("battle", "--pack", turn_out, "--seed", "5")
    results = tmp_path / "results.json"
    results.write_text(json.dumps({out["battle_id"]: out["result"]}), encoding="utf-8")
    after = ok("after-battles", "--state", turn_out, "--results", results, "--seed", "5")
    assert after["state"]["turn"] == 2
    assert any(e["type"] == "BattleResolved" for e in after["events"])


def test_simulate_prints_the_odds(turn_out):
    out = ok("battle", "--pack", turn_out, "--simulate", "300", "--seed", "1")
    assert {"win_a", "stalemate", "win_b", "runs", "seconds"} <= set(out)
    assert out["runs"] == 300 and out["seconds"] >= 0
    assert out["win_a"] + out["stalemate"] + out["win_b"] == pytest.approx(1)
    assert set(out["sides"]) == {"a", "b"}
    assert set(out["sides"]["a"]["expected_losses"]) >= {"killed", "fled", "points"}
    again = ok("battle", "--pack", turn_out, "--simulate", "300", "--seed", "1", "--workers", "1")
    strip = ("seconds",)
    assert {k: v for k, v in out.items() if k not in strip} == {
        k: v for k, v in again.items() if k not in strip
    }


def test_the_pack_and_forces_form(tmp_path):
    inp = what_if(
        [sample_force("red")], [sample_force("blue", status=Status.DEFEND)], SeededDice(1)
    )
    path = tmp_path / "battle.json"
    path.write_text(json.dumps(inp.to_data()), encoding="utf-8")
    out = ok("battle", "--pack", path, "--seed", "2")
    assert out["battle_id"] == "what-if"
    assert any("field works" in line for line in out["log"])
    odds = ok("battle", "--pack", path, "--simulate", "50", "--seed", "2")
    assert odds["runs"] == 50


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--dice", "1,2,3"], "give --seed"),
        (["--battle", "nope", "--seed", "1"], "no pending battle nope"),
        (["--simulate", "0", "--seed", "1"], "at least 1 run"),
    ],
)
def test_bad_battle_input(turn_out, extra, message):
    assert message in bad("battle", "--pack", turn_out, *extra)


def test_a_missing_or_broken_pack_file(tmp_path):
    assert "cannot read" in bad("battle", "--pack", tmp_path / "none.json", "--seed", "1")
    broken = tmp_path / "broken.json"
    broken.write_text('{"pack": {"battle_id": 3}}', encoding="utf-8")
    assert "pack" in bad("battle", "--pack", broken, "--seed", "1")
