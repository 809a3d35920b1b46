"""The turn services: orders, closing with a published seed hash, the two resolutions and
battle results. Every refusal is checked for its error type, its message, and that nothing
was written."""

from __future__ import annotations

import hashlib

import pytest

from battles.models import Battle
from battles.services import InvalidBattleResult, battle_result_record
from campaign import adapters
from campaign.adapters import state_current
from campaign.errors import ServiceError, TurnBusy, TurnNotOpen
from campaign.models import Campaign, Orders, Turn, TurnResolution
from campaign.orders.services import InvalidOrders, orders_submit
from campaign.selectors import turn_current
from campaign.stored_states import state_data_of
from campaign.turns import resolution
from campaign.turns.services import turn_close, turn_resolve, turn_resolve_after_battles
from rules.codec import to_data
from rules.types import Status
from tests.campaign.conftest import battle_result_data

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(make_campaign) -> Campaign:
    """10 forces of 4 players on 8×8; the seed-1 orders bring one battle."""
    return make_campaign(slug="services")


def _turn(campaign: Campaign) -> Turn:
    return turn_current(campaign=campaign)


def _player(campaign: Campaign, key: str):
    return campaign.players.get(key=key)


def _mover(campaign: Campaign, owner: str):
    """A force of `owner` that may move (not on Defend), from the rules state."""
    state = state_current(campaign=campaign)
    return next(f for f in state.forces if f.owner == owner and f.status is not Status.DEFEND)


def _step(campaign: Campaign, square: tuple[int, int], distance: int) -> list[int]:
    """A square `distance` columns away from `square`, on the map."""
    x, y = square
    return [x + distance if x + distance < campaign.width else x - distance, y]


def _orders_row(orders: Orders) -> tuple:
    orders.refresh_from_db()
    return (orders.data, orders.status, orders.saved_at, orders.confirmed_at)


# --- orders ----------------------------------------------------------------------------------


def test_orders_are_saved_then_confirmed(campaign):
    turn, player = _turn(campaign), _player(campaign, "p1")
    force = _mover(campaign, "p1")
    data = {
        "forces": {force.id: {"force_id": force.id, "path": [_step(campaign, force.square, 1)]}}
    }

    saved = orders_submit(player=player, turn=turn, data=data)
    assert saved.status == Orders.Status.SAVED and saved.confirmed_at is None
    assert saved.data["forces"][force.id]["path"] == data["forces"][force.id]["path"]

    confirmed = orders_submit(player=player, turn=turn, data=data, confirm=True)
    assert confirmed.pk == saved.pk  # one row per player and turn
    assert confirmed.status == Orders.Status.CONFIRMED and confirmed.confirmed_at is not None

    # changing confirmed orders saves them again, unconfirmed until confirmed anew
    again = orders_submit(player=player, turn=turn, data={"forces": {}})
    assert again.pk == saved.pk
    assert again.status == Orders.Status.SAVED and again.confirmed_at is None
    assert Orders.objects.filter(turn=turn).count() == 1


def test_orders_after_the_turn_closed_are_refused_and_saved_orders_kept(campaign):
    turn, player = _turn(campaign), _player(campaign, "p1")
    force = _mover(campaign, "p1")
    first = {
        "forces": {force.id: {"force_id": force.id, "path": [_step(campaign, force.square, 1)]}}
    }
    orders = orders_submit(player=player, turn=turn, data=first, confirm=True)
    before = _orders_row(orders)
    turn_close(turn=turn, seed=1)

    with pytest.raises(TurnNotOpen) as e:
        orders_submit(player=player, turn=turn, data={"forces": {}})
    assert "orders can no longer be changed" in str(e.value)
    assert "saved orders are kept" in str(e.value)
    assert _orders_row(orders) == before
    # another player who never sent orders gets the same answer, and no row
    with pytest.raises(TurnNotOpen):
        orders_submit(player=_player(campaign, "p2"), turn=turn, data={"forces": {}})
    assert Orders.objects.filter(turn=turn).count() == 1


