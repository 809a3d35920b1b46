"""Phase 4 — after the battle (§8), through `rules.phases.after_battle.resolve`.

Covers TV-09, TV-10, TV-11 (both option values), D-08, D-10, D-11, D-27 through the phase,
plus retreats, stalemate moves, captures, loot, leader promotion, regrouping, artefacts and
result validation. Every test scripts its dice and checks that all were used.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.battle import (
    BattleForce,
    BattlePack,
    BattleResult,
    BattleSide,
    IndividualFate,
    PendingBattle,
    UnitLoss,
)
from rules.cli.ledger_words import detail_words, outcome_words
from rules.dice import ScriptedDice
from rules.errors import InvalidResult
from rules.orders import ForceOrders, PlayerOrders
from rules.phases import after_battle
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
    Outcome,
    Player,
    PlayerRecord,
    Quality,
    Speciality,
    Status,
    Unit,
)

W, L, S = Outcome.WON, Outcome.LOST, Outcome.STALEMATE

# A 7×7 map: rows 0–1 are red's friendly third, rows 5–6 blue's, rows 2–4 neutral.
ZONES = {(x, y): ("red" if y <= 1 else "blue") for x in range(7) for y in (0, 1, 5, 6)}
MAP = GameMap(7, 7, zones=ZONES)
PLAYERS = (
    Player("red", "red", initial_points=2000),
    Player("blue", "blue", initial_points=2000),
)


def unit(
    uid: str,
    figures: int = 10,
    quality: Quality = Quality.AVERAGE,
    *,
    spec: Speciality = Speciality.INFANTRY,
    ppf: int = 10,
    merc: bool = False,
) -> Unit:
    return Unit(uid, "warriors", spec, quality, figures, ppf, mercenary=merc)


def force(
    fid: str,
    owner: str,
    square: Coord,
    *units: Unit,
    status: Status = Status.PROBE,
    cv: int = 3,
    individuals: tuple[Individual, ...] = (),
    **kw,
) -> Force:
    cmd = Command(f"c-{fid}", General(f"g-{fid}", cv), tuple(units))
    return Force(fid, owner, square, status, (cmd,), individuals=individuals, **kw)


def state_with(
    *forces: Force,
    holdings: tuple[Holding, ...] = (),
    options: Options | None = None,
    players: tuple[Player, ...] = PLAYERS,
    **kw,
) -> CampaignState:
    opts = options or Options()
    return CampaignState(1, 0, MAP, players, holdings, tuple(forces), options=opts, **kw)


def battle(
    state: CampaignState,
    square: Coord,
    a: list[str],
    b: list[str],
    bid: str = "b1",
    order: int = 1,
    scenario: str | None = None,
    roles: tuple[str, str] = ("", ""),
) -> PendingBattle:
    sides = []
    for ids, role in ((a, roles[0]), (b, roles[1])):
        fs = [state.force(i) for i in ids]
        owners = tuple(dict.fromkeys(f.owner for f in fs))
        sides.append(
            BattleSide(
                side=state.side_of(owners[0]),
                players=owners,
                forces=tuple(BattleForce(f.id, f.owner, f.status, f.figures, f.points) for f in fs),
                territory=state.territory(owners[0], square).value,
                scouting="full",
                scouting_modifier=0,
                role=role,
            )
        )
    pack = BattlePack(
        bid,
        state.turn,
        square,
        (),
        "plain",
        scenario=scenario,
        sides=tuple(sides),
        contact_order=order,
    )
    return PendingBattle(bid, square, order, pack)


def run(
    state: CampaignState, battles: list[PendingBattle], results: list[BattleResult], dice: list[int]
):
    state = replace(state, pending_battles=tuple(battles), phase="battles")
    d = ScriptedDice(dice)
    new, events = after_battle.resolve(state, {r.battle_id: r for r in results}, d)
    d.assert_exhausted()
    return new, events, d


def result(
    outcomes: tuple[Outcome, Outcome] | None, *units: UnitLoss, bid: str = "b1", **kw
) -> BattleResult:
    out = {"a": outcomes[0], "b": outcomes[1]} if outcomes else {}
    return BattleResult(bid, outcomes=out, units=tuple(units), **kw)


def kinds(events) -> list[str]:
    return [type(e).__name__ for e in events]


def unit_figures(state: CampaignState, fid: str) -> dict[str, int]:
    return {u.id: u.figures for u in state.force(fid).units}


# --- worked examples ---


def test_tv10_wounded_check_of_a_victorious_unit_in_enemy_territory():
    wolves = unit("wolves", 12, spec=Speciality.CAVALRY)
    s = state_with(force("orcs", "red", (3, 5), wolves), force("dw", "blue", (3, 5), unit("d", 5)))
    b = battle(s, (3, 5), ["orcs"], ["dw"])  # row 5: blue's third, enemy territory for red
    r = result((W, L), UnitLoss("wolves", killed=6), UnitLoss("d", killed=5))
    new, events, d = run(s, [b], [r], [6, 6, 5, 5, 4, 2])
    assert unit_figures(new, "orcs") == {"wolves": 10}
    assert new.force("orcs").figures_lost == 2
    rec = d.ledger[0]
    assert (rec.purpose, rec.rule) == ("after:b1:wounded-wolves", "R8.1")
    assert [m.value for m in rec.modifiers] == [-1]
    assert outcome_words(rec.outcome, rec.values) == "4 recovered, 2 dead"
    wc = next(e for e in events if type(e).__name__ == "WoundedChecked")
    assert (wc.recovered, wc.dead) == (4, 2)
    # the loser's killed are dead without a roll (R8.1.1); its only unit is gone
    assert "dw" not in {f.id for f in new.forces}
    assert new.records["red"] == PlayerRecord(1, 0)
    assert new.records["blue"] == PlayerRecord(0, 1)
    assert new.wtf_triggers["blue"] == ("all-forces-lost", "lost-battle")


def test_d10_wounded_check_in_friendly_territory_on_a_stalemate():
    s = state_with(
        force("r1", "red", (3, 1), unit("u1", 10)), force("b1", "blue", (3, 1), unit("v1", 10))
    )
    b = battle(s, (3, 1), ["b1"], ["r1"])
    r = result((S, S), UnitLoss("u1", killed=6))
    new, _, d = run(s, [b], [r], [1, 2, 3, 4, 5, 6])
    assert tuple(map(detail_words, d.ledger[0].details)) == (
        "1: dead (natural 1)",
        "2→3: dead",
        "3→4: recovered",
        "4→5: recovered",
        "5→6: recovered",
        "6: recovered (natural 6)",
    )
    assert unit_figures(new, "r1") == {"u1": 8}
    assert new.records.get("red", PlayerRecord()) == PlayerRecord(0, 0)  # stalemates count 0


@pytest.mark.parametrize(
    ("mode", "returned", "deserted"), [("force_shattered", 5, 4), ("figure_routed", 3, 6)]
)
def test_tv11_deserter_check_of_a_routed_unit_after_a_lost_battle(mode, returned, deserted):
    s = state_with(
        force("win", "red", (3, 3), unit("w", 10)),
        force("lose", "blue", (3, 3), unit("avg", 9)),
        options=Options(deserter_rout_modifier=mode),
    )
    b = battle(s, (3, 3), ["win"], ["lose"])
    r = result((W, L), UnitLoss("avg", fled=9))
    new, events, d = run(s, [b], [r], [6, 4, 4, 3, 3, 1, 1, 1, 1])
    dc = next(e for e in events if type(e).__name__ == "DesertersChecked")
    assert (dc.checked, dc.returned, dc.deserted) == (9, returned, deserted)
    assert unit_figures(new, "lose") == {"avg": returned}
    assert new.force("lose").status is Status.CONFUSED  # Probe → Confused: no −1 by default
    mods = [m.value for m in d.ledger[0].modifiers]
    assert mods == ([1] if mode == "force_shattered" else [1, -1])


def test_tv09_general_retreat_exits_are_not_checked_oppose_exits_are():
    """p. 33: two commands leave under General Retreat, the third under Oppose; the battle is
    lost. Only the Oppose command is deserter-checked; the loser gets no wounded check."""
    cmds = (
        Command("A", General("gA", 4), (unit("a1", 10, Quality.VETERAN),)),
        Command("B", General("gB", 3), (unit("b1", 10),)),
        Command("C", General("gC", 3), (unit("c1", 8, Quality.LEVY),)),
    )
    barbarians = Force("barb", "blue", (3, 3), Status.PROBE, cmds)
    s = state_with(force("gob", "red", (3, 3), unit("g", 20)), barbarians)
    b = battle(s, (3, 3), ["gob"], ["barb"])
    r = result(
        (W, L),
        UnitLoss("a1", killed=2, left_retreat=8),
        UnitLoss("b1", left_retreat=10),
        UnitLoss("c1", killed=1, left_oppose=7),
    )
    new, events, d = run(s, [b], [r], [6, 5, 4, 3, 2, 1, 1])
    assert [rec.purpose for rec in d.ledger] == ["after:b1:deserters-c1"]
    assert "WoundedChecked" not in kinds(events)
    # Levy +0: 6, 5, 4 return; 3, 2, 1, 1 desert
    assert unit_figures(new, "barb") == {"a1": 8, "b1": 10, "c1": 3}
    assert new.force("barb").figures_lost == 2 + 1 + 4


def test_tv09_option_checks_general_retreat_exits_too():
    cmds = (
        Command("A", General("gA", 4), (unit("a1", 3),)),
        Command("C", General("gC", 3), (unit("c1", 2, Quality.LEVY),)),
    )
    s = state_with(
        force("gob", "red", (3, 3), unit("g", 20)),
        Force("barb", "blue", (3, 3), Status.PROBE, cmds),
        options=Options(gr_exits_deserter_checked=True),
    )
    b = battle(s, (3, 3), ["gob"], ["barb"])
    r = result((W, L), UnitLoss("a1", left_retreat=3), UnitLoss("c1", left_oppose=2))
    new, _, d = run(s, [b], [r], [3, 3, 3, 4, 1])
    assert [rec.purpose for rec in d.ledger] == ["after:b1:deserters-a1", "after:b1:deserters-c1"]
    assert unit_figures(new, "barb") == {"a1": 3, "c1": 1}  # Average +1: 3→4 returns


def test_winners_exits_under_orders_return_without_a_check():
    """A-57: only a winner's routed figures are checked."""
    s = state_with(
        force("r", "red", (3, 3), unit("u", 10)), force("b", "blue", (3, 3), unit("v", 4))
    )
    b = battle(s, (3, 3), ["r"], ["b"])
    r = result(
        (W, L), UnitLoss("u", fled=2, left_oppose=3, left_retreat=1), UnitLoss("v", killed=4)
    )
    new, _, d = run(s, [b], [r], [1, 6])
    assert d.ledger[0].purpose == "after:b1:deserters-u" and d.ledger[0].natural == (1, 6)
    assert unit_figures(new, "r") == {"u": 9}


