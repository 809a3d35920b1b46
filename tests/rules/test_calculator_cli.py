"""The calculator CLI, run as a real subprocess (`python -m rules <command> …`) for the worked
examples, bad input, seeds and whole turns; the remaining semantics call `main()` in-process,
which is the same code path without the interpreter start-up.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rules.cli.calculator import main

ROOT = Path(__file__).resolve().parents[2]


def argv(*parts: str) -> list[str]:
    """Each part is a command-line fragment, split like a shell would."""
    return [arg for part in parts for arg in shlex.split(part)]


def run(*parts: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rules", *argv(*parts)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def ok(*parts: str) -> dict[str, Any]:
    proc = run(*parts)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    out = json.loads(proc.stdout)
    assert isinstance(out, dict) and {"dice", "ledger"} <= set(out)
    return out


@pytest.fixture
def call(capsys):
    """`main()` in-process: returns the JSON object after checking exit 0 and quiet stderr."""

    def invoke(*parts: str) -> dict[str, Any]:
        assert main(argv(*parts)) == 0
        captured = capsys.readouterr()
        assert captured.err == ""
        return json.loads(captured.out)

    return invoke


def bad(*parts: str) -> str:
    """Exit 2, nothing on stdout, exactly one line on stderr; returns that line."""
    proc = run(*parts)
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


# --- worked examples -----------------------------------------------------------------------------


def test_tv04_force_test():
    out = ok("force-test --cv 3 --status probe --requested full-speed --territory enemy --dice 4")
    assert [m["value"] for m in out["modifiers"]] == [-1]
    assert (out["total"], out["outcome"], out["new_status"]) == (6, "ok", "full-speed")
    assert out["dice"] == [4] and out["ledger"][0]["rule"] == "R5.2"


def test_tv06_movement():
    out = ok("movement --status full-speed --terrain river,swamp --territory enemy --dice 4")
    assert (out["total"], out["allowance"], out["must_move"]) == (3, 1, True)
    assert sorted(m["value"] for m in out["modifiers"]) == [-1, -1, -1, 2]


def test_tv10_wounded():
    out = ok("wounded --killed 6 --result won --territory enemy --dice 6,6,5,5,4,2")
    assert (out["checked"], out["recovered"], out["dead"]) == (6, 4, 2)
    assert out["dice"] == [6, 6, 5, 5, 4, 2]


def test_tv11_deserters():
    cmd = "deserters --figures 9 --quality average --result lost --dice 6,4,4,3,3,1,1,1,1"
    out = ok(cmd)
    assert (out["returned"], out["deserted"]) == (5, 4)
    alt = ok(cmd, "--shattered")  # the alternative reading's -1
    assert (alt["returned"], alt["deserted"]) == (3, 6)


def test_tv12_will_to_fight():
    cmd = "will-to-fight --won 3 --lost 1 --holdings-lost 1 --dice 3"
    out = ok(cmd)
    assert [m["value"] for m in out["modifiers"]] == [3, -1, -1]
    assert (out["total"], out["passed"]) == (4, True)
    assert ok(cmd, "--as-printed")["total"] == 10


# --- semantics -----------------------------------------------------------------------------------


def test_force_test_without_a_request_asks_for_the_current_order_or_probe(call):
    assert call("force-test --cv 3 --status defend --dice 6")["requested"] == "defend"
    out = call("force-test --cv 2 --status unsteady --territory friendly --dice 1")
    assert (out["requested"], out["total"], out["new_status"]) == ("probe", 3, "confused")


def test_force_test_disaster_destroys_the_force(call):
    out = call(
        "force-test --cv 1 --status shattered --requested defend --territory enemy",
        "--terrain mountain --dice 1",
    )
    assert (out["total"], out["outcome"], out["new_status"]) == (-5, "destroyed", None)
    assert out["will_to_fight_required"] is True


def test_movement_without_a_roll(call):
    out = call("movement --status defend")
    assert (out["total"], out["allowance"], out["must_move"], out["dice"]) == (None, 0, False, [])
    storm = call("movement --status full-speed --weather storm --seed 1")
    assert (storm["total"], storm["allowance"], storm["dice"]) == (None, 0, [])


def test_weather_clamps_to_six(call):
    out = call("weather --season winter --dice 6")
    assert (out["total"], out["weather"], out["may_move"]) == (6, "storm", False)
    light = call("weather --season autumn --dice 3")
    assert (light["total"], light["weather"], light["movement_modifier"]) == (4, "light-rain", -1)


def test_event_table(call):
    out = call("event --dice 2,3,3")
    assert (out["total"], out["event"], out["roll_again"]) == (8, "reinforcements-100-reroll", True)


@pytest.mark.parametrize(
    ("cmd", "expected"),
    [
        ("reinforcements --initial-points 2000 --holdings 3 --capital", {"points": 320}),
        ("countermarch --status unsteady", {"allowed": True, "new_status": "shattered"}),
        ("countermarch --status defend", {"allowed": False, "new_status": None}),
        ("post-battle-reaction --status defend", {"new_status": "confused"}),
        ("ammo --status probe", {"tokens": 6}),
        (
            "battle-result --points-a 2000 --points-b 2000 --lost-a 900 --lost-b 600 "
            "--method italian",
            {"result": "stalemate", "threshold": 400},
        ),
        (
            "battle-result --points-a 2000 --points-b 2000 --lost-a 0 --lost-b 0 --method core "
            "--wiped a",
            {"result": "b-wins"},
        ),
        ("wounded --killed 5 --result lost", {"checked": 0, "recovered": 0, "dead": 5}),
        (
            "deserters --figures 7 --quality elite --result lost --mercenary",
            {"returned": 0, "deserted": 7},
        ),
    ],
)
def test_commands_without_dice(call, capsys, cmd, expected):
    out = call(cmd)
    assert {k: out[k] for k in expected} == expected
    assert (out["dice"], out["ledger"]) == ([], [])
    assert main(argv(cmd, "--dice 3")) == 2
    assert "dice left unused" in capsys.readouterr().err


def test_ammo_for_a_reaction_rolls(call):
    assert call("ammo --status unsteady --dice 5")["tokens"] == 3
    assert call("ammo --status confused --dice 4")["tokens"] == 4


def test_scripted_dice_print_no_seed(call):
    assert call("event --dice 1,1,1")["seed"] is None


# --- dice and seeds ------------------------------------------------------------------------------


def test_seed_is_deterministic():
    cmd = "deserters --figures 12 --quality levy --result won --seed 2024"
    a, b = ok(cmd), ok(cmd)
    assert a == b and a["seed"] == 2024 and len(a["dice"]) == 12
    assert a["ledger"][0]["natural"] == a["dice"]


def test_without_dice_or_seed_a_fresh_seed_is_printed_and_replays():
    out = ok("event")
    assert isinstance(out["seed"], int) and 0 <= out["seed"] < 2**32
    again = ok("event --seed", str(out["seed"]))
    assert (again["dice"], again["total"], again["event"]) == (
        out["dice"],
        out["total"],
        out["event"],
    )


# --- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cmd", "fragment"),
    [
        ("force-test --cv 3 --status bogus --dice 4", "unknown status"),
        ("movement --status probe --terrain lava --dice 4", "unknown terrain"),
        ("weather --season monsoon", "unknown season"),
        ("force-test --cv 3 --status probe --requested confused", "unknown order"),
        ("force-test --status probe --dice 4", "required: --cv"),
        ("wounded --killed 2 --result won --dice 4,7", "die 7"),
        ("wounded --killed 2 --result won --dice 4,x", "not a die value"),
        ("wounded --killed 3 --result won --dice 4,5", "too few dice"),
        ("force-test --cv 3 --status probe --dice 4,5", "dice left unused"),
        ("wounded --killed -2 --result won", "negative"),
        ("force-test --cv 9 --status probe", "CV 9"),
        ("event --dice 1,1,1 --seed 3", "not allowed with"),
        ("event --seed -1", "negative"),
        ("ammo --status shattered", "Shattered"),
        (
            "battle-result --points-a 100 --points-b 100 --lost-a 200 --lost-b 0 --method italian",
            "cannot lose",
        ),
        (
            "battle-result --points-a 1 --points-b 1 --lost-a 0 --lost-b 0 --method english",
            "invalid choice",
        ),
        ("teleport", "invalid choice"),
        ("", "required"),
    ],
)
def test_bad_input_exits_2_with_one_line(cmd, fragment):
    line = bad(cmd)
    assert fragment in line and line.startswith("error:")


def test_help_is_readable_and_cites_rules():
    proc = run("--help")
    assert proc.returncode == 0 and "force-test" in proc.stdout and "--seed" in proc.stdout
    sub = run("deserters --help")
    assert sub.returncode == 0 and "R8.2" in sub.stdout and "examples:" in sub.stdout


# --- whole turns ---------------------------------------------------------------------------------


def _force(fid: str, owner: str, square: list[int]) -> dict[str, Any]:
    unit = {
        "id": f"u-{fid}",
        "type": "Infantry",
        "speciality": "infantry",
        "quality": "average",
        "figures": 20,
    }
    general = {"id": f"g-{fid}", "cv": 3}
    return {
        "id": fid,
        "owner": owner,
        "square": square,
        "status": "defend",
        "commands": [{"id": f"c-{fid}", "general": general, "units": [unit]}],
    }


TINY_STATE = {
    "turn": 1,
    "day": 0,
    "map": {
        "width": 9,
        "height": 3,
        "squares": [
            {"x": x, "y": y, "zone": "red" if x < 3 else "blue"}
            for x in (*range(3), *range(6, 9))
            for y in range(3)
        ],
    },
    "players": [
        {"id": "red", "side": "red", "initial_points": 2000},
        {"id": "blue", "side": "blue", "initial_points": 2000},
    ],
    "holdings": [
        {"id": "h-red", "square": [0, 1], "owner": "red", "original_owner": "red", "capital": True},
        {
            "id": "h-blue",
            "square": [8, 1],
            "owner": "blue",
            "original_owner": "blue",
            "capital": True,
        },
    ],
    "forces": [_force("r1", "red", [0, 1]), _force("b1", "blue", [8, 1])],
}


def write(tmp_path: Path, name: str, data: Any) -> str:
    """Write a JSON file; returns its path quoted for a command line."""
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return shlex.quote(str(path))


def test_turn_and_after_battles_with_no_force_moving(tmp_path):
    state = write(tmp_path, "state.json", TINY_STATE)
    orders = write(tmp_path, "orders.json", {"red": {"forces": {"r1": {}}}, "blue": {}})
    cmd = f"turn --state {state} --orders {orders} --seed 77"
    out = ok(cmd)
    assert {"state", "events", "ledger", "pending_battles", "report"} <= set(out)
    assert len(out["report"]) == len(out["events"])  # each event in a line of English
    assert out["report"] == ["initiative by force: r1, b1 [R6.1]"]
    assert out["pending_battles"] == [] and out["state"]["turn"] == 1
    squares = {f["id"]: f["square"] for f in out["state"]["forces"]}
    assert squares == {"r1": [0, 1], "b1": [8, 1]}
    assert ok(cmd) == out

    whole = write(tmp_path, "turn-out.json", out)  # the whole output is accepted as state
    results = write(tmp_path, "results.json", {})
    after = ok(f"after-battles --state {whole} --results {results} --seed 78")
    assert after["state"]["turn"] == 2 and after["state"]["day"] == 1
    again = write(tmp_path, "state2.json", after["state"])
    assert ok(f"turn --state {again} --orders {orders} --seed 79")["state"]["turn"] == 2


@pytest.mark.parametrize(
    ("state", "orders", "fragment"),
    [
        ("{not json", {}, "not JSON"),
        ({"turn": 1}, {}, "missing field"),
        (TINY_STATE, {"red": {"forces": {"r1": {"path": [[1, 1]]}}}}, "Defend never moves"),
        (TINY_STATE, {"red": {"forces": {"zz": {}}}}, "no force zz"),
        (TINY_STATE, {"red": {"forces": {"r1": {"change_to": "bogus"}}}}, "bogus"),
        (TINY_STATE, [], "object"),
        ({**TINY_STATE, "forces": [_force("g1", "green", [4, 1])]}, {}, "belongs to no player"),
        ({**TINY_STATE, "forces": [_force("r1", "red", [0, 1])] * 2}, {}, "share the id 'r1'"),
    ],
)
def test_turn_file_errors_exit_2(tmp_path, state, orders, fragment):
    s, o = write(tmp_path, "s.json", state), write(tmp_path, "o.json", orders)
    assert fragment in bad(f"turn --state {s} --orders {o} --seed 1")


def test_after_battles_needs_a_resolved_turn(tmp_path):
    s, r = write(tmp_path, "s.json", TINY_STATE), write(tmp_path, "r.json", {})
    assert "has not run Phases 0–2" in bad(f"after-battles --state {s} --results {r} --seed 1")


def test_missing_file_exits_2(tmp_path):
    nope = shlex.quote(str(tmp_path / "nope.json"))
    assert "cannot read the state file" in bad(f"turn --state {nope} --orders {nope}")


def _battle_turn(tmp_path: Path) -> tuple[dict[str, Any], str]:
    """Red's Full Speed force at (4,1) engages Blue's Defend force at (5,1): one battle."""
    red = {**_force("r1", "red", [4, 1]), "status": "full-speed"}
    state = write(tmp_path, "s.json", {**TINY_STATE, "forces": [red, _force("b1", "blue", [5, 1])]})
    orders = write(
        tmp_path, "o.json", {"red": {"forces": {"r1": {"path": [[5, 1]], "zoc": "engage"}}}}
    )
    out = ok(f"turn --state {state} --orders {orders} --seed 5")
    return out, write(tmp_path, "turn-out.json", out)


def test_turn_with_contact_hands_back_a_pending_battle(tmp_path):
    out, _ = _battle_turn(tmp_path)
    assert out["state"]["phase"] == "battles"
    assert [b["square"] for b in out["pending_battles"]] == [[5, 1]]


def test_after_battles_reads_back_a_turn_with_a_battle(tmp_path):
    out, saved = _battle_turn(tmp_path)
    battle = out["pending_battles"][0]["battle_id"]
    results = write(tmp_path, "r.json", {battle: {"outcomes": {"a": "won", "b": "lost"}}})
    after = ok(f"after-battles --state {saved} --results {results} --seed 6")
    assert after["state"]["turn"] == 2
    assert {f["id"]: f["status"] for f in after["state"]["forces"]}["b1"] == "confused"
