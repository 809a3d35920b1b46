"""Supply convoys (R9.3.9, p. 39): "every seven days", with no effect in the booklet ([SR] A-40
d: a scheduled hook). A scenario schedules them (`[convoys]`) and may give each role's convoy
an effect from its tables' vocabulary; the turn report shows each convoy on its day."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from rules import ScriptedDice, resolve_after_battles
from rules.scenarios import ScenarioError, load_scenario, parse_scenario
from tests.rules.casefile import load_state

SCENARIO = """
id = "convoy-test"
name = "Convoy test"
[options]
random_events = false
weather_phase = false
[roles.north]
name = "North"
[roles.south]
name = "South"
[convoys]
every = 7
south = { event = "points", points = 50 }
"""


def _state(tmp_path: Path, turn: int):
    path = tmp_path / "convoy.toml"
    path.write_text(SCENARIO)
    state = load_state(
        {
            "players": [
                {"id": "n", "side": "n", "role": "north"},
                {"id": "s", "side": "s", "role": "south"},
            ],
            "map": {"width": 6, "height": 3},
            "forces": [],
        }
    )
    return replace(state, scenario=str(path), turn=turn, day=turn - 1, phase="battles")


def test_the_convoy_arrives_on_its_day_with_the_scenarios_effect(tmp_path):
    out = resolve_after_battles(_state(tmp_path, 7), {}, ScriptedDice([6] * 6))
    convoys = [e for e in out.events if type(e).__name__ == "SupplyConvoy"]
    assert [(e.player_id, e.day, e.event) for e in convoys] == [
        ("n", 7, "none"),
        ("s", 7, "points"),
    ]
    assert all(e.rule == "R9.3.9" for e in convoys)
    assert out.state.bank.get("s") == 50 and not out.state.bank.get("n")


def test_no_convoy_off_its_schedule(tmp_path):
    out = resolve_after_battles(_state(tmp_path, 6), {}, ScriptedDice([6] * 6))
    assert not [e for e in out.events if type(e).__name__ == "SupplyConvoy"]


def test_a_scenario_without_convoys_has_none_and_bad_data_is_refused():
    assert load_scenario("incursion").convoys is None
    base = {"id": "x", "roles": {"a": {"name": "A"}}}
    with pytest.raises(ScenarioError, match="unknown key"):
        parse_scenario({**base, "convoys": {"b": {"event": "none"}}})
    with pytest.raises(ScenarioError, match="is not one of"):
        parse_scenario({**base, "convoys": {"a": {"event": "feast"}}})
    assert parse_scenario({**base, "convoys": {}}).convoys.every == 7


def test_the_option_sends_a_convoy_without_effect_every_seven_days(tmp_path):
    """R9.3.9 without a scenario's schedule: the option `supply_convoys` sends one every seven
    days to every army, with no effect (the book gives none)."""
    state = _state(tmp_path, 7)
    plain = replace(state, scenario=None)
    assert not [
        e
        for e in resolve_after_battles(plain, {}, ScriptedDice([6] * 6)).events
        if type(e).__name__ == "SupplyConvoy"
    ]
    on = replace(plain, options=replace(plain.options, supply_convoys=True))
    out = resolve_after_battles(on, {}, ScriptedDice([6] * 6))
    convoys = [e for e in out.events if type(e).__name__ == "SupplyConvoy"]
    assert [(e.player_id, e.event) for e in convoys] == [("n", "none"), ("s", "none")]
    assert out.state.bank == on.bank
    day_8 = replace(on, turn=8, day=7)
    assert not [
        e
        for e in resolve_after_battles(day_8, {}, ScriptedDice([6] * 6)).events
        if type(e).__name__ == "SupplyConvoy"
    ]