def test_d11_loser_has_no_wounded_check_and_mercenaries_desert_without_rolls():
    s = state_with(
        force("r", "red", (3, 3), unit("u", 10)),
        force("b", "blue", (3, 3), unit("reg", 5), unit("merc", 7, merc=True)),
    )
    b = battle(s, (3, 3), ["r"], ["b"])
    r = result((W, L), UnitLoss("reg", killed=5), UnitLoss("merc", fled=7))
    new, events, d = run(s, [b], [r], [])
    assert d.ledger == []
    dc = next(e for e in events if type(e).__name__ == "DesertersChecked")
    assert (dc.unit_id, dc.deserted, dc.automatic) == ("merc", 7, True)
    assert "b" not in {f.id for f in new.forces}


def test_d11_losing_mercenaries_still_on_the_table_desert_too():
    """R8.2.3 / R8.2.4: under the Italian method a loser may keep figures on the table; its
    mercenaries desert all the same, its regulars are not checked."""
    s = state_with(
        force("r", "red", (3, 3), unit("u", 60)),
        force("b", "blue", (3, 3), unit("reg", 30), unit("merc", 7, merc=True)),
        options=Options(battle_result_method="italian"),
    )
    b = battle(s, (3, 3), ["r"], ["b"])
    r = BattleResult("b1", points_lost={"a": 0, "b": 100}, units=(UnitLoss("reg", killed=10),))
    new, events, _ = run(s, [b], [r], [])
    assert unit_figures(new, "b") == {"reg": 20}
    assert next(e for e in events if type(e).__name__ == "BattleResolved").outcomes == {
        "a": "won",
        "b": "lost",
    }


