"""Phase 2 — movement (§6): initiative, movement, zones of control, contact, countermarch,
capture, sack, field works, and the order checks that feed it (validate_orders, legal_moves).

Every test scripts each die the phase rolls, in order: initiative (forces in state order, then
tie re-rolls), then one movement roll per moving force in initiative order."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.dice import ScriptedDice, SeededDice
from rules.events import (
    ContactMade,
    ForceCountermarched,
    ForceDestroyed,
    ForceHeldByStorm,
    ForceMoved,
    ForceStopped,
    HoldingCaptured,
    HoldingSacked,
    InitiativeDetermined,
    MovementRolled,
    OrderRefused,
    OrdersMissing,
    ShatteredForceCollapsed,
    WorksLost,
)
from rules.orders import (
    CountermarchWhen,
    ForceOrders,
    PlayerOrders,
    ZocPolicy,
    legal_moves,
    validate_orders,
)
from rules.phases import movement
from rules.turn import resolve_turn
from rules.types import (
    CampaignState,
    Command,
    Coord,
    Feature,
    Force,
    GameMap,
    General,
    Holding,
    Options,
    Player,
    Quality,
    Speciality,
    Status,
    Unit,
    Weather,
)

# --- builders ---------------------------------------------------------------------------------


def force(
    fid: str,
    owner: str,
    square: Coord,
    status: Status = Status.PROBE,
    *,
    cv: int = 3,
    figures: int = 10,
    ppf: int = 0,
    **kw,
) -> Force:
    unit = Unit(f"{fid}-u1", "spears", Speciality.INFANTRY, Quality.AVERAGE, figures, ppf)
    return Force(
        fid, owner, square, status, (Command(f"{fid}-c", General(f"{fid}-g", cv), (unit,)),), **kw
    )


def campaign(
    *forces: Force,
    size: tuple[int, int] = (8, 5),
    players: tuple[tuple[str, str], ...] = (("red", "west"), ("blue", "east")),
    holdings: tuple[Holding, ...] = (),
    features: dict | None = None,
    **kw,
) -> CampaignState:
    return CampaignState(
        turn=1,
        day=0,
        map=GameMap(size[0], size[1], features or {}),
        players=tuple(Player(pid, side) for pid, side in players),
        holdings=holdings,
        forces=forces,
        **kw,
    )


def orders(**by_player: dict[str, ForceOrders] | PlayerOrders) -> dict[str, PlayerOrders]:
    """orders(red={"r1": ForceOrders(...)}, blue={}) → PlayerOrders per player."""
    out = {}
    for pid, fos in by_player.items():
        if isinstance(fos, PlayerOrders):
            out[pid] = fos
        else:
            out[pid] = PlayerOrders(
                pid, {fid: replace(fo, force_id=fid) for fid, fo in fos.items()}
            )
    return out


def fo(*path: Coord, **kw) -> ForceOrders:
    return ForceOrders("", path=tuple(path), **kw)


def run(state: CampaignState, turn_orders: dict, dice: list[int]):
    d = ScriptedDice(dice)
    new, events = movement.resolve(replace(state, orders=turn_orders), d)
    d.assert_exhausted()
    return new, events, d


def of(events, kind) -> list:
    return [e for e in events if isinstance(e, kind)]


def squares(state: CampaignState) -> dict[str, Coord]:
    return {f.id: f.square for f in state.forces}


# --- §6.1 initiative --------------------------------------------------------------------------


def test_initiative_by_force_highest_first_and_winner_recorded():
    st = campaign(
        force("r1", "red", (0, 0), Status.DEFEND), force("b1", "blue", (7, 4), Status.DEFEND)
    )
    new, events, d = run(st, orders(red={}, blue={}), [2, 5])  # r1 2+3=5, b1 5+3=8
    assert of(events, InitiativeDetermined) == [InitiativeDetermined("by-force", ("b1", "r1"))]
    assert new.initiative_winner == "blue"
    assert [r.purpose for r in d.ledger] == ["movement:initiative-r1", "movement:initiative-b1"]
    assert d.ledger[0].total == 5 and d.ledger[0].rule == "R6.1.3"


def test_initiative_tied_forces_reroll_among_themselves_until_settled():
    st = campaign(
        force("r1", "red", (0, 0), Status.DEFEND),
        force("r2", "red", (0, 2), Status.DEFEND),
        force("b1", "blue", (7, 4), Status.DEFEND),
    )
    # all three total 7 (R6.1.5): each tied force re-rolls; r1 3, r2 1, b1 3; r1 and b1
    # are still tied across players and roll again: 2 < 5
    new, events, d = run(st, orders(red={}, blue={}), [4, 4, 4, 3, 1, 3, 2, 5])
    assert of(events, InitiativeDetermined)[0].order == ("b1", "r1", "r2")
    assert [r.purpose for r in d.ledger[3:]] == [
        "movement:initiative-r1",
        "movement:initiative-r2",
        "movement:initiative-b1",
        "movement:initiative-r1",
        "movement:initiative-b1",
    ]
    assert {r.rule for r in d.ledger[3:]} == {"R6.1.5"}
    assert new.initiative_winner == "blue"


def test_a_players_own_tied_results_need_no_dice():
    st = campaign(
        force("r1", "red", (0, 0), Status.DEFEND),
        force("r2", "red", (0, 2), Status.DEFEND),
        force("b1", "blue", (7, 4), Status.DEFEND),
    )
    _, events, _ = run(st, orders(red={}, blue={}), [4, 4, 2])
    assert of(events, InitiativeDetermined)[0].order == ("r1", "r2", "b1")


def test_standing_orders_place_counters_by_priority_and_preference():
    # r1 9, b1 6, r2 4. Red's first serve goes to r2 (priority list), early; blue's to b1;
    # red's second serve to r1, which prefers to move late (R6.1.5).
    st = campaign(
        force("r1", "red", (0, 0), Status.DEFEND),
        force("b1", "blue", (7, 4), Status.DEFEND),
        force("r2", "red", (0, 2), Status.DEFEND),
    )
    red = PlayerOrders(
        "red", {"r1": ForceOrders("r1", initiative="late")}, initiative_priority=("r2",)
    )
    _, events, _ = run(st, orders(red=red, blue={}), [6, 3, 1])
    assert of(events, InitiativeDetermined)[0].order == ("r2", "b1", "r1")


def test_roller_force_binding_ignores_standing_orders():
    st = campaign(
        force("r1", "red", (0, 0), Status.DEFEND),
        force("b1", "blue", (7, 4), Status.DEFEND),
        force("r2", "red", (0, 2), Status.DEFEND),
        options=Options(initiative_counter_binding="roller-force"),
    )
    red = PlayerOrders(
        "red", {"r1": ForceOrders("r1", initiative="late")}, initiative_priority=("r2",)
    )
    _, events, _ = run(st, orders(red=red, blue={}), [6, 3, 1])
    assert of(events, InitiativeDetermined)[0].order == ("r1", "b1", "r2")


def test_initiative_by_army_winner_moves_all_forces_first():
    st = campaign(
        force("r1", "red", (0, 0), Status.DEFEND),
        force("b1", "blue", (7, 4), Status.DEFEND),
        force("r2", "red", (0, 2), Status.DEFEND),
        force("b2", "blue", (7, 2), Status.DEFEND),
        options=Options(initiative_method="by-army"),
    )
    # one die per player (R6.1.1): red 3, blue 3 tie; re-roll red 2, blue 6
    new, events, d = run(st, orders(red={}, blue={}), [3, 3, 2, 6])
    assert of(events, InitiativeDetermined) == [
        InitiativeDetermined("by-army", ("b1", "b2", "r1", "r2"))
    ]
    assert new.initiative_winner == "blue"
    assert [r.purpose for r in d.ledger] == [
        "movement:initiative-red",
        "movement:initiative-blue",
    ] * 2


# --- §6.4 movement duties ---------------------------------------------------------------------


def test_full_speed_without_a_path_still_moves_one_square():
    # A-11 [SR]: outside enemy zones, nearest its own capital (0,2), then lowest (y, x).
    cap = Holding("rc", (0, 2), "red", "red", capital=True)
    st = campaign(
        force("r1", "red", (2, 2), Status.FULL_SPEED),
        force("b1", "blue", (7, 0), Status.DEFEND),
        holdings=(cap,),
    )
    new, events, _ = run(st, orders(red={}, blue={}), [6, 1, 5])  # allowance 5+2 → 2
    assert squares(new)["r1"] == (1, 1)
    assert of(events, ForceMoved) == [ForceMoved("r1", ((1, 1),))]


def test_full_speed_with_allowance_zero_stays():
    st = campaign(
        force("r1", "red", (2, 2), Status.FULL_SPEED),
        force("b1", "blue", (7, 0), Status.DEFEND),
        features={(2, 2): frozenset({Feature.FOREST})},
    )
    new, events, _ = run(st, orders(red={"r1": fo((3, 2))}, blue={}), [6, 1, 1])  # 1+2-2=1
    assert of(events, MovementRolled)[0].allowance == 0
    assert squares(new)["r1"] == (2, 2)
    assert not of(events, ForceMoved)


def test_probe_moves_its_path_up_to_the_allowance_only():
    st = campaign(force("r1", "red", (0, 0)), force("b1", "blue", (7, 4), Status.DEFEND))
    new, _, _ = run(st, orders(red={"r1": fo((1, 0), (2, 0), (3, 0))}, blue={}), [6, 1, 4])
    assert squares(new)["r1"] == (1, 0)  # 4 → 1 square


def test_defend_never_rolls_nor_moves_even_with_a_path():
    st = campaign(
        force("r1", "red", (0, 0), Status.DEFEND), force("b1", "blue", (7, 4), Status.DEFEND)
    )
    new, events, _ = run(st, orders(red={"r1": fo((1, 0))}, blue={}), [6, 1])
    assert squares(new)["r1"] == (0, 0)
    assert not of(events, MovementRolled)


def test_missing_orders_hold_every_force_of_that_player():
    st = campaign(
        force("r1", "red", (0, 0), Status.FULL_SPEED),
        force("r2", "red", (0, 3), Status.DEFEND),
        force("b1", "blue", (7, 4)),
    )
    new, events, _ = run(st, orders(blue={"b1": fo((6, 4))}), [6, 1, 2, 4])
    assert of(events, OrdersMissing) == [OrdersMissing("r1", "red"), OrdersMissing("r2", "red")]
    assert squares(new) == {"r1": (0, 0), "r2": (0, 3), "b1": (6, 4)}


@pytest.mark.parametrize(
    ("path", "stop_at"),
    [
        (((-1, 0),), (0, 0)),  # leaves the map (R6.4.7)
        (((1, 0), (3, 0)), (1, 0)),  # not adjacent (R6.4.2)
    ],
)
def test_an_illegal_step_stops_the_force_before_it(path, stop_at):
    st = campaign(force("r1", "red", (0, 0)), force("b1", "blue", (7, 4), Status.DEFEND))
    new, events, _ = run(st, orders(red={"r1": fo(*path)}, blue={}), [6, 1, 6])
    assert squares(new)["r1"] == stop_at
    assert of(events, ForceStopped) == [ForceStopped("r1", stop_at, "illegal-step", "R6.4.7")]


def test_rivers_only_at_crossings_stops_at_the_bank():
    st = campaign(
        force("r1", "red", (0, 0)),
        force("b1", "blue", (7, 4), Status.DEFEND),
        features={(1, 0): frozenset({Feature.RIVER})},
        options=Options(rivers_only_at_crossings=True),
    )
    new, _, _ = run(st, orders(red={"r1": fo((1, 0), (2, 0))}, blue={}), [6, 1, 6])
    assert squares(new)["r1"] == (0, 0)


def test_storm_for_one_force_holds_only_that_force():
    st = campaign(
        force("r1", "red", (0, 0)),
        force("b1", "blue", (7, 4)),
        weather=Weather.FINE,
        force_weather={"r1": Weather.STORM},
    )
    turn = orders(
        red={"r1": fo((1, 0), countermarch=CountermarchWhen.ALWAYS)}, blue={"b1": fo((6, 4))}
    )
    new, events, _ = run(st, turn, [6, 1, 4])
    assert of(events, ForceHeldByStorm) == [ForceHeldByStorm("r1")]
    assert squares(new) == {"r1": (0, 0), "b1": (6, 4)}
    assert new.force("r1").status is Status.PROBE  # no countermarch either


# --- §6.6 zones of control, §6.7 contact ------------------------------------------------------


def test_allied_zones_never_hinder():
    st = campaign(
        force("r1", "red", (0, 1)),
        force("g1", "green", (2, 2), Status.DEFEND),
        force("b1", "blue", (7, 4), Status.DEFEND),
        players=(("red", "west"), ("green", "west"), ("blue", "east")),
    )
    turn = orders(red={"r1": fo((1, 1), (2, 1))}, green={}, blue={})
    new, events, _ = run(st, turn, [6, 1, 2, 6])
    assert squares(new)["r1"] == (2, 1)
    assert not of(events, ForceStopped)


def test_starting_in_an_enemy_zone_the_force_may_leave_it():
    st = campaign(force("r1", "red", (2, 1)), force("b1", "blue", (3, 1), Status.DEFEND))
    new, events, _ = run(st, orders(red={"r1": fo((1, 1), (0, 1))}, blue={}), [6, 1, 6])
    assert squares(new)["r1"] == (0, 1)
    assert not of(events, ForceStopped)


def test_moving_between_squares_of_one_enemy_zone_counts_as_entering():
    st = campaign(force("r1", "red", (2, 1)), force("b1", "blue", (3, 1), Status.DEFEND))
    new, events, _ = run(st, orders(red={"r1": fo((2, 2), (2, 3))}, blue={}), [6, 1, 6])
    assert squares(new)["r1"] == (2, 2)
    assert of(events, ForceStopped)[0].reason == "enemy-zoc"


def test_engage_needs_one_square_left():
    st = campaign(force("r1", "red", (0, 1)), force("b1", "blue", (3, 1), Status.DEFEND))
    turn = orders(red={"r1": fo((1, 1), (2, 1), zoc=ZocPolicy.ENGAGE)}, blue={})
    new, events, _ = run(st, turn, [6, 1, 6])  # 2 squares: reaches (2,1) with none left
    assert squares(new)["r1"] == (2, 1)
    assert of(events, ForceStopped)[0].reason == "enemy-zoc"
    assert not new.pending_battles


def test_engage_prefers_the_enemy_on_its_path_then_the_strongest():
    def setup():
        return campaign(
            force("r1", "red", (0, 2), Status.FULL_SPEED),
            force("weak", "blue", (2, 1), Status.DEFEND, ppf=1),
            force("strong", "blue", (2, 3), Status.DEFEND, ppf=9),
        )

    dice = [6, 1, 1, 5]  # initiative r1 9, weak 4, strong 4 (same player: no dice); 7 → 2
    on_path = orders(red={"r1": fo((1, 2), (2, 1), zoc=ZocPolicy.ENGAGE)}, blue={})
    new, _, _ = run(setup(), on_path, dice)
    assert squares(new)["r1"] == (2, 1)
    elsewhere = orders(red={"r1": fo((1, 2), (0, 2), zoc=ZocPolicy.ENGAGE)}, blue={})
    new, _, _ = run(setup(), elsewhere, dice)
    assert squares(new)["r1"] == (2, 3)
    assert [f.force_id for f in new.pending_battles[0].pack.sides[1].forces] == ["strong"]


def test_contacts_are_numbered_in_the_order_they_occur():
    st = campaign(
        force("r1", "red", (1, 0)),
        force("b1", "blue", (2, 0)),
        force("r2", "red", (1, 4)),
        force("b2", "blue", (2, 4)),
    )
    turn = orders(red={"r1": fo((2, 0)), "r2": fo((2, 4))}, blue={"b1": fo((1, 0))})
    # initiative: r1 5, b1 4, r2 6, b2 4 → r2, r1, b1, b2; r2 and r1 move 1 square each
    new, events, _ = run(st, turn, [2, 1, 3, 1, 4, 4])
    assert [(b.battle_id, b.square, b.contact_order) for b in new.pending_battles] == [
        ("t1-b1", (2, 4), 1),
        ("t1-b2", (2, 0), 2),
    ]
    assert [e.battle_id for e in of(events, ContactMade)] == ["t1-b1", "t1-b2"]
    assert new.pending_battles[0].pack.sides[0].forces[0].entered_from == (1, 4)


def test_square_of_two_hostile_sides_cannot_be_entered():
    # b1 and k1 start in one square: still in action, their battle is the first contact
    # [SR]; red may not enter a square of two hostile sides [SR] and stops before it.
    st = campaign(
        force("r1", "red", (2, 1)),
        force("b1", "blue", (3, 1)),
        force("k1", "black", (3, 1)),
        players=(("red", "west"), ("blue", "east"), ("black", "north")),
    )
    turn = orders(red={"r1": fo((3, 1))}, blue={"b1": fo((4, 1))}, black={"k1": fo((4, 2))})
    new, events, _ = run(st, turn, [6, 1, 2, 4])  # only r1 rolls movement
    assert squares(new) == {"r1": (2, 1), "b1": (3, 1), "k1": (3, 1)}
    assert of(events, ForceStopped) == [
        ForceStopped("r1", (2, 1), "two-hostile-sides", "R6.7.7 [SR]")
    ]
    [battle] = new.pending_battles
    assert battle.battle_id == "t1-b1" and battle.square == (3, 1)
    assert [s.side for s in battle.pack.sides] == ["east", "north"]


def test_a_shattered_mover_that_contacts_the_enemy_collapses():
    st = campaign(
        force("r1", "red", (1, 1), Status.SHATTERED), force("b1", "blue", (2, 1), Status.DEFEND)
    )
    new, events, _ = run(st, orders(red={"r1": fo((2, 1))}, blue={}), [6, 1, 6])  # 6-2 → 1
    assert [f.id for f in new.forces] == ["b1"]
    assert of(events, ShatteredForceCollapsed) == [
        ShatteredForceCollapsed("r1", "red", "b1", (2, 1))
    ]
    assert of(events, ForceDestroyed)[0].rule == "R6.7.8"
    assert not new.pending_battles
    assert new.wtf_triggers["red"] == ("all-forces-lost",)  # R9.1.1: it was his last force


def test_the_contacted_force_in_a_mixed_stack_fights_while_the_shattered_one_collapses():
    st = campaign(
        force("r1", "red", (1, 1)),
        force("b1", "blue", (2, 1), Status.SHATTERED),
        force("b2", "blue", (2, 1), Status.DEFEND),
    )
    new, events, _ = run(st, orders(red={"r1": fo((2, 1))}, blue={}), [6, 1, 1, 4])
    assert [f.id for f in new.forces] == ["r1", "b2"]
    assert [f.force_id for f in new.pending_battles[0].pack.sides[1].forces] == ["b2"]
    assert of(events, ContactMade)[0].enemy_ids == ("b2",)


def test_forces_starting_in_action_fight_again_and_a_shattered_one_collapses():
    # [SR] R5.3.1: sharing a square with an enemy at the start of the phase is a contact.
    st = campaign(
        force("r1", "red", (2, 1)),
        force("r2", "red", (2, 1), Status.SHATTERED),
        force("b1", "blue", (2, 1)),
    )
    turn = orders(red={"r1": fo((1, 1))}, blue={"b1": fo((3, 1))})
    new, events, _ = run(st, turn, [6, 1])  # r2 collapsed first; r1, b1 roll no movement
    assert [f.id for f in new.forces] == ["r1", "b1"]
    assert of(events, ShatteredForceCollapsed)[0].force_id == "r2"
    [battle] = new.pending_battles
    assert battle.square == (2, 1)
    assert [[f.force_id for f in s.forces] for s in battle.pack.sides] == [["r1"], ["b1"]]


# --- §7.10.5 ambush / §7.10.4 flank attack ----------------------------------------------------


def ambush_state(**options) -> CampaignState:
    return campaign(
        force("r1", "red", (1, 1), Status.FULL_SPEED),
        force("b1", "blue", (3, 2), Status.DEFEND),
        options=Options(**options),
    )


AMBUSH_ORDERS = orders(red={"r1": fo((2, 1), (3, 1))}, blue={"b1": fo(ambush=True)})


def test_no_ambush_without_special_scenarios():
    new, _, _ = run(ambush_state(), AMBUSH_ORDERS, [6, 1, 5])
    assert squares(new) == {"r1": (2, 1), "b1": (3, 2)}
    assert not new.pending_battles


def test_no_ambush_of_a_force_that_is_not_on_full_speed():
    st = ambush_state(special_scenarios=True)
    st = st.replace_force(replace(st.force("r1"), status=Status.PROBE))
    new, _, _ = run(st, AMBUSH_ORDERS, [6, 1, 6])
    assert squares(new) == {"r1": (2, 1), "b1": (3, 2)}


def test_ambusher_with_field_works_loses_them_when_it_strikes():
    st = ambush_state(special_scenarios=True)
    st = st.replace_force(replace(st.force("b1"), works_quota=10, works_square=(3, 2)))
    new, events, _ = run(st, AMBUSH_ORDERS, [6, 1, 5])
    assert squares(new) == {"r1": (2, 1), "b1": (2, 1)}
    assert WorksLost("b1") in events
    pack = new.pending_battles[0].pack
    assert pack.scenario == "ambush"
    assert [s.role for s in pack.sides] == ["ambusher", "ambushed"]
    # the ambusher is on Defend in a new square: a new quota (R7.8.6)
    assert new.force("b1").works_square == (2, 1)


def flank_state() -> CampaignState:
    return campaign(
        force("r1", "red", (2, 1)),
        force("b1", "blue", (3, 1)),
        options=Options(special_scenarios=True),
    )


def test_flank_attack_needs_an_attacker_that_has_not_moved():
    turn = orders(
        red={"r1": fo(countermarch=CountermarchWhen.ALWAYS)},
        blue={"b1": fo(flank_attack=True)},
    )
    # b1 moves first (0 squares), so when r1 countermarches b1 has already moved
    new, events, _ = run(flank_state(), turn, [1, 6, 2, 2])
    assert of(events, ForceCountermarched)
    assert not new.pending_battles


# --- §6.5 countermarch ------------------------------------------------------------------------


def test_countermarch_goes_to_the_square_farthest_from_the_enemy():
    st = campaign(force("r1", "red", (2, 2)), force("b1", "blue", (3, 2), Status.DEFEND))
    turn = orders(red={"r1": fo(countermarch=CountermarchWhen.ALWAYS)}, blue={})
    new, events, _ = run(st, turn, [6, 1, 2])
    assert of(events, ForceCountermarched) == [
        ForceCountermarched("r1", (2, 2), (1, 1), "probe", "confused")
    ]
    assert new.force("r1").square == (1, 1)


@pytest.mark.parametrize(
    ("before", "after"), [(Status.CONFUSED, Status.UNSTEADY), (Status.UNSTEADY, Status.SHATTERED)]
)
def test_countermarch_escalates_reactions(before, after):
    st = campaign(force("r1", "red", (2, 2), before), force("b1", "blue", (7, 4), Status.DEFEND))
    turn = orders(
        red={"r1": fo(countermarch=CountermarchWhen.ALWAYS, countermarch_square=(2, 3))}, blue={}
    )
    new, _, _ = run(st, turn, [6, 1, 2])
    assert new.force("r1").status is after and new.force("r1").square == (2, 3)


def test_no_countermarch_for_shattered_or_in_contact_or_when_not_in_a_zone():
    st = campaign(
        force("s1", "red", (0, 0), Status.SHATTERED),
        force("r1", "red", (2, 2)),
        force("r2", "red", (0, 4)),
        force("b1", "blue", (3, 2), Status.DEFEND),
    )
    cm = CountermarchWhen
    turn = orders(
        red={
            "s1": fo(countermarch=cm.ALWAYS),
            "r1": fo((3, 2), countermarch=cm.ALWAYS),  # contact: movement over
            "r2": fo(countermarch=cm.IF_STOPPED_IN_ZOC),  # not in any zone
        },
        blue={},
    )
    new, events, _ = run(st, turn, [6, 5, 4, 1, 6, 6, 6])
    assert not of(events, ForceCountermarched)
    assert new.force("s1").status is Status.SHATTERED
    assert new.force("r1").square == (3, 2)


# --- §6.8 capture -----------------------------------------------------------------------------


def test_capture_triggers_will_to_fight_for_the_loser_only_for_enemy_holdings():
    hs = (
        Holding("v1", (1, 0), "blue", "blue"),
        Holding("g1", (1, 4), "green", "green"),
    )
    st = campaign(
        force("r1", "red", (0, 0)),
        force("r2", "red", (0, 4)),
        force("b1", "blue", (7, 2), Status.DEFEND),
        players=(("red", "west"), ("green", "west"), ("blue", "east")),
        holdings=hs,
    )
    turn = orders(red={"r1": fo((1, 0)), "r2": fo((1, 4))}, blue={}, green={})
    new, events, _ = run(st, turn, [6, 5, 1, 4, 4])
    assert {h.id: h.owner for h in new.holdings} == {"v1": "red", "g1": "green"}
    assert of(events, HoldingCaptured) == [HoldingCaptured("v1", "red", "blue", "r1", False)]
    assert new.wtf_triggers == {"blue": ("holding-lost",)}


def test_no_capture_when_an_enemy_force_holds_the_square():
    st = campaign(
        force("r1", "red", (0, 0)),
        force("b1", "blue", (1, 0), Status.DEFEND),
        holdings=(Holding("v1", (1, 0), "blue", "blue"),),
    )
    new, events, _ = run(st, orders(red={"r1": fo((1, 0))}, blue={}), [6, 1, 4])
    assert new.holdings[0].owner == "blue"
    assert not of(events, HoldingCaptured)
    assert len(new.pending_battles) == 1


def test_a_countermarch_can_capture():
    st = campaign(
        force("r1", "red", (2, 2)),
        force("b1", "blue", (3, 2), Status.DEFEND),
        holdings=(Holding("v1", (1, 1), "blue", "blue"),),
    )
    turn = orders(red={"r1": fo(countermarch=CountermarchWhen.ALWAYS)}, blue={})
    new, _, _ = run(st, turn, [6, 1, 2])
    assert new.holdings[0].owner == "red"


# --- §11.6 sack, R7.8.5 field works -----------------------------------------------------------


def sack_state(status: Status = Status.PROBE, scenario: str | None = "incursion") -> CampaignState:
    st = campaign(
        force("r1", "red", (1, 1), status),
        force("b1", "blue", (7, 4), Status.DEFEND),
        holdings=(Holding("v1", (1, 1), "red", "blue"),),
        scenario=scenario,
    )
    # §11.6: only the Raiders carry off loot
    roles = {"red": "raiders", "blue": "defenders"}
    return replace(st, players=tuple(replace(p, role=roles[p.id]) for p in st.players))


def test_sack_is_declared_before_moving_and_the_loot_travels():
    turn = orders(red={"r1": fo((0, 1), sack=True)}, blue={})
    new, events, _ = run(sack_state(), turn, [6, 1, 4])
    assert events.index(HoldingSacked("v1", "r1")) < events.index(of(events, MovementRolled)[0])
    v1 = new.holdings[0]
    assert v1.sacked and v1.carried_by == "r1"
    assert new.force("r1").loot == ("v1",) and new.force("r1").square == (0, 1)


@pytest.mark.parametrize(
    ("status", "scenario"), [(Status.FULL_SPEED, "incursion"), (Status.PROBE, None)]
)
def test_sack_is_refused_under_full_speed_or_outside_the_incursion(status, scenario):
    turn = orders(red={"r1": fo(sack=True)}, blue={})
    new, events, _ = run(sack_state(status, scenario), turn, [6, 1, 1])
    assert of(events, OrderRefused)[0].rule == "§11.6"
    assert not new.holdings[0].sacked and new.force("r1").loot == ()


def test_a_force_leaving_its_square_loses_its_field_works():
    st = campaign(
        force("r1", "red", (1, 1), works_quota=10, works_square=(1, 1)),
        force("r2", "red", (1, 3), works_quota=10, works_square=(1, 3)),
        force("b1", "blue", (7, 4), Status.DEFEND),
    )
    new, events, _ = run(st, orders(red={"r1": fo((2, 1))}, blue={}), [6, 5, 1, 4, 1])
    assert (new.force("r1").works_quota, new.force("r1").works_square) == (None, None)
    assert new.force("r2").works_quota == 10  # it did not move
    assert of(events, WorksLost) == [WorksLost("r1")]


# --- the phase as a whole ---------------------------------------------------------------------


def test_the_input_state_is_untouched_and_seeded_runs_repeat():
    st = campaign(
        force("r1", "red", (1, 1), Status.FULL_SPEED),
        force("b1", "blue", (3, 1)),
        force("b2", "blue", (5, 3)),
    )
    turn = orders(
        red={"r1": fo((2, 1), (3, 1), zoc=ZocPolicy.ENGAGE)},
        blue={"b2": fo((4, 3), countermarch=CountermarchWhen.ALWAYS)},
    )
    a = movement.resolve(replace(st, orders=turn), SeededDice(7))
    b = movement.resolve(replace(st, orders=turn), SeededDice(7))
    assert a[1] == b[1] and a[0] == b[0]
    assert squares(st) == {"r1": (1, 1), "b1": (3, 1), "b2": (5, 3)}


def test_resolve_turn_hands_the_battles_over():
    st = campaign(force("r1", "red", (1, 1)), force("b1", "blue", (2, 1), Status.DEFEND))
    d = ScriptedDice([6, 1, 4])
    out = resolve_turn(st, orders(red={"r1": fo((2, 1))}, blue={}), d)
    d.assert_exhausted()
    assert out.state.phase == "battles"
    assert out.pending_battles == out.state.pending_battles
    assert out.pending_battles[0].battle_id == "t1-b1"


# --- validate_orders / legal_moves ------------------------------------------------------------


def test_legal_moves_reach_three_king_moves_and_none_for_defend():
    st = campaign(
        force("r1", "red", (0, 0)), force("b1", "blue", (7, 4), Status.DEFEND), size=(10, 10)
    )
    moves = legal_moves(st, st.force("r1"))
    assert moves == {(x, y) for x in range(4) for y in range(4)} - {(0, 0)}
    assert legal_moves(st, st.force("b1")) == set()


def test_legal_moves_respect_river_crossings_option():
    st = campaign(
        force("r1", "red", (0, 0)),
        force("b1", "blue", (7, 4), Status.DEFEND),
        features={(1, 0): frozenset({Feature.RIVER})},
        options=Options(rivers_only_at_crossings=True),
    )
    assert (1, 0) not in legal_moves(st, st.force("r1"))


@pytest.mark.parametrize(
    ("fid", "orders_", "code"),
    [
        ("r1", fo((1, 0), (3, 0)), "not-adjacent"),
        ("r1", fo((-1, 0)), "off-map"),
        ("rd", fo((1, 2)), "defend-path"),
        ("rl", fo(change_to=Status.FULL_SPEED), "loot-full-speed"),
        ("b1", fo(), "not-your-force"),
        ("zz", fo(), "unknown-force"),
    ],
)
def test_validate_orders_error_codes(fid, orders_, code):
    st = campaign(
        force("r1", "red", (0, 0)),
        force("rd", "red", (0, 2), Status.DEFEND),
        force("rl", "red", (0, 4), loot=("v9",)),
        force("b1", "blue", (7, 4)),
    )
    po = PlayerOrders("red", {fid: replace(orders_, force_id=fid)})
    errors = validate_orders(st, "red", po)
    assert [e.code for e in errors] == [code]
    assert errors[0].force_id == fid


def test_validate_orders_accepts_a_legal_path():
    st = campaign(force("r1", "red", (0, 0)), force("b1", "blue", (7, 4)))
    po = PlayerOrders("red", {"r1": ForceOrders("r1", path=((1, 1), (2, 2), (3, 2)))})
    assert validate_orders(st, "red", po) == []
