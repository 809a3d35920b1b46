"""The seam between the database and the rules state (`campaign.adapters`): a state survives
the round trip through the rows unchanged, a changed state is written back exactly, and the
queries of a whole turn do not grow with the number of forces."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from battles.models import Battle
from battles.services import battle_result_record
from campaign import adapters, state_rows
from campaign.adapters import state_current
from campaign.models import Command, Force, Holding, Individual, Turn, Unit
from campaign.selectors import turn_current
from campaign.setup.services import campaign_create
from campaign.turns.services import turn_close, turn_resolve, turn_resolve_after_battles
from rules import types as R
from rules.battle import BattleResult
from rules.codec import from_data, to_data
from rules.dice import SeededDice, derive_seed
from rules.generate import generate_campaign, generate_orders
from rules.turn import resolve_after_battles, resolve_turn
from tests.campaign.conftest import battle_result_data

pytestmark = pytest.mark.django_db

SMALL = {"forces": 10, "players": 4, "width": 8, "height": 8, "units_per_force": 3, "seed": 1}


def _generated(**kw) -> R.CampaignState:
    return generate_campaign(**{**SMALL, **kw})


def _persistent(state: R.CampaignState) -> dict:
    """The part of a state that lives in the campaign's rows (not the turn's carry)."""
    return to_data(
        replace(state, phase="orders", orders={}, pending_battles=(), moves={}, wtf_triggers={})
    )


def _evolved(state: R.CampaignState) -> R.CampaignState:
    """`state` after a made-up eventful turn: every kind of change `state_save` must write."""
    f1, f2, f5, f6 = (state.force(fid) for fid in ("f1", "f2", "f5", "f6"))
    x, y = f1.square
    moved = replace(
        f1,
        square=(x + 1 if x + 1 < state.map.width else x - 1, y),
        status=R.Status.SHATTERED,
        loot=("h3-2",),
        works_quota=3,
        works_square=f1.square,
        figures_lost=7,
        tokens={"spirit": 2},
        leader_id="f1g1",
    )
    c2 = f2.commands[0]
    battered = replace(
        f2,
        commands=(
            replace(
                c2,
                units=(replace(c2.units[0], figures=c2.units[0].figures - 3), c2.units[2]),
            ),
        ),
        individuals=(),  # its hero fell
        figures_lost=9,
    )
    # f6's first unit joins f5 under a new general; f6 keeps the rest
    c6 = f6.commands[0]
    joined = replace(
        f5,
        commands=(
            *f5.commands,
            R.Command("n2c1", R.General("n2g1", 4, name="Ardo", points=60), (c6.units[0],)),
        ),
        regroup_pool={"infantry": 12},
    )
    left = replace(f6, commands=(replace(c6, units=c6.units[1:]),))
    capital = next(h for h in state.holdings if h.id == "h1-1")
    new_force = R.Force(
        "n1",
        "p1",
        capital.square,
        R.Status.DEFEND,
        (
            R.Command(
                "n1c1",
                R.General("n1g1", 3, name="Reinforcement general", points=50, mounted=True),
                (
                    R.Unit(
                        "n1u1",
                        "veteran cavalry",
                        R.Speciality.CAVALRY,
                        R.Quality.VETERAN,
                        12,
                        8,
                        mounted=True,
                    ),
                    R.Unit(
                        "n1u2",
                        "levy missile",
                        R.Speciality.MISSILE,
                        R.Quality.LEVY,
                        20,
                        4,
                        mercenary=True,
                        missile=True,
                    ),
                ),
            ),
            R.Command("n1c2", None, ()),
        ),
        individuals=(R.Individual("n1i1", R.IndividualKind.WIZARD, "Mage", 60, False, 3),),
        name="Reinforcements",
    )
    f4 = state.force("f4")
    leaderless = replace(f4, commands=(replace(f4.commands[0], general=None),))  # general fell
    by_id = {"f1": moved, "f2": battered, "f4": leaderless, "f5": joined, "f6": left}
    forces = [by_id.get(f.id, f) for f in state.forces if f.id != "f3"]  # f3 destroyed
    forces = [forces[-1], *forces[:-1], new_force]  # order changes too
    holdings = []
    for h in state.holdings:
        if h.id == "h2-1":
            h = replace(h, owner="p1", sacked=True)  # captured
        elif h.id == "h3-2":
            h = replace(h, owner="p1", carried_by="f1")
        elif h.id == "h4-3":
            h = replace(h, destroyed=True, artefacts_holder="p2", feature="shrine")
        holdings.append(h)
    players = tuple(replace(p, surrendered=True) if p.id == "p4" else p for p in state.players)
    return replace(
        state,
        turn=state.turn + 1,
        day=state.day + 1,
        players=players,
        holdings=tuple(holdings),
        forces=tuple(forces),
        options=replace(state.options, reinforcement_interval_days=1, terrain_attrition=True),
        weather=R.Weather.HEAVY_RAIN,
        force_weather={"f1": R.Weather.STORM},
        heavy_ground_now=True,
        snow=R.Snow(1, {(0, 0): 2}),
        bank={"p1": 35, "p3": 12},
        records={"p1": R.PlayerRecord(2, 0), "p3": R.PlayerRecord(0, 1)},
        initiative_winner="p2",
        next_id=state.next_id + 3,
    )


# --- round trips -------------------------------------------------------------------------------


def test_state_create_then_load_gives_the_same_state():
    state = _generated()
    campaign = campaign_create(slug="round-trip", name="Round trip", state=state)
    assert to_data(adapters.state_load(campaign=campaign)) == to_data(state)


def test_round_trip_keeps_every_field():
    """A state using every field the rows hold (not only what the generator fills in)."""
    state = _evolved(_generated())
    campaign = campaign_create(slug="rich", name="Rich", state=state)
    assert to_data(adapters.state_load(campaign=campaign)) == to_data(state)


@pytest.mark.parametrize("told", [False, True], ids=["compared", "told-what-it-was"])
def test_state_save_writes_an_eventful_turn_back(told):
    """Compared with every row, or told the state the rows hold (`before`: a force, command
    or unit that is the same object is unchanged, its parts' rows are not read)."""
    state = _generated()
    campaign = campaign_create(slug="eventful", name="Eventful", state=state)
    force_pks = dict(Force.objects.filter(campaign=campaign).values_list("key", "pk"))
    new = _evolved(state)

    adapters.state_save(campaign=campaign, state=new, before=state if told else None)

    assert to_data(adapters.state_load(campaign=campaign)) == to_data(new)
    # rows are updated in place, not replaced, and the dead are gone with their children
    kept = dict(Force.objects.filter(campaign=campaign).values_list("key", "pk"))
    assert {k: v for k, v in kept.items() if k in force_pks} == {
        k: v for k, v in force_pks.items() if k != "f3"
    }
    assert not Command.objects.filter(campaign=campaign, key__startswith="f3").exists()
    assert not Unit.objects.filter(campaign=campaign, key__startswith="f3").exists()
    assert not Individual.objects.filter(campaign=campaign, key__in=["f3i1", "f2i1"]).exists()
    assert not Unit.objects.filter(campaign=campaign, key="f2u2").exists()
    assert Unit.objects.get(campaign=campaign, key="f6u1").command.key == "n2c1"
    assert Holding.objects.get(campaign=campaign, key="h2-1").owner.key == "p1"

    # and back again: values cleared to None/empty, the destroyed force and units recreated
    adapters.state_save(campaign=campaign, state=state, before=new if told else None)
    assert to_data(adapters.state_load(campaign=campaign)) == to_data(state)


@pytest.mark.parametrize("told", [False, True], ids=["compared", "told-what-it-was"])
def test_a_command_that_leaves_a_force_that_is_gone_keeps_its_units(told):
    """Force f3 is gone and its first command, the very same object with its units, now
    serves f4: deleting f3's rows deletes that command's and its units' rows with them, so
    they are written again, whether the save compares every row or is told the state before."""
    state = _generated()
    campaign = campaign_create(slug="merged", name="Merged", state=state)
    f3, f4 = state.force("f3"), state.force("f4")
    merged = replace(f4, commands=(*f4.commands, f3.commands[0]))
    new = replace(
        state,
        forces=tuple(merged if f.id == "f4" else f for f in state.forces if f.id != "f3"),
    )

    adapters.state_save(campaign=campaign, state=new, before=state if told else None)

    assert to_data(adapters.state_load(campaign=campaign)) == to_data(new)
    moved = f3.commands[0]
    assert Command.objects.get(campaign=campaign, key=moved.id).force.key == "f4"
    assert Unit.objects.filter(campaign=campaign, command__key=moved.id).count() == len(moved.units)


@pytest.mark.parametrize("told", [False, True], ids=["compared", "told-what-it-was"])
def test_state_save_of_a_resolved_turn_then_load_gives_it_back(told):
    """A turn resolved by the rules engine (battles, losses, a force wiped out, a capture)."""
    state = _generated()
    campaign = campaign_create(slug="resolved", name="Resolved", state=state)
    out = resolve_turn(state, generate_orders(state, seed=1), SeededDice(1))
    results = {
        b.battle_id: battle_result_data(out.state, b.battle_id, wipe_loser=True)
        for b in out.state.pending_battles
    }
    assert results, "the generated campaign should produce at least one battle"
    after = resolve_after_battles(
        out.state,
        {k: from_data(BattleResult, {**v, "battle_id": k}) for k, v in results.items()},
        SeededDice(derive_seed(1, "after-battles")),
    ).state
    assert len(after.forces) < len(state.forces)
    assert any(h.owner != h0.owner for h, h0 in zip(after.holdings, state.holdings, strict=True)), (
        "the generated turn should capture a holding"
    )

    adapters.state_save(campaign=campaign, state=after, before=state if told else None)

    assert _persistent(adapters.state_load(campaign=campaign)) == _persistent(after)


def test_turn_carry_survives_between_the_two_resolutions(submit_orders):
    """Phases 0–2 through the services leave exactly the rules' state for Phases 4–8: the rows
    plus the turn's carry (orders, moves, triggers) and the pending battles."""
    state = _generated()
    campaign = campaign_create(slug="carry", name="Carry", state=state)
    submit_orders(campaign, seed=1)
    turn = turn_close(turn=turn_current(campaign=campaign), seed=1)
    turn_resolve(turn_id=turn.pk)

    expected = resolve_turn(state, generate_orders(state, seed=1), SeededDice(1)).state
    campaign.refresh_from_db()  # state_load reads the campaign row's fields from the instance
    loaded = adapters.state_load(campaign=campaign, turn=Turn.objects.get(pk=turn.pk))
    assert to_data(loaded) == to_data(expected)
    assert loaded.phase == "battles" and loaded.pending_battles


# --- queries ---------------------------------------------------------------------------------

LARGE = {"forces": 200, "players": 8, "width": 40, "height": 40, "units_per_force": 3, "seed": 1}
# Campaign-wide services of one turn: turn_close + turn_resolve + turn_resolve_after_battles.
# Measured on PostgreSQL inside the test transaction (SAVEPOINT/RELEASE count as queries),
# with the fog-of-war sightings (a DELETE and an upsert per resolution): 65 with 10 forces,
# 64 with 200 (the small one also captured a holding in Phase 2); since states are stored as
# deltas, 4 more (per resolution: the line's latest rows read, the map's upsert). The headroom
# is for a few more conditional writes, not for anything that grows with forces.
TURN_MAX = 74
RESULT_MAX = 15  # one battle_result_record call (measured 13), whatever the campaign's size
# The two sizes may differ only by conditional writes: `state_save` issues a DELETE, an INSERT
# or a bulk UPDATE on a table only when some row of it vanished, appeared or changed (a force
# destroyed, a holding captured, a record changed …). At most one of each per table per save.
MAX_DIFFERENCE = 6
SYNCED = {
    "campaign_player",
    "campaign_holding",
    "campaign_force",
    "campaign_command",
    "campaign_unit",
    "campaign_individual",
}


def _shape(queries: list[dict]) -> Counter:
    """(verb, table) of each query: `SELECT campaign_force`, `UPDATE campaign_unit` …"""
    shape = Counter()
    for q in queries:
        sql = q["sql"]
        verb = sql.split(None, 1)[0].upper() if sql.strip() else ""
        table = re.search(r'(?:FROM|INTO|UPDATE)\s+"(\w+)"', sql)
        shape[(verb, table.group(1) if table else "")] += 1
    return shape


def _measure_turn(make_campaign, submit_orders, django_assert_max_num_queries, params) -> dict:
    campaign = make_campaign(**params)
    submit_orders(campaign, seed=params["seed"])
    turn = turn_current(campaign=campaign)
    with django_assert_max_num_queries(TURN_MAX) as resolve:
        turn_close(turn=turn, seed=params["seed"])
        turn_resolve(turn_id=turn.pk)
    state = state_current(campaign=campaign)
    battles = list(Battle.objects.filter(turn=turn))
    results = []
    for battle in battles:
        data = battle_result_data(state, battle.key, wipe_loser=True)
        with django_assert_max_num_queries(RESULT_MAX) as one:
            battle_result_record(battle=battle, data=data)
        results.append(len(one))
    remaining = TURN_MAX - len(resolve)
    with django_assert_max_num_queries(remaining) as after:
        turn_resolve_after_battles(turn_id=turn.pk)
    forces_after = Force.objects.filter(campaign=campaign).count()
    return {
        "forces": params["forces"],
        "destroyed": params["forces"] - forces_after,
        "battles": len(battles),
        "resolve": resolve.captured_queries,
        "after": after.captured_queries,
        "results": results,
        "turn": len(resolve) + len(after),
        "whole_turn": len(resolve) + len(after) + sum(results),
    }


def test_turn_queries_do_not_grow_with_forces(
    make_campaign, submit_orders, django_assert_max_num_queries
):
    small = _measure_turn(make_campaign, submit_orders, django_assert_max_num_queries, SMALL)
    large = _measure_turn(make_campaign, submit_orders, django_assert_max_num_queries, LARGE)
    # both turns take every write path: battles fought and forces destroyed
    for m in (small, large):
        assert m["battles"] >= 1 and m["destroyed"] >= 1, m
        assert m["turn"] <= TURN_MAX
        assert all(n <= RESULT_MAX for n in m["results"])
        # a whole turn: fixed part + one result entry (a user action) per battle
        assert m["whole_turn"] <= TURN_MAX + RESULT_MAX * m["battles"]
    assert abs(small["turn"] - large["turn"]) <= MAX_DIFFERENCE, (small["turn"], large["turn"])
    assert len(set(small["results"] + large["results"])) == 1  # every entry costs the same
    for stage in ("resolve", "after"):
        s, big = _shape(small[stage]), _shape(large[stage])
        # the reads are the same, one by one
        assert {k: n for k, n in s.items() if k[0] == "SELECT"} == {
            k: n for k, n in big.items() if k[0] == "SELECT"
        }, stage
        # and no synced table is written row by row
        for (verb, table), n in big.items():
            if table in SYNCED and verb in ("INSERT", "UPDATE", "DELETE"):
                assert n == 1, (stage, verb, table, n)


@pytest.mark.parametrize("forces", [10, 200])
def test_state_load_and_save_use_a_fixed_number_of_queries(
    forces, django_assert_max_num_queries, django_assert_num_queries
):
    params = SMALL if forces == 10 else LARGE
    state = generate_campaign(**params)
    campaign = campaign_create(slug=f"seam-{forces}", name="Seam", state=state)
    turn = turn_current(campaign=campaign)
    state_rows.clear()
    # the stamp, players, squares, holdings, units, commands, individuals, forces, the stamp
    # again (campaign.state_rows keeps what it read only if no write came in between)
    with django_assert_num_queries(9):
        loaded = adapters.state_load(campaign=campaign, turn=turn)
    with django_assert_num_queries(1):  # kept: the stamp alone
        assert adapters.state_load(campaign=campaign, turn=turn) == loaded
    # nothing changed: the campaign row and one read per synced table, no write
    with django_assert_num_queries(7):
        adapters.state_save(campaign=campaign, state=state)
    # told the rows hold it: the campaign row, players, holdings and forces; no force's
    # commands, units nor individuals are read
    with django_assert_num_queries(4):
        adapters.state_save(campaign=campaign, state=state, before=state)
    # everything changed: at most a delete, an insert and an update per table more
    with django_assert_max_num_queries(7 + 3 * len(SYNCED)):
        adapters.state_save(campaign=campaign, state=_evolved(state))
    with CaptureQueriesContext(connection) as q:
        adapters.state_load(campaign=campaign)
    assert len(q) == 9  # the writes renewed the stamp: read again