def test_d27_deserter_minus_one_when_this_loss_made_the_force_shattered():
    s = state_with(
        force("r", "red", (3, 3), unit("u", 10)),
        force("b", "blue", (3, 3), unit("avg", 2), status=Status.UNSTEADY),
    )
    b = battle(s, (3, 3), ["r"], ["b"])
    new, events, d = run(s, [b], [result((W, L), UnitLoss("avg", fled=2))], [4, 3])
    assert new.force("b").status is Status.SHATTERED
    assert [m.value for m in d.ledger[0].modifiers] == [1, -1]
    assert tuple(map(detail_words, d.ledger[0].details)) == ("4→4: returned", "3→3: deserted")
    assert kinds(events).index("ReactionSuffered") < kinds(events).index("DesertersChecked")


@pytest.mark.parametrize(
    ("start", "after"),
    [
        (Status.DEFEND, Status.CONFUSED),
        (Status.PROBE, Status.CONFUSED),
        (Status.CONFUSED, Status.UNSTEADY),
        (Status.UNSTEADY, Status.SHATTERED),
    ],
)
def test_d08_loser_reaction(start, after):
    s = state_with(
        force("r", "red", (3, 3), unit("u")), force("b", "blue", (3, 3), unit("v"), status=start)
    )
    new, events, _ = run(s, [battle(s, (3, 3), ["r"], ["b"])], [result((W, L))], [])
    assert new.force("b").status is after
    assert new.force("r").status is Status.PROBE  # winners keep their status
    ev = next(e for e in events if type(e).__name__ == "ReactionSuffered")
    assert (ev.old_status, ev.new_status) == (start.value, after.value)