def test_a_non_adjacent_step_is_refused_with_a_typed_error(campaign):
    turn, player = _turn(campaign), _player(campaign, "p1")
    force = _mover(campaign, "p1")
    good = {
        "forces": {force.id: {"force_id": force.id, "path": [_step(campaign, force.square, 1)]}}
    }
    orders = orders_submit(player=player, turn=turn, data=good)
    before = _orders_row(orders)
    jump = {
        "forces": {force.id: {"force_id": force.id, "path": [_step(campaign, force.square, 2)]}}
    }

    with pytest.raises(InvalidOrders) as e:
        orders_submit(player=player, turn=turn, data=jump, confirm=True)

    [error] = e.value.errors
    assert (error.force_id, error.code, error.field, error.index) == (
        force.id,
        "not-adjacent",
        "path",
        0,
    )
    assert "is not adjacent" in str(e.value)
    assert _orders_row(orders) == before  # the earlier orders stand, unconfirmed


def test_orders_for_a_force_that_is_not_yours_are_refused(campaign):
    turn, player = _turn(campaign), _player(campaign, "p1")
    theirs = _mover(campaign, "p2")
    data = {
        "forces": {theirs.id: {"force_id": theirs.id, "path": [_step(campaign, theirs.square, 1)]}}
    }

    with pytest.raises(InvalidOrders) as e:
        orders_submit(player=player, turn=turn, data=data)

    assert [(err.force_id, err.code) for err in e.value.errors] == [(theirs.id, "not-your-force")]
    assert f"Force {theirs.id} is not yours." in str(e.value)
    assert not Orders.objects.filter(turn=turn).exists()


def test_malformed_orders_are_refused_as_a_format_error(campaign):
    with pytest.raises(InvalidOrders) as e:
        orders_submit(player=_player(campaign, "p1"), turn=_turn(campaign), data={"forces": [1, 2]})
    assert [err.code for err in e.value.errors] == ["format"]
    assert not Orders.objects.exists()


def test_a_player_of_another_campaign_is_refused(campaign, make_campaign):
    other = make_campaign(slug="other")
    with pytest.raises(ServiceError, match="does not belong"):
        orders_submit(player=_player(other, "p1"), turn=_turn(campaign), data={"forces": {}})
    assert not Orders.objects.exists()


# --- closing the turn --------------------------------------------------------------------------


def test_turn_close_fixes_the_seed_and_publishes_its_hash(campaign):
    turn = turn_close(turn=_turn(campaign), seed=123456789)

    turn.refresh_from_db()
    assert turn.status == Turn.Status.CLOSED and turn.closed_at is not None
    assert turn.seed == 123456789
    # anyone can check the revealed seed against the hash published at closing
    expected = hashlib.sha256(f"fwcampaign:{campaign.slug}:{turn.number}:123456789".encode())
    assert turn.seed_hash == expected.hexdigest()
    assert len(turn.seed_hash) == 64


def test_turn_close_without_a_seed_draws_one(campaign):
    turn = turn_close(turn=_turn(campaign))
    assert 0 <= turn.seed < 2**63
    assert turn.seed_hash == turn.hash_of(turn.seed)


def test_a_second_close_is_refused_and_keeps_the_seed(campaign):
    turn = turn_close(turn=_turn(campaign), seed=7)
    published = (turn.seed, turn.seed_hash, turn.closed_at)

    with pytest.raises(TurnNotOpen, match="is not open"):
        turn_close(turn=turn, seed=8)

    turn.refresh_from_db()
    assert (turn.seed, turn.seed_hash, turn.closed_at) == published


@pytest.mark.parametrize("seed", [-1, 2**63])
def test_a_seed_out_of_range_is_refused(campaign, seed):
    with pytest.raises(ServiceError, match="63-bit"):
        turn_close(turn=_turn(campaign), seed=seed)
    assert _turn(campaign).status == Turn.Status.OPEN


# --- resolution ------------------------------------------------------------------------------


def test_resolving_an_open_turn_is_refused(campaign):
    turn = _turn(campaign)
    with pytest.raises(TurnNotOpen, match=f"Turn {turn.number} is still open"):
        turn_resolve(turn_id=turn.pk)
    turn.refresh_from_db()
    assert turn.status == Turn.Status.OPEN
    assert not TurnResolution.objects.exists()


def test_resolving_twice_is_refused(campaign, submit_orders):
    submit_orders(campaign)
    turn = turn_close(turn=_turn(campaign), seed=1)
    turn_resolve(turn_id=turn.pk)
    with pytest.raises(TurnBusy, match="already"):
        turn_resolve(turn_id=turn.pk)
    assert TurnResolution.objects.filter(turn=turn).count() == 1


