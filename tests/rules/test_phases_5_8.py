"""Phases 5–8 under the general rules: Will to Fight (§9.1), time (§9.2), reinforcements
(§9.3) and random events (§9.4). TV-12, D-15, D-16, D-17, D-18 through the phases."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.codec import from_data, to_data
from rules.dice import ScriptedDice
from rules.orders import PlayerOrders, ReinforcementRequest
from rules.phases import day as day_phase
from rules.phases import random_events as events_phase
from rules.phases import reinforcements, will_to_fight
from rules.types import (
    CampaignState,
    Command,
    Coord,
    Force,
    GameMap,
    General,
    Holding,
    Individual,
    IndividualKind,
    Options,
    Player,
    PlayerRecord,
    Quality,
    Speciality,
    Status,
    Unit,
)

MAP = GameMap(9, 9)


def unit(
    uid: str, figures: int = 10, quality: Quality = Quality.AVERAGE, ppf: int = 10, **kw
) -> Unit:
    return Unit(uid, "warriors", kw.pop("spec", Speciality.INFANTRY), quality, figures, ppf, **kw)


def force(
    fid: str,
    owner: str,
    square: Coord = (4, 4),
    *units: Unit,
    cv: int = 3,
    status: Status = Status.PROBE,
    **kw,
) -> Force:
    units = units or (unit(f"u-{fid}"),)
    return Force(
        fid, owner, square, status, (Command(f"c-{fid}", General(f"g-{fid}", cv), units),), **kw
    )


def players(**kw) -> tuple[Player, ...]:
    return (
        Player("orc", "orc", initial_points=2000, **kw.get("orc", {})),
        Player("dwarf", "dwarf", initial_points=2000, **kw.get("dwarf", {})),
    )


def state_with(*forces: Force, holdings=(), turn: int = 1, day: int = 0, **kw) -> CampaignState:
    kw.setdefault("players", players())
    return CampaignState(turn, day, MAP, kw.pop("players"), tuple(holdings), tuple(forces), **kw)


def run(phase, state: CampaignState, dice: list[int]):
    d = ScriptedDice(dice)
    new, events = phase.resolve(state, d)
    d.assert_exhausted()
    return new, events, d


def names(events) -> list[str]:
    return [type(e).__name__ for e in events]


# --- Phase 5 ---


@pytest.mark.parametrize(("as_printed", "total"), [(False, 4), (True, 10)])
def test_tv12_will_to_fight_example(as_printed, total):
    """p. 38: 3 won, 1 lost, 1 own holding lost this turn; roll 3."""
    lost = Holding("h", (1, 1), "dwarf", "orc")
    s = state_with(
        force("o", "orc"),
        force("d", "dwarf"),
        holdings=(lost,),
        records={"orc": PlayerRecord(3, 1)},
        wtf_triggers={"orc": ("holding-lost",)},
        options=Options(will_to_fight_as_printed=as_printed),
    )
    new, events, d = run(will_to_fight, s, [3])
    assert [m.value for m in d.ledger[0].modifiers] == [3 * (3 if as_printed else 1), -1, -1]
    wtf = events[0]
    assert (wtf.player_id, wtf.total, wtf.passed, wtf.triggers) == (
        "orc",
        total,
        True,
        ("holding-lost",),
    )
    assert d.ledger[0].purpose == "will-to-fight:player-orc"
    assert not new.player("orc").surrendered


def test_d15_failure_surrenders_removes_the_forces_and_ends_the_campaign():
    holdings = (
        Holding("cap", (1, 1), "dwarf", "orc", capital=True),
        Holding("m", (2, 2), "dwarf", "orc"),
    )
    s = state_with(
        force("o", "orc"),
        force("d", "dwarf"),
        holdings=holdings,
        records={"orc": PlayerRecord(0, 3)},
        wtf_triggers={"orc": ("lost-battle",)},
    )
    new, events, d = run(will_to_fight, s, [1])
    assert d.ledger[0].total == -6  # 1 − 3 − 1 − 3: the capital only as −3 (A-39)
    assert new.player("orc").surrendered
    assert [f.id for f in new.forces] == ["d"]
    assert names(events) == [
        "WillToFightTested",
        "PlayerSurrendered",
        "ForceDestroyed",
        "CampaignEnded",
    ]
    assert (new.ended, new.winner) == ("will-to-fight", "dwarf")


def test_no_trigger_no_test_and_a_player_without_forces_is_tested():
    s = state_with(force("d", "dwarf"))
    new, events, d = run(will_to_fight, s, [4])
    assert [e.player_id for e in events] == ["orc"]
    assert events[0].triggers == ("all-forces-lost",)


def test_one_test_per_player_however_many_triggers():
    s = state_with(
        force("o", "orc"),
        force("d", "dwarf"),
        wtf_triggers={"orc": ("lost-battle", "holding-lost", "force-test-disaster")},
    )
    _, events, _ = run(will_to_fight, s, [2])
    assert len(events) == 1


def test_an_ally_keeps_the_side_in_the_campaign():
    ps = (*players(), Player("goblin", "orc"))
    s = state_with(
        force("o", "orc"),
        force("g", "goblin"),
        force("d", "dwarf"),
        players=ps,
        records={"orc": PlayerRecord(0, 3)},
        wtf_triggers={"orc": ("lost-battle",)},
    )
    new, events, _ = run(will_to_fight, s, [1])
    assert new.player("orc").surrendered and new.ended is None
    assert "CampaignEnded" not in names(events)


def test_both_sides_failing_together_end_the_campaign_without_winner():
    s = state_with(records={"orc": PlayerRecord(0, 2), "dwarf": PlayerRecord(0, 2)})
    new, events, _ = run(will_to_fight, s, [1, 1])
    assert (new.ended, new.winner) == ("all-surrendered", None)


def test_loot_counts_for_the_carrier_and_destroyed_holdings_for_no_one():
    """A-47: a carried sacked holding counts as held by the raider; destroyed: no one."""
    carried = Holding("v1", (5, 5), "orc", "dwarf", sacked=True, carried_by="o")
    burnt = Holding("v2", (6, 6), "orc", "dwarf", sacked=True, destroyed=True)
    held = Holding("v3", (7, 7), "orc", "dwarf")
    s = state_with(
        force("o", "orc", loot=("v1",)), force("d", "dwarf"), holdings=(carried, burnt, held)
    )
    assert will_to_fight.inputs_for(s, "orc").held == 2
    assert will_to_fight.inputs_for(s, "dwarf").holdings_lost == 2


def test_enemy_capital_held_and_own_recaptured():
    holdings = (
        Holding("dc", (1, 1), "orc", "dwarf", capital=True),
        Holding("oc", (8, 8), "orc", "orc", capital=True),
    )
    s = state_with(holdings=holdings)
    i = will_to_fight.inputs_for(s, "orc")
    assert (i.enemy_capital, i.capital_lost, i.held) == (True, False, 0)
    assert will_to_fight.inputs_for(s, "dwarf").capital_lost


def test_snow_modifies_will_to_fight_only_in_a_scenario_that_says_so():
    s = state_with(force("o", "orc"), force("d", "dwarf"), wtf_triggers={"orc": ("x",)})
    s = replace(s, snow=replace(s.snow, levels=2))
    _, _, d = run(will_to_fight, s, [4])
    assert d.ledger[0].modifiers == ()


# --- Phase 6 ---


def test_time_sets_day_to_turn():
    new, events, _ = run(day_phase, state_with(turn=5, day=4), [])
    assert new.day == 5 and names(events) == ["DayAdvanced"]


# --- Phase 7 ---


def _holdings(owner: str = "orc") -> tuple[Holding, ...]:
    return (
        Holding("cap", (0, 0), owner, "orc", capital=True),
        *(Holding(f"m{i}", (3 * i, 8), owner, "orc") for i in range(1, 4)),
    )


@pytest.mark.parametrize(("also", "points"), [(False, 320), (True, 360)])
def test_d16_reinforcement_points(also, points):
    s = state_with(
        holdings=_holdings(),
        turn=7,
        day=7,
        options=Options(capital_also_two_percent=also),
        players=(Player("orc", "orc", initial_points=2000),),
    )
    new, events, _ = run(reinforcements, s, [])
    assert new.bank["orc"] == points
    assert (events[0].points, events[0].bank) == (points, points)


def test_no_reinforcements_off_schedule_or_without_the_capital():
    s = state_with(
        holdings=_holdings(), day=6, players=(Player("orc", "orc", initial_points=2000),)
    )
    assert run(reinforcements, s, [])[1] == []
    lost = (Holding("cap", (0, 0), "dwarf", "orc", capital=True), *_holdings()[1:])
    s = state_with(holdings=lost, day=14, players=players())
    new, events, _ = run(reinforcements, s, [])
    assert "orc" not in new.bank
    assert [e.rule for e in events if e.player_id == "orc"] == ["R9.3.1"]


def test_captured_holdings_count_two_percent_and_sacked_ones_nothing():
    hs = (
        Holding("oc", (0, 0), "orc", "orc", capital=True),
        Holding("dc", (8, 8), "orc", "dwarf", capital=True),
        Holding("dm", (8, 5), "orc", "dwarf"),
        Holding("ds", (8, 3), "orc", "dwarf", sacked=True, carried_by="x"),
    )
    s = state_with(holdings=hs, day=7, players=players())
    assert reinforcements.points_due(s, s.player("orc")) == 200 + 40 + 40


def _req(*units: Unit, general: General | None = None, inds=(), name="") -> ReinforcementRequest:
    return ReinforcementRequest(units=units, general=general, individuals=inds, name=name)


def test_reinforcements_form_a_new_force_in_the_capital():
    req = _req(unit("new", 10, ppf=10), general=General("x", 2, points=50), name="levy")
    s = state_with(
        holdings=_holdings(),
        day=7,
        next_id=10,
        players=(Player("orc", "orc", initial_points=2000),),
        orders={"orc": PlayerOrders("orc", reinforcements=(req,))},
    )
    new, events, _ = run(reinforcements, s, [])
    f = new.forces[0]
    assert (f.id, f.square, f.status, f.name) == ("f13", (0, 0), Status.DEFEND, "levy")
    assert [u.id for u in f.units] == ["u10"] and f.leader.id == "g11"
    assert f.commands[0].id == "c12"
    assert new.bank["orc"] == 320 - 150
    arrived = events[-1]
    assert (arrived.force_id, arrived.joined, arrived.points) == ("f13", False, 150)


def test_reinforcements_join_own_force_first_then_lowest_id():
    ps = (Player("orc", "orc", initial_points=2000), Player("gob", "orc"))
    s = state_with(
        force("f10", "orc", (0, 0)),
        force("f9", "orc", (0, 0)),
        force("a1", "gob", (0, 0)),
        holdings=_holdings(),
        day=7,
        players=ps,
        orders={"orc": PlayerOrders("orc", reinforcements=(_req(unit("n", 5)),))},
    )
    new, events, _ = run(reinforcements, s, [])
    assert [u.figures for u in new.force("f9").units] == [10, 5]
    arrived = [e for e in events if type(e).__name__ == "ReinforcementsArrived"]
    assert [(e.force_id, e.joined) for e in arrived] == [("f9", True)]


def test_reinforcement_requests_refused_with_reasons():
    reqs = (
        _req(unit("e", 5, Quality.ELITE), general=General("x", 2)),  # R9.3.2
        _req(unit("n", 5)),  # no force in the capital and no general: R9.3.4
        _req(unit("m", 5, mercenary=True), general=General("y", 2)),  # R2.5.7
        _req(
            unit("a", 5),
            general=General("z", 2),
            inds=(Individual("h", IndividualKind.HERO), Individual("s", IndividualKind.SCOUT)),
        ),
        _req(unit("big", 30), general=General("w", 2)),  # 300 of 320: bought
        _req(unit("late", 10), general=General("v", 2)),  # 100 > 20 left: stops here
        _req(unit("never", 1), general=General("u", 2)),
    )
    s = state_with(
        holdings=_holdings(),
        day=7,
        players=(Player("orc", "orc", initial_points=2000),),
        orders={"orc": PlayerOrders("orc", reinforcements=reqs)},
    )
    new, events, _ = run(reinforcements, s, [])
    refused = [(e.request, e.rule) for e in events if type(e).__name__ == "ReinforcementsRefused"]
    assert refused == [(0, "R9.3.2"), (1, "R9.3.4"), (2, "R2.5.7"), (3, "R9.3.5"), (5, "R9.3.8")]
    assert len(new.forces) == 1 and new.bank["orc"] == 20


# --- Phase 8 ---


def _ev_state(*forces: Force, tribal: bool = False, **kw) -> CampaignState:
    return state_with(
        *forces,
        day=7,
        players=(Player("orc", "orc", race="orc", tribal=tribal),),
        options=Options(random_events=True),
        **kw,
    )


@pytest.mark.parametrize(
    ("dice", "event"),
    [
        ([1, 1, 1], "none"),
        ([1, 1, 2], "none"),
        ([1, 1, 3], "reinforcements-50"),
        ([2, 3, 6], "leader-stress"),
        ([6, 6, 1], "leader-emerges"),
        ([6, 6, 6], "wizard-joins"),
    ],
)
def test_d17_general_event_table(dice, event):
    new, events, d = run(events_phase, _ev_state(force("a", "orc", cv=4)), [*dice, 1])
    assert events[0].event == event and events[0].table == "general"
    assert d.ledger[-1].purpose == "events:orc:catastrophe"


def test_d17_eight_gives_100_and_rolls_again():
    new, events, d = run(events_phase, _ev_state(force("a", "orc")), [2, 3, 3, 1, 1, 3, 2])
    assert [e.event for e in events if type(e).__name__ == "RandomEvent"] == [
        "reinforcements-100-reroll",
        "reinforcements-50",
        "none",
    ]
    assert new.bank["orc"] == 150
    assert [r.purpose for r in d.ledger] == [
        "events:orc:general",
        "events:orc:general-again",
        "events:orc:catastrophe",
    ]


def test_d17_eight_rolls_again_only_if_the_player_wants():
    s = _ev_state(force("a", "orc"))
    s = replace(s, orders={"orc": PlayerOrders("orc", event_reroll=False)})
    new, events, d = run(events_phase, s, [2, 3, 3, 1])
    ev = [e for e in events if type(e).__name__ == "RandomEvent"]
    assert [e.event for e in ev] == ["reinforcements-100-reroll", "none"]
    assert ev[0].kept and not ev[1].kept
    assert new.bank["orc"] == 100
    assert [r.purpose for r in d.ledger] == ["events:orc:general", "events:orc:catastrophe"]


@pytest.mark.parametrize(
    ("cv", "dice", "after"),
    [(6, [6, 6, 1], 6), (4, [6, 6, 1], 5), (4, [2, 3, 6], 2), (1, [2, 3, 6], 1)],
)
def test_d18_leader_cv_events(cv, dice, after):
    new, _, _ = run(events_phase, _ev_state(force("a", "orc", cv=cv)), [*dice, 1])
    assert new.force("a").cv == after


def test_leader_events_choose_the_lowest_and_the_best_leader():
    fs = (force("a", "orc", cv=5), force("b", "orc", cv=3), force("c", "orc", cv=6))
    new, _, _ = run(events_phase, _ev_state(*fs), [2, 3, 6, 1])  # stress: lowest CV
    assert [f.cv for f in new.forces] == [5, 2, 6]
    new, _, _ = run(events_phase, _ev_state(*fs), [6, 6, 1, 1])  # emerges: best below 6
    assert [f.cv for f in new.forces] == [6, 3, 6]


def test_hero_joins_a_force_with_room_and_wizard_gets_points():
    full = force("a", "orc", cv=5, individuals=(Individual("w", IndividualKind.WIZARD),))
    roomy = force("b", "orc", (4, 4), unit("x"), unit("y"), cv=3)
    new, events, _ = run(events_phase, _ev_state(full, roomy, next_id=5), [3, 3, 3, 1])
    assert [i.kind for i in new.force("b").individuals] == [IndividualKind.HERO]
    assert new.force("b").individuals[0].id == "i5"
    new, _, _ = run(events_phase, _ev_state(full, roomy), [6, 6, 5, 1])  # 17: +25 PM
    assert new.force("a").individuals[0].magic_points == 25


def test_tribal_spirit_rations_and_poisoned_arrows():
    a = force("a", "orc", cv=5)
    b = force("b", "orc", (4, 4), unit("bow", spec=Speciality.MISSILE), unit("x"), cv=3)
    new, events, _ = run(events_phase, _ev_state(a, b, tribal=True), [1, 1, 1, 5, 3, 1])
    assert (new.force("a").tokens["spirit"], new.force("b").tokens["spirit"]) == (2, 1)
    new, _, _ = run(events_phase, _ev_state(a, b, tribal=True), [1, 1, 1, 6, 4, 1])
    assert dict(new.force("b").tokens) == {"poisoned-arrows": 4} and not new.force("a").tokens


def test_storm_shatters_the_weakest_then_annihilates():
    a = force("a", "orc", (1, 1), unit("a1", 20))
    b = force("b", "orc", (2, 2), unit("b1", 5))
    new, events, _ = run(events_phase, _ev_state(a, b), [1, 1, 1, 3])
    assert new.force("b").status is Status.SHATTERED and new.force("a").status is Status.PROBE
    both = (replace(a, status=Status.SHATTERED), replace(b, status=Status.SHATTERED))
    new, events, _ = run(events_phase, _ev_state(*both), [1, 1, 1, 3])
    assert [f.id for f in new.forces] == ["a"]


def test_epidemic_in_the_capital_costs_bank_and_force_points():
    cap = Holding("cap", (0, 0), "orc", "orc", capital=True)
    a = force("a", "orc", (0, 0), unit("a1", 20, ppf=7))
    new, events, _ = run(
        events_phase, _ev_state(a, holdings=(cap,), bank={"orc": 150}), [1, 1, 1, 5]
    )
    assert new.bank["orc"] == 50
    assert new.force("a").units[0].figures == 20 - 15  # 15 × 7 = 105 ≥ 100
    assert "ForcePointsLost" in names(events)


def test_catastrophe_six_every_player_rolls():
    ps = (Player("orc", "orc"), Player("dwarf", "dwarf"))
    fs = (force("a", "orc", (1, 1), unit("a1", 10)), force("d", "dwarf", (7, 7), unit("d1", 10)))
    s = state_with(*fs, day=7, players=ps, options=Options(random_events=True))
    # orc: general 3 (none), catastrophe 6 → orc rolls 1 (nothing), dwarf rolls 5 (his force)
    # dwarf: general 3, catastrophe 1
    new, events, d = run(events_phase, s, [1, 1, 1, 6, 1, 5, 1, 1, 1, 1])
    assert new.force("a").units[0].figures == 10
    assert new.force("d").units[0].figures == 5 and new.force("d").status is Status.SHATTERED


def test_no_random_events_when_off_or_off_schedule():
    s = _ev_state(force("a", "orc"))
    assert run(events_phase, replace(s, options=Options()), [])[1] == []
    assert run(events_phase, replace(s, day=6), [])[1] == []


def test_the_event_choices_round_trip_through_the_codec():
    po = PlayerOrders(
        "orc", event_reroll=False, event_targets={"leader-stress": ("b", "a"), "blizzard": ()}
    )
    data = to_data(po)
    assert data["event_reroll"] is False
    assert data["event_targets"] == {"leader-stress": ["b", "a"], "blizzard": []}
    assert from_data(PlayerOrders, data) == po
    assert from_data(PlayerOrders, {"player_id": "orc"}).event_reroll is True


def _orders(**targets: tuple[str, ...]) -> dict[str, PlayerOrders]:
    return {
        "orc": PlayerOrders(
            "orc", event_targets={k.replace("_", "-"): v for k, v in targets.items()}
        )
    }


def test_the_storm_strikes_the_force_the_owner_chose():
    a = force("a", "orc", (1, 1), unit("a1", 20))
    b = force("b", "orc", (2, 2), unit("b1", 5))
    s = replace(_ev_state(a, b), orders=_orders(blizzard=("a",)))
    new, _, _ = run(events_phase, s, [1, 1, 1, 3])
    assert new.force("a").status is Status.SHATTERED and new.force("b").status is Status.PROBE


def test_an_epidemic_without_a_choice_strikes_where_it_bites():
    hs = (
        Holding("cap", (0, 0), "orc", "orc", capital=True),
        Holding("v1", (5, 5), "orc", "orc"),
        Holding("v2", (2, 2), "orc", "orc"),
    )
    a = force("a", "orc", (2, 2), unit("a1", 20, ppf=10))
    new, events, _ = run(events_phase, _ev_state(a, holdings=hs), [1, 1, 1, 4])
    assert new.force("a").units[0].figures == 10  # v2, the only holding where it bites
    assert [e.holding_id for e in events if type(e).__name__ == "EpidemicStruck"] == ["v2"]
    s = replace(_ev_state(a, holdings=hs), orders=_orders(epidemic_holding=("v1",)))
    new, events, _ = run(events_phase, s, [1, 1, 1, 4])
    assert new.force("a").units[0].figures == 20  # his choice: the empty village


def test_a_catastrophe_strikes_the_holding_the_owner_chose():
    hs = (Holding("v1", (5, 5), "orc", "orc"), Holding("v2", (2, 2), "orc", "orc"))
    a = force("a", "orc", (2, 2), unit("a1", 20, ppf=10))
    b = force("b", "orc", (5, 5), unit("b1", 10, ppf=10))
    s = replace(_ev_state(a, b, holdings=hs), orders=_orders(catastrophe_holding=("gone", "v2")))
    new, _, _ = run(events_phase, s, [1, 1, 1, 6, 6])
    assert new.force("a").status is Status.SHATTERED and new.force("b").status is Status.PROBE
    s = replace(_ev_state(a, b, holdings=hs), orders=_orders(catastrophe_force=("b",)))
    new, _, _ = run(events_phase, s, [1, 1, 1, 6, 5])
    assert new.force("b").status is Status.SHATTERED and new.force("a").status is Status.PROBE


def test_leader_stress_without_a_choice_falls_where_it_lowers_a_cv():
    fs = (force("a", "orc", cv=5), force("b", "orc", cv=2), force("c", "orc", cv=4))
    new, _, _ = run(events_phase, _ev_state(*fs), [2, 3, 6, 1])
    assert [f.cv for f in new.forces] == [5, 2, 2]