# --- individuals and leaders ---


def test_killed_general_of_the_winner_takes_a_wounded_check():
    hero = Individual("hero", IndividualKind.HERO)
    s = state_with(
        force("r", "red", (3, 3), unit("u"), unit("u2"), individuals=(hero,)),
        force("b", "blue", (3, 3), unit("v")),
    )
    r = result(
        (W, L), individuals=(IndividualFate("g-r", "killed"), IndividualFate("hero", "killed"))
    )
    new, events, d = run(s, [battle(s, (3, 3), ["r"], ["b"])], [r], [5, 2])
    assert [x.purpose for x in d.ledger] == ["after:b1:wounded-g-r", "after:b1:wounded-hero"]
    f = new.force("r")
    assert [g.id for g in f.generals] == ["g-r"] and f.individuals == ()


def test_loser_whose_generals_died_promotes_a_cv1_leader_core():
    s = state_with(force("r", "red", (3, 3), unit("u")), force("b", "blue", (3, 3), unit("v")))
    r = result((W, L), individuals=(IndividualFate("g-b", "killed"),))
    new, events, _ = run(s, [battle(s, (3, 3), ["r"], ["b"])], [r], [])
    f = new.force("b")
    assert len(f.generals) == 1 and f.leader.cv == 1 and not f.leader.mounted
    lp = next(e for e in events if type(e).__name__ == "LeaderPromoted")
    # R8.6.1: promoted from the ranks, so the figure leaves the unit
    assert (lp.force_id, lp.source, lp.rule) == ("b", "unit:v", "R8.6")
    assert unit_figures(new, "b") == {"v": 9}
    assert f.leader.id == lp.general_id and f.leader.id.startswith("g")


def test_core_promotion_takes_the_biggest_unit_on_foot():
    s = state_with(
        force("r", "red", (3, 3), unit("u")),
        force(
            "b",
            "blue",
            (3, 3),
            unit("cav", 20, spec=Speciality.CAVALRY),
            unit("fly", 20, spec=Speciality.AIR_CAVALRY),
            unit("a", 6),
            unit("b", 8, spec=Speciality.MISSILE),
            unit("c", 8),
        ),
    )
    r = result((W, L), individuals=(IndividualFate("g-b", "killed"),))
    new, events, _ = run(s, [battle(s, (3, 3), ["r"], ["b"])], [r], [])
    assert unit_figures(new, "b") == {"cav": 20, "fly": 20, "a": 6, "b": 7, "c": 8}
    assert next(e for e in events if type(e).__name__ == "LeaderPromoted").source == "unit:b"