def test_phases_0_2_record_the_resolution_and_wait_for_battles(campaign, submit_orders):
    submit_orders(campaign)
    turn = turn_close(turn=_turn(campaign), seed=1)
    before = to_data(state_current(campaign=campaign))

    resolution = turn_resolve(turn_id=turn.pk)

    turn.refresh_from_db()
    assert turn.status == Turn.Status.BATTLES
    assert resolution.pending == ["t1-b1"]
    assert list(Battle.objects.filter(turn=turn).values_list("key", "status")) == [
        ("t1-b1", Battle.Status.PENDING)
    ]
    record = TurnResolution.objects.get(turn=turn)
    assert (record.stage, record.seed) == (TurnResolution.Stage.TURN, 1)
    assert state_data_of(record) == before
    assert set(record.inputs) == {"p1", "p2", "p3", "p4"}
    assert record.ledger == resolution.ledger and record.events == resolution.events


def test_a_resolution_that_raises_releases_its_claim(campaign, submit_orders, monkeypatch):
    submit_orders(campaign)
    turn = turn_close(turn=_turn(campaign), seed=1)
    before = to_data(state_current(campaign=campaign))

    def broken(**kwargs):
        raise RuntimeError("disk full")

    # fails after the resolution record is written: that write must be rolled back too
    monkeypatch.setattr(adapters, "state_save", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        turn_resolve(turn_id=turn.pk)

    turn.refresh_from_db()
    assert turn.status == Turn.Status.CLOSED
    assert not TurnResolution.objects.exists() and not Battle.objects.exists()
    campaign.refresh_from_db()
    assert to_data(state_current(campaign=campaign)) == before

    monkeypatch.undo()  # the claim is free again: a retry resolves the turn
    turn_resolve(turn_id=turn.pk)
    turn.refresh_from_db()
    assert turn.status == Turn.Status.BATTLES


def test_phases_4_8_that_raise_release_their_claim(
    campaign, submit_orders, record_results, monkeypatch
):
    submit_orders(campaign)
    turn = turn_close(turn=_turn(campaign), seed=1)
    turn_resolve(turn_id=turn.pk)
    record_results(Turn.objects.get(pk=turn.pk))

    def broken(*args, **kwargs):
        raise RuntimeError("worker lost")

    monkeypatch.setattr(resolution, "resolve_after_battles", broken)
    with pytest.raises(RuntimeError, match="worker lost"):
        turn_resolve_after_battles(turn_id=turn.pk)
    turn.refresh_from_db()
    assert turn.status == Turn.Status.BATTLES
    assert campaign.turns.count() == 1

    monkeypatch.undo()
    turn_resolve_after_battles(turn_id=turn.pk)
    turn.refresh_from_db()
    assert turn.status == Turn.Status.RESOLVED


# --- battle results --------------------------------------------------------------------------


@pytest.fixture
def battle(campaign, submit_orders) -> Battle:
    """The one pending battle of turn 1 (seed 1)."""
    submit_orders(campaign)
    turn = turn_close(turn=_turn(campaign), seed=1)
    turn_resolve(turn_id=turn.pk)
    return Battle.objects.get(turn=turn)


def _state(battle: Battle):
    return adapters.state_load(campaign=battle.campaign, turn=battle.turn)


def test_a_battle_result_is_recorded(battle):
    data = battle_result_data(_state(battle), battle.key)
    recorded = battle_result_record(battle=battle, data=data, resolver="auto")
    battle.refresh_from_db()
    assert battle.status == Battle.Status.RESOLVED and battle.resolved_at is not None
    assert battle.resolver == Battle.Resolver.AUTO
    assert battle.result["outcomes"] == {"a": "won", "b": "lost"}
    assert recorded.result == battle.result


def test_a_result_removing_more_figures_than_present_is_refused(battle):
    state = _state(battle)
    data = battle_result_data(state, battle.key)
    unit = state.force(battle.pack["sides"][1]["forces"][0]["force_id"]).units[0]
    data["units"] = [u for u in data["units"] if u["unit_id"] != unit.id]
    data["units"].append({"unit_id": unit.id, "killed": unit.figures, "fled": 1})

    with pytest.raises(InvalidBattleResult) as e:
        battle_result_record(battle=battle, data=data)

    assert f"had {unit.figures} figure(s) but the result removes {unit.figures + 1}" in str(e.value)
    battle.refresh_from_db()
    assert battle.status == Battle.Status.PENDING and battle.result is None


def test_a_result_naming_units_of_another_campaigns_battle_is_refused(
    battle, make_campaign, submit_orders
):
    """The service takes the battle, not its campaign: what it can check is that every unit
    named fought in this battle. Units from the other campaign's battle did not."""
    other = make_campaign(slug="elsewhere", forces=10, players=4, width=8, height=8, seed=4)
    submit_orders(other, seed=4)
    turn = turn_close(turn=_turn(other), seed=4)
    turn_resolve(turn_id=turn.pk)
    elsewhere = Battle.objects.filter(turn=turn).first()
    assert elsewhere is not None and elsewhere.campaign_id != battle.campaign_id
    foreign = battle_result_data(_state(elsewhere), elsewhere.key)
    ours = {bf["force_id"] for side in battle.pack["sides"] for bf in side["forces"]}
    foreign["units"] = [u for u in foreign["units"] if u["unit_id"].split("u")[0] not in ours]
    assert foreign["units"]

    with pytest.raises(InvalidBattleResult, match="did not fight in it"):
        battle_result_record(battle=battle, data=foreign)
    battle.refresh_from_db()
    assert battle.status == Battle.Status.PENDING and battle.result is None


def test_a_malformed_result_is_refused(battle):
    with pytest.raises(InvalidBattleResult, match="unknown field"):
        battle_result_record(battle=battle, data={"winner": "a"})


def test_a_result_when_the_turn_is_not_waiting_for_results_is_refused(battle):
    data = battle_result_data(_state(battle), battle.key)
    battle_result_record(battle=battle, data=data)
    turn_resolve_after_battles(turn_id=battle.turn_id)
    battle.refresh_from_db()
    recorded = battle.result

    changed = {**data, "outcomes": {"a": "lost", "b": "won"}}
    with pytest.raises(InvalidBattleResult, match="not waiting for battle results"):
        battle_result_record(battle=battle, data=changed)
    battle.refresh_from_db()
    assert battle.result == recorded


def test_phases_4_8_wait_for_every_battle(battle):
    with pytest.raises(ServiceError, match=f"Battles still without a result: {battle.key}"):
        turn_resolve_after_battles(turn_id=battle.turn_id)
    turn = Turn.objects.get(pk=battle.turn_id)
    assert turn.status == Turn.Status.BATTLES
    assert TurnResolution.objects.filter(turn=turn).count() == 1


# --- a whole turn ----------------------------------------------------------------------------


def test_a_full_turn_opens_the_next_turn(campaign, play_turn):
    turn = play_turn(campaign)

    assert turn.status == Turn.Status.RESOLVED and turn.resolved_at is not None
    assert list(
        TurnResolution.objects.filter(turn=turn).values_list("stage", flat=True).order_by("pk")
    ) == [TurnResolution.Stage.TURN, TurnResolution.Stage.AFTER]
    campaign.refresh_from_db()
    assert campaign.turn_number == 2
    current = turn_current(campaign=campaign)
    assert (current.number, current.status) == (2, Turn.Status.OPEN)
    assert current.opened_at == turn.resolved_at
    assert state_current(campaign=campaign).phase == "orders"

    # and the next turn can be played the same way
    second = play_turn(campaign, seed=2)
    assert (second.number, second.status) == (2, Turn.Status.RESOLVED)
    assert turn_current(campaign=campaign).number == 3


def test_a_turn_without_battles_goes_straight_to_phases_4_8(make_campaign, submit_orders):
    campaign = make_campaign(slug="quiet", width=16, height=16)
    submit_orders(campaign)
    turn = turn_close(turn=_turn(campaign), seed=1)

    assert turn_resolve(turn_id=turn.pk).pending == []
    turn_resolve_after_battles(turn_id=turn.pk)

    turn.refresh_from_db()
    assert turn.status == Turn.Status.RESOLVED
    assert turn_current(campaign=campaign).number == 2
