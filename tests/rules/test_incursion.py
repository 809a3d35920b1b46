"""The Incursion (§11) as scenario data, and its Phases 5–8: key-day tables, half
reinforcements, blizzards, loot victory, the day-42 withdrawal, snow and Will to Fight."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules import checks
from rules.dice import ScriptedDice
from rules.errors import ScenarioError
from rules.phases import day as day_phase
from rules.phases import random_events as events_phase
from rules.phases import reinforcements, will_to_fight
from rules.scenarios import EventSpec, load_scenario, parse_scenario, scenario_for
from rules.turn import resolve_after_battles
from rules.types import (
    CampaignState,
    Command,
    Coord,
    Feature,
    Force,
    GameMap,
    General,
    Holding,
    IndividualKind,
    Options,
    Player,
    PlayerRecord,
    Quality,
    Snow,
    Speciality,
    Status,
    Territory,
    Unit,
)

ZONES = {(x, y): ("raider" if y <= 2 else "defender") for x in range(9) for y in (0, 1, 2, 6, 7, 8)}
MAP = GameMap(9, 9, zones=ZONES)
PLAYERS = (
    Player("raider", "raiders", initial_points=4000, tribal=True, role="raiders", race="orc"),
    Player("defender", "defenders", initial_points=2000, role="defenders", race="human"),
)
HOLDINGS = (
    Holding("rc", (4, 0), "raider", "raider", capital=True),
    Holding("dc", (4, 8), "defender", "defender", capital=True),
    *(Holding(f"v{i}", (2 * i, 6), "defender", "defender") for i in range(4)),
)


def force(
    fid: str,
    owner: str,
    square: Coord,
    figures: int = 10,
    *,
    cv: int = 3,
    status: Status = Status.PROBE,
    **kw,
) -> Force:
    u = Unit(f"u-{fid}", "warriors", Speciality.INFANTRY, Quality.AVERAGE, figures, 10)
    return Force(
        fid, owner, square, status, (Command(f"c-{fid}", General(f"g-{fid}", cv), (u,)),), **kw
    )


def incursion(
    *forces: Force, turn: int = 7, day: int = 6, holdings=HOLDINGS, **kw
) -> CampaignState:
    opts = load_scenario("incursion").apply_options(kw.pop("options", Options()))
    return CampaignState(
        turn,
        day,
        MAP,
        PLAYERS,
        tuple(holdings),
        tuple(forces),
        options=opts,
        scenario="incursion",
        **kw,
    )


def phases_6_to_8(state: CampaignState, dice: list[int]):
    d = ScriptedDice(dice)
    events = []
    for phase in (day_phase, reinforcements, events_phase):
        state, ev = phase.resolve(state, d)
        events.extend(ev)
    d.assert_exhausted()
    return state, events, d


def names(events) -> list[str]:
    return [type(e).__name__ for e in events]


# --- the scenario file ---


def test_incursion_scenario_data():
    s = load_scenario("incursion")
    assert (s.id, s.name) == ("incursion", "Incursion")
    assert [r.id for r in s.roles] == ["raiders", "defenders"]
    assert s.role("defenders").start_status is Status.DEFEND  # R11.3.2
    assert (s.role("raiders").min_holdings, s.role("raiders").max_holdings) == (1, 1)
    assert s.role("defenders").min_holdings == 4  # R11.2.2, TV-14
    assert [k.day for k in s.schedule] == [7, 14, 21, 28, 35]
    assert (s.victory.loot_to_capital, s.victory.end_day) == ("raiders", 42)
    opts = s.apply_options(Options(weather_phase=True, random_events=True))
    assert (opts.weather_phase, opts.random_events) == (False, False)  # R11.4.3–4
    assert s.snow_effects == {"movement", "force-test", "will-to-fight"}


def test_tv13_points_ratio():
    s = load_scenario("incursion")
    assert s.initial_points("defenders", known_role="raiders", known_points=4000) == 2000
    assert s.initial_points("raiders", known_role="defenders", known_points=2000) == 4000


@pytest.mark.parametrize(
    ("day", "role", "reinforcements"),
    [
        (7, "defenders", "full"),
        (7, "raiders", "none"),
        (28, "raiders", "half"),
        (35, "defenders", "half"),
        (35, "raiders", "half"),
    ],
)
def test_schedule_reinforcements(day, role, reinforcements):
    assert load_scenario("incursion").key_day(day).roles[role].reinforcements == reinforcements


def test_summary_snow_table():
    """§11.8 summary: the snow levels added per key day and face."""
    s = load_scenario("incursion")
    got = {k.day: [k.roles["defenders"].snow.lookup(n) for n in range(1, 7)] for k in s.schedule}
    assert got == {
        7: [0, 0, 0, 0, 1, 1],
        14: [0, 0, 1, 1, 1, 2],
        21: [0, 0, 1, 1, 2, 2],
        28: [1, 1, 2, 2, 3, 3],
        35: [0, 0, 0, 0, 1, 1],
    }


def test_event_tables_as_reconstructed():
    s = load_scenario("incursion")
    d28 = s.key_day(28).roles["defenders"].events
    assert [d28.lookup(n).key for n in range(1, 7)] == [
        "lose-bank",
        "leader-stress",
        "none",
        "none",
        "scouts",
        "leader-emerges",
    ]
    r35 = s.key_day(35).roles["raiders"].events
    assert [r35.lookup(n).key for n in range(1, 7)] == ["blizzard"] * 3 + ["none"] * 2 + [
        "individual"
    ]
    assert s.key_day(7).roles["defenders"].events.lookup(6) == EventSpec(
        "points", {"points": 100, "reroll": True}
    )


GOOD = {
    "id": "x",
    "roles": {"a": {}, "b": {}},
    "schedule": [
        {"day": 3, "a": {"reinforcements": "full", "events": [{"roll": "1-6", "event": "none"}]}}
    ],
}


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ({"id": ""}, "id must be"),
        ({"colour": "red"}, "unknown key"),
        ({"roles": {}}, "at least one role"),
        ({"options": {"weather_phase": 1}}, "must be bool"),
        ({"options": {"climate": "lunar"}}, "not one of"),
        ({"options": {"no_such_option": True}}, "unknown key"),
        ({"victory": {"loot_to_capital": "c"}}, "unknown role"),
        ({"schedule": [{"day": 3, "c": {}}]}, "unknown key"),
        ({"schedule": [{"day": 3, "a": {"reinforcements": "double"}}]}, "full, half, none"),
        (
            {"schedule": [{"day": 3, "a": {"events": [{"roll": "1-5", "event": "none"}]}}]},
            "exactly once",
        ),
        (
            {"schedule": [{"day": 3, "a": {"events": [{"roll": "1-6", "event": "party"}]}}]},
            "not one of",
        ),
        (
            {"schedule": [{"day": 3, "a": {"events": [{"roll": "1-6", "event": "points"}]}}]},
            "needs points",
        ),
        (
            {"schedule": [{"day": 3, "a": {"events": [{"roll": "0-6", "event": "none"}]}}]},
            "within 1-6",
        ),
        (
            {
                "schedule": [
                    {
                        "day": 3,
                        "a": {"snow": [{"roll": "1-6", "levels": 1}]},
                        "b": {"snow": [{"roll": "1-6", "levels": 1}]},
                    }
                ]
            },
            "only one role",
        ),
        ({"schedule": [{"day": 3}, {"day": 3}]}, "twice"),
        ({"roles": {"a": {"start_status": "shattered"}}}, "must be an order"),
    ],
)
def test_bad_scenario_data_is_refused_with_a_clear_message(patch, message):
    with pytest.raises(ScenarioError, match=message):
        parse_scenario({**GOOD, **patch})


def test_scenario_files_by_path_and_unknown_names(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text('id = "mine"\n[roles.a]\nname = "A"\n')
    assert load_scenario(path).roles[0].name == "A"
    assert load_scenario(str(path)).id == "mine"
    (tmp_path / "bad.toml").write_text("id = ")
    with pytest.raises(ScenarioError, match="not valid TOML"):
        load_scenario(tmp_path / "bad.toml")
    with pytest.raises(ScenarioError, match="no scenario named 'atlantis'"):
        load_scenario("atlantis")
    assert scenario_for(incursion()).id == "incursion"


# --- key days ---


def test_day_7_tables():
    """Defenders: full reinforcements (10 % + 4 × 2 % of 2000 = 360), snow 5 → 1 level,
    event 6 (+100, roll again) then 5 (1D6 spirit tokens: 4). Raiders: 4 → a Hero."""
    s = incursion(
        force("d1", "defender", (4, 8), cv=4),
        force("d2", "defender", (0, 6)),
        force("r1", "raider", (4, 1)),
        next_id=20,
    )
    new, events, d = phases_6_to_8(s, [5, 6, 5, 4, 4])
    assert new.day == 7 and new.snow.levels == 1
    assert new.bank == {"defender": 460}
    assert (new.force("d1").tokens["spirit"], new.force("d2").tokens["spirit"]) == (2, 2)
    hero = new.force("r1").individuals[0]
    assert (hero.kind, hero.mounted, hero.id) == (IndividualKind.HERO, False, "i20")
    assert [r.purpose for r in d.ledger] == [
        "events:snow-day-7-defenders",
        "events:defender:day-7",
        "events:defender:day-7-again",
        "events:defender:day-7-again:spirit",
        "events:raider:day-7",
    ]
    assert names(events)[:3] == ["DayAdvanced", "ReinforcementsAvailable", "SnowFell"]


def test_no_key_events_between_key_days():
    s = incursion(force("d1", "defender", (4, 8)), turn=8, day=7)
    new, events, _ = phases_6_to_8(s, [])
    assert names(events) == ["DayAdvanced"]


def test_day_28_raiders_get_half_and_a_blizzard_shatters():
    s = incursion(
        force("d1", "defender", (4, 8), cv=3),
        force("r1", "raider", (4, 3), 20),
        force("r2", "raider", (4, 0), 5),
        turn=28,
        day=27,
    )
    # snow 3 → 2 levels; defender 2 → leader stress; raider 1 → blizzard
    new, events, _ = phases_6_to_8(s, [3, 2, 1])
    assert new.bank == {"defender": 360, "raider": 200}  # half of 10 % of 4000
    assert new.snow.levels == 2
    assert new.force("d1").cv == 2
    assert new.force("r2").status is Status.SHATTERED  # the weakest [SR]
    assert new.force("r1").status is Status.PROBE


def test_day_35_half_for_both_and_blizzard_annihilates_when_all_shattered():
    s = incursion(
        force("d1", "defender", (4, 8)),
        force("r1", "raider", (4, 0), status=Status.SHATTERED),
        turn=35,
        day=34,
    )
    new, events, _ = phases_6_to_8(s, [1, 4, 2])
    assert new.bank == {"defender": 180, "raider": 200}
    assert [f.id for f in new.forces] == ["d1"]
    assert "ForceDestroyed" in names(events)


def test_day_28_epidemic_and_scouts():
    s = incursion(force("d1", "defender", (4, 8)), turn=28, day=27, bank={"defender": 50})
    new, _, _ = phases_6_to_8(s, [1, 1, 3])
    assert new.bank["defender"] == 50 + 360 - 100
    s = incursion(
        force("d1", "defender", (4, 8)),
        replace(
            force("d2", "defender", (0, 6)),
            commands=(
                Command(
                    "c",
                    General("g", 2),
                    (
                        Unit("a", "w", Speciality.INFANTRY, Quality.LEVY, 5),
                        Unit("b", "w", Speciality.INFANTRY, Quality.LEVY, 5),
                    ),
                ),
            ),
        ),
        turn=28,
        day=27,
    )
    new, _, _ = phases_6_to_8(s, [1, 5, 3])  # d1 (CV 3) takes one scout, d2 has room for one
    assert [len(new.force(f).individuals) for f in ("d1", "d2")] == [1, 1]


# --- victory and end ---


def test_r11_7_2_raiders_win_with_loot_in_their_capital():
    sacked = Holding("v1", (2, 6), "raider", "defender", sacked=True, carried_by="r1")
    holdings = (*HOLDINGS[:3], sacked, *HOLDINGS[4:])
    s = incursion(force("r1", "raider", (4, 0), loot=("v1",)), holdings=holdings, turn=9, day=8)
    new, events, _ = phases_6_to_8(s, [])
    assert (new.ended, new.winner) == ("raiders-win", "raiders")
    assert events[-1].rule == "R11.7.2"
    s2 = replace(s, options=replace(s.options, incursion_loot_required=2))
    new, _, _ = phases_6_to_8(s2, [])
    assert new.ended is None


def test_r11_7_3_day_42_honourable_withdrawal_and_nothing_after():
    s = incursion(force("d1", "defender", (4, 8)), turn=42, day=41)
    new, events, _ = phases_6_to_8(s, [])
    assert (new.ended, new.winner) == ("honourable-withdrawal", None)
    assert names(events) == ["DayAdvanced", "CampaignEnded"]
    assert events[-1].rule == "R11.7.3"


def test_r11_7_1_will_to_fight_failure_ends_the_incursion():
    s = incursion(
        force("d1", "defender", (4, 8)),
        force("r1", "raider", (4, 0)),
        records={"raider": PlayerRecord(0, 2)},
        wtf_triggers={"raider": ("x",)},
    )
    d = ScriptedDice([1])
    new, events = will_to_fight.resolve(s, d)
    d.assert_exhausted()
    assert (new.ended, new.winner) == ("will-to-fight", "defenders")
    assert events[-1].rule == "R11.7.1"


def test_d22_snow_affects_movement_force_test_and_will_to_fight():
    s = incursion(
        force("d1", "defender", (4, 8)),
        force("r1", "raider", (4, 1)),
        snow=Snow(levels=2),
        wtf_triggers={"defender": ("lost-battle",)},
    )
    d = ScriptedDice([4])
    _, events = will_to_fight.resolve(s, d)
    d.assert_exhausted()
    assert [m.value for m in d.ledger[0].modifiers] == [-2]
    assert events[0].total == 2
    move = checks.movement_modifiers(status=Status.PROBE, snow=s.snow_at((4, 4)))
    assert [m.value for m in move] == [-2]
    test = checks.force_test_modifiers(
        cv=3,
        status=Status.PROBE,
        snow=s.snow_at((4, 4)),
        territory=Territory.NEUTRAL,
        features=[Feature.OPEN],
    )
    assert [m.value for m in test] == [3, -2]


def test_loot_counts_then_is_destroyed():
    """A-47: while carried the sacked holding counts for the raiders; lost with the battle
    (§11.6 rule 4) it is destroyed and counts for no one."""
    sacked = Holding("v1", (2, 6), "raider", "defender", sacked=True, carried_by="r1")
    holdings = (*HOLDINGS[:3], sacked, *HOLDINGS[4:])
    s = incursion(force("r1", "raider", (4, 4), loot=("v1",)), holdings=holdings)
    assert will_to_fight.inputs_for(s, "raider").held == 1
    assert will_to_fight.inputs_for(s, "defender").holdings_lost == 1
    gone = replace(
        s, holdings=(*HOLDINGS[:3], replace(sacked, carried_by=None, destroyed=True), *HOLDINGS[4:])
    )
    assert will_to_fight.inputs_for(gone, "raider").held == 0
    assert will_to_fight.inputs_for(gone, "defender").holdings_lost == 0


def test_day_7_through_the_turn_pipeline():
    s = replace(
        incursion(force("d1", "defender", (4, 8)), force("r1", "raider", (4, 1))), phase="after"
    )
    d = ScriptedDice([1, 2, 1])
    out = resolve_after_battles(s, {}, d)
    d.assert_exhausted()
    assert (out.state.turn, out.state.day, out.state.phase) == (8, 7, "orders")
    assert out.state.bank == {"defender": 360}
    assert [r.rule for r in out.ledger] == ["R11.8", "§11.8", "§11.8"]