def test_core_promotion_takes_a_last_figure_only_when_no_unit_on_foot_has_two():
    s = state_with(
        force("r", "red", (3, 3), unit("u")),
        force("b", "blue", (3, 3), unit("cav", 5, spec=Speciality.CAVALRY), unit("lone", 1)),
    )
    r = result((W, L), individuals=(IndividualFate("g-b", "killed"),))
    new, events, _ = run(s, [battle(s, (3, 3), ["r"], ["b"])], [r], [])
    assert unit_figures(new, "b") == {"cav": 5}
    assert not new.force("b").leader.mounted


def test_core_promotion_dismounts_a_rider_when_no_one_is_on_foot():
    s = state_with(
        force("r", "red", (3, 3), unit("u")),
        force("b", "blue", (3, 3), unit("cav", 5, spec=Speciality.CAVALRY)),
    )
    r = result((W, L), individuals=(IndividualFate("g-b", "killed"),))
    new, events, _ = run(s, [battle(s, (3, 3), ["r"], ["b"])], [r], [])
    assert unit_figures(new, "b") == {"cav": 4}
    assert not new.force("b").leader.mounted


def test_naran_promotion_prefers_a_hero_over_a_wizard():
    inds = (
        Individual("wiz", IndividualKind.WIZARD, points=200, mounted=True),
        Individual("hero", IndividualKind.HERO, points=50),
    )
    s = state_with(
        force("r", "red", (3, 3), unit("u")),
        force("b", "blue", (3, 3), unit("v"), unit("v2"), individuals=inds),
        options=Options(naran_promotion=True),
    )
    r = result((W, L), individuals=(IndividualFate("g-b", "killed"),))
    new, events, _ = run(s, [battle(s, (3, 3), ["r"], ["b"])], [r], [])
    f = new.force("b")
    assert f.leader.id == "hero" and f.leader.cv == 1
    assert [i.id for i in f.individuals] == ["wiz"]
    assert next(e for e in events if type(e).__name__ == "LeaderPromoted").source == (
        "individual:hero"
    )


def test_naran_promotion_takes_the_leader_of_the_best_cavalry_unit():
    s = state_with(
        force("r", "red", (3, 3), unit("u")),
        force(
            "b",
            "blue",
            (3, 3),
            unit("inf", 10, Quality.ELITE, ppf=20),
            unit("cav", 5, Quality.AVERAGE, spec=Speciality.CAVALRY, ppf=15),
            unit("fly", 3, spec=Speciality.AIR_CAVALRY, ppf=40),
        ),
        options=Options(naran_promotion=True),
    )
    r = result((W, L), individuals=(IndividualFate("g-b", "killed"),))
    new, events, _ = run(s, [battle(s, (3, 3), ["r"], ["b"])], [r], [])
    assert unit_figures(new, "b") == {"inf": 10, "cav": 4, "fly": 3}
    assert next(e for e in events if type(e).__name__ == "LeaderPromoted").source == "unit:cav"


def test_fled_individual_takes_a_deserter_check():
    scout = Individual("sc", IndividualKind.SCOUT)
    s = state_with(
        force("r", "red", (3, 3), unit("u")),
        force("b", "blue", (3, 3), unit("v"), individuals=(scout,)),
    )
    r = result((W, L), individuals=(IndividualFate("sc", "fled"),))
    new, events, d = run(s, [battle(s, (3, 3), ["r"], ["b"])], [r], [3])
    assert d.ledger[0].purpose == "after:b1:deserters-sc" and d.ledger[0].modifiers == ()
    assert new.force("b").individuals == ()
    assert any(type(e).__name__ == "IndividualLost" and e.fate == "deserted" for e in events)


# --- post-battle moves ---


