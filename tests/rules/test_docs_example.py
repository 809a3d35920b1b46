"""The example of docs/state-format.md runs through the CLI as documented."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"


def rules(*args: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "rules", *args], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_documented_turn_and_after_battles(tmp_path):
    turn = rules(
        "turn",
        "--state",
        str(EXAMPLES / "state.json"),
        "--orders",
        str(EXAMPLES / "orders.json"),
        "--seed",
        "3",
    )
    assert [b["battle_id"] for b in turn["pending_battles"]] == ["t1-b1"]
    saved = tmp_path / "turn.json"
    saved.write_text(json.dumps(turn))
    after = rules(
        "after-battles",
        "--state",
        str(saved),
        "--results",
        str(EXAMPLES / "results.json"),
        "--seed",
        "3",
    )
    state = after["state"]
    assert state["turn"] == 2 and state["day"] == 1
    r1 = next(f for f in state["forces"] if f["id"] == "r1")
    assert r1["square"] == [3, 1] and r1["status"] == "confused"  # retreat preference, R8.5
    assert state["records"]["blue"] == {"battles_won": 1, "battles_lost": 0}
    assert any(e["type"] == "WillToFightTested" for e in after["events"])