def test_loser_retreats_to_its_first_legal_preference():
    s = state_with(
        force("r", "red", (3, 3), unit("u")),
        force("r2", "red", (3, 4), unit("u2")),
        force("b", "blue", (3, 3), unit("v")),
        orders={
            "blue": PlayerOrders(
                "blue", {"b": ForceOrders("b", retreat_squares=((3, 4), (5, 5), (2, 4)))}
            )
        },
    )
    r = result((W, L), retreat_choices={"b": (4, 4)})
    new, events, _ = run(s, [battle(s, (3, 3), ["r"], ["b"])], [r], [])
    # (3, 4) holds an enemy force, (5, 5) is not adjacent: the next preference wins
    assert new.force("b").square == (2, 4)
    mv = next(e for e in events if type(e).__name__ == "ForceMoved")
    assert (mv.path, mv.reason, mv.rule) == (((2, 4),), "post-battle-retreat", "R8.4")


def test_result_retreat_choice_then_default_choice():
    s = state_with(force("r", "red", (3, 3), unit("u")), force("b", "blue", (3, 3), unit("v")))
    new, _, _ = run(
        s, [battle(s, (3, 3), ["r"], ["b"])], [result((W, L), retreat_choices={"b": (4, 4)})], []
    )
    assert new.force("b").square == (4, 4)
    new, _, _ = run(s, [battle(s, (3, 3), ["r"], ["b"])], [result((W, L))], [])
    # default: every neighbour is neutral and next to the victor, blue has no capital: the
    # lowest (y, x) decides
    assert new.force("b").square == (2, 2)


def test_default_retreat_prefers_own_territory_and_holdings():
    home = Holding("hb", (4, 5), "blue", "blue", capital=True)
    s = state_with(
        force("r", "red", (3, 4), unit("u")),
        force("b", "blue", (3, 4), unit("v")),
        holdings=(home,),
    )
    new, _, _ = run(s, [battle(s, (3, 4), ["r"], ["b"])], [result((W, L))], [])
    assert new.force("b").square == (4, 5)


def test_loser_with_no_legal_square_is_destroyed():
    s = state_with(
        force("r", "red", (0, 0), unit("u")),
        force("r1", "red", (1, 0), unit("u1")),
        force("r2", "red", (0, 1), unit("u2")),
        force("r3", "red", (1, 1), unit("u3")),
        force("b", "blue", (0, 0), unit("v")),
    )
    new, events, _ = run(s, [battle(s, (0, 0), ["r"], ["b"])], [result((W, L))], [])
    assert "b" not in {f.id for f in new.forces}
    fd = next(e for e in events if type(e).__name__ == "ForceDestroyed")
    assert (fd.force_id, fd.rule) == ("b", "R8.4.7")


def test_stalemate_both_move_apart_the_initiative_loser_first():
    s = state_with(
        force("r", "red", (3, 3), unit("u")),
        force("b", "blue", (3, 3), unit("v")),
        initiative_winner="red",
        orders={
            "blue": PlayerOrders("blue", {"b": ForceOrders("b", retreat_squares=((3, 4),))}),
            "red": PlayerOrders("red", {"r": ForceOrders("r", retreat_squares=((4, 4), (2, 2)))}),
        },
    )
    new, events, _ = run(s, [battle(s, (3, 3), ["r"], ["b"])], [result((S, S))], [])
    assert new.force("b").square == (3, 4)  # blue lost the initiative: picks first
    assert new.force("r").square == (2, 2)  # (4, 4) is adjacent to blue: skipped
    assert [e.force_id for e in events if type(e).__name__ == "ForceMoved"] == ["b", "r"]


def test_stalemate_on_own_holding_stays_and_both_defend_never_move():
    h = Holding("h", (3, 1), "red", "red")
    s = state_with(
        force("r", "red", (3, 1), unit("u"), works_quota=10, works_square=(3, 1)),
        force("b", "blue", (3, 1), unit("v")),
        holdings=(h,),
    )
    new, _, _ = run(s, [battle(s, (3, 1), ["b"], ["r"])], [result((S, S))], [])
    assert new.force("r").square == (3, 1) and new.force("r").works_quota == 10
    assert new.force("b").square != (3, 1)
    s2 = state_with(
        force("r", "red", (3, 3), unit("u"), status=Status.DEFEND),
        force("b", "blue", (3, 3), unit("v"), status=Status.DEFEND),
    )
    new, events, _ = run(s2, [battle(s2, (3, 3), ["b"], ["r"])], [result((S, S))], [])
    assert new.force("r").square == new.force("b").square == (3, 3)
    assert "ForceMoved" not in kinds(events)


def test_storm_ended_battle_both_retreat_and_works_are_lost():
    s = state_with(
        force("r", "red", (3, 3), unit("u"), works_quota=10, works_square=(3, 3)),
        force("b", "blue", (3, 3), unit("v")),
    )
    r = BattleResult("b1", ended_by_storm=True)
    new, events, _ = run(s, [battle(s, (3, 3), ["r"], ["b"])], [r], [])
    a, b = new.force("r").square, new.force("b").square
    assert a != (3, 3) and b != (3, 3) and max(abs(a[0] - b[0]), abs(a[1] - b[1])) >= 2
    assert new.force("r").works_quota is None
    assert "WorksLost" in kinds(events)


def test_winner_left_alone_captures_the_enemy_holding():
    h = Holding("hb", (3, 5), "blue", "blue")
    s = state_with(
        force("r", "red", (3, 5), unit("u")), force("b", "blue", (3, 5), unit("v")), holdings=(h,)
    )
    new, events, _ = run(s, [battle(s, (3, 5), ["r"], ["b"])], [result((W, L))], [])
    assert new.holdings[0].owner == "red"
    hc = next(e for e in events if type(e).__name__ == "HoldingCaptured")
    assert (hc.by_player, hc.from_player, hc.rule) == ("red", "blue", "R8.4.7")
    assert new.wtf_triggers["blue"] == ("holding-lost", "lost-battle")


def test_loot_is_lost_with_the_battle():
    sacked = Holding("v1", (2, 5), "red", "blue", sacked=True, carried_by="raid")
    s = state_with(
        force("raid", "red", (3, 3), unit("u"), loot=("v1",)),
        force("b", "blue", (3, 3), unit("v")),
        holdings=(sacked,),
    )
    new, events, _ = run(s, [battle(s, (3, 3), ["b"], ["raid"])], [result((W, L))], [])
    assert new.force("raid").loot == ()
    assert new.holdings[0].destroyed and new.holdings[0].carried_by is None
    assert kinds(events).count("LootLost") == 1


# --- options ---


def test_naran_regroup_pools_recovered_figures_by_speciality():
    s = state_with(
        force(
            "r",
            "red",
            (3, 3),
            unit("inf", 10, ppf=7),
            unit("cav", 6, spec=Speciality.CAVALRY, ppf=20),
        ),
        force("b", "blue", (3, 3), unit("v")),
        options=Options(naran_regroup=True),
    )
    r = result((W, L), UnitLoss("inf", killed=3, left_oppose=2), UnitLoss("cav", fled=2))
    new, events, _ = run(s, [battle(s, (3, 3), ["r"], ["b"])], [r], [6, 5, 1, 6, 2])
    f = new.force("r")
    # inf: 2 recovered of 3 killed go to the pool; the Oppose exits rejoin the unit
    # cav: 1 of 2 routed returns (Average +1: 6 returns, 2→3 deserts), into the pool
    assert unit_figures(new, "r") == {"inf": 7, "cav": 4}
    assert dict(f.regroup_pool) == {"infantry": 14, "cavalry": 20}
    assert kinds(events).count("RegroupPooled") == 2


def test_artefacts_of_a_sanctuary_pass_to_the_victor():
    h = Holding("hb", (3, 5), "blue", "blue", feature="sanctuary")
    s = state_with(
        force("r", "red", (3, 5), unit("u")),
        force("b", "blue", (3, 5), unit("v")),
        holdings=(h,),
        options=Options(holding_features=True),
    )
    new, events, _ = run(s, [battle(s, (3, 5), ["r"], ["b"])], [result((W, L))], [])
    assert new.holdings[0].artefacts_holder == "red"
    assert kinds(events).index("ArtefactsCaptured") < kinds(events).index("ForceMoved")


def test_ambush_modifiers_on_wounded_checks():
    s = state_with(force("r", "red", (3, 3), unit("u")), force("b", "blue", (3, 3), unit("v")))
    b = battle(s, (3, 3), ["r"], ["b"], scenario="ambush", roles=("ambusher", "ambushed"))
    r = result((S, S), UnitLoss("u", killed=1), UnitLoss("v", killed=1))
    _, _, d = run(s, [b], [r], [3, 4])
    assert [[m.value for m in x.modifiers] for x in d.ledger] == [[1], [-1]]


def test_records_go_to_every_player_of_a_side_with_forces_in_the_battle():
    players = (*PLAYERS, Player("green", "red"))
    s = state_with(
        force("r", "red", (3, 3), unit("u")),
        force("g", "green", (3, 3), unit("w")),
        force("b", "blue", (3, 3), unit("v")),
        players=players,
        records={"green": PlayerRecord(2, 1)},
    )
    new, _, _ = run(s, [battle(s, (3, 3), ["b"], ["r", "g"])], [result((L, W))], [])
    assert new.records["red"] == PlayerRecord(1, 0)
    assert new.records["green"] == PlayerRecord(3, 1)
    assert new.records["blue"] == PlayerRecord(0, 1)


def test_battles_resolve_in_contact_order_and_pending_battles_clear():
    s = state_with(
        force("r", "red", (1, 3), unit("u")),
        force("b", "blue", (1, 3), unit("v")),
        force("r2", "red", (5, 3), unit("u2")),
        force("b2", "blue", (5, 3), unit("v2")),
    )
    first = battle(s, (5, 3), ["r2"], ["b2"], bid="x", order=1)
    second = battle(s, (1, 3), ["r"], ["b"], bid="y", order=2)
    res = [
        result((S, S), UnitLoss("u", killed=1), bid="y"),
        result((S, S), UnitLoss("u2", killed=1), bid="x"),
    ]
    new, _, d = run(s, [second, first], res, [6, 6])
    assert [x.purpose for x in d.ledger] == ["after:x:wounded-u2", "after:y:wounded-u"]
    assert new.pending_battles == ()


# --- validation ---


@pytest.mark.parametrize(
    ("res", "message"),
    [
        (result((W, L), UnitLoss("ghost", killed=1)), "did not fight"),
        (result((W, L), UnitLoss("v", killed=8, fled=3)), "had 10 figure"),
        (result((W, L), UnitLoss("v", killed=-1)), "negative"),
        (result((W, L), individuals=(IndividualFate("nobody", "killed"),)), "not a general"),
        (result((W, L), individuals=(IndividualFate("g-b", "eaten"),)), "not killed or fled"),
        (result((W, W)), "cannot both hold"),
        (
            result((W, L), UnitLoss("u", killed=10), individuals=(IndividualFate("g-r", "fled"),)),
            "no figures left",
        ),
        (BattleResult("b1", wiped="a", ended_by_storm=True), "storm"),
    ],
)
def test_invalid_results_are_refused_before_any_die(res, message):
    s = state_with(force("r", "red", (3, 3), unit("u")), force("b", "blue", (3, 3), unit("v")))
    s = replace(s, pending_battles=(battle(s, (3, 3), ["r"], ["b"]),), phase="battles")
    d = ScriptedDice([])
    with pytest.raises(InvalidResult, match=message):
        after_battle.resolve(s, {"b1": res}, d)
    assert d.ledger == []


def test_english_method_needs_entered_outcomes():
    s = state_with(
        force("r", "red", (3, 3), unit("u")),
        force("b", "blue", (3, 3), unit("v")),
        options=Options(battle_result_method="english"),
    )
    s = replace(s, pending_battles=(battle(s, (3, 3), ["r"], ["b"]),), phase="battles")
    with pytest.raises(InvalidResult, match="English method"):
        after_battle.resolve(s, {"b1": BattleResult("b1")}, ScriptedDice([]))


def test_core_method_without_outcomes_or_wipe_is_a_stalemate_and_wiped_side_loses():
    s = state_with(force("r", "red", (3, 3), unit("u")), force("b", "blue", (3, 3), unit("v")))
    b = battle(s, (3, 3), ["r"], ["b"])
    assert after_battle.validate_result(s, b, BattleResult("b1")) == {"a": S, "b": S}
    wiped = BattleResult("b1", wiped="b", units=(UnitLoss("v", killed=10),))
    assert after_battle.validate_result(s, b, wiped) == {"a": W, "b": L}
