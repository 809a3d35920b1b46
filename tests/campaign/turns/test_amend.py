"""Amendments through their services (`campaign.turns.amend`): who may amend what and when,
a preview made stale by another commit, a rollback, an orders and an options amendment, and
the audit log's other entries (an override, a claim recovered). The six-turn acceptance test
is tests/campaign/commands/test_amend_six_turns.py; the browser's, tests/browser/test_amend_e2e.py.

The demo with the Southern March (d3) waiting at (4, 8) on the Red Riders' (r3) path: turn 1
ends in battle t1-b1; two turns are played (seed 7)."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from battles.models import Battle
from battles.services import battle_result_override
from campaign.adapters import state_before, state_current
from campaign.exchange.replay import turn_replay
from campaign.models import (
    Amendment,
    AuditEntry,
    Force,
    LineArchive,
    Orders,
    Turn,
    TurnResolution,
)
from campaign.selectors import turn_current
from campaign.turns import claims
from campaign.turns.amend import (
    AmendmentRefused,
    amendment_commit,
    amendment_discard,
    amendment_preview,
)
from campaign.turns.services import turn_close, turn_resolve, turn_resolve_after_battles
from rules import to_data
from tests.battles.conftest import version

pytestmark = pytest.mark.django_db

REASON = "Entered wrong."


def _play(campaign, record_results, turns: int = 2) -> None:
    for _ in range(turns):
        turn = turn_close(turn=turn_current(campaign=campaign), seed=7)
        turn_resolve(turn_id=turn.pk)
        turn = Turn.objects.get(pk=turn.pk)
        if turn.waiting_for_battles:
            record_results(turn)
            turn_resolve_after_battles(turn_id=turn.pk)
    campaign.refresh_from_db()


@pytest.fixture
def played(cast, record_results):
    Force.objects.filter(campaign=cast.campaign, key="d3").update(x=4, y=8)
    _play(cast.campaign, record_results)
    assert Battle.objects.filter(campaign=cast.campaign, key="t1-b1").exists()
    assert turn_current(campaign=cast.campaign).number == 3
    return cast


def _doubled(battle: Battle) -> dict:
    """Another result: a stalemate with one figure of each unit killed."""
    return {
        "outcomes": {"a": "stalemate", "b": "stalemate"},
        "units": [{"unit_id": u["unit_id"], "killed": 1} for u in battle.result["units"]],
    }


def _preview(cast, **kwargs):
    battle = Battle.objects.get(campaign=cast.campaign, key="t1-b1")
    args = {
        "campaign": cast.campaign,
        "user": cast.users["gm"],
        "kind": "battle-result",
        "turn_number": 1,
        "target": "t1-b1",
        "data": _doubled(battle),
        "reason": REASON,
        **kwargs,
    }
    return amendment_preview(**args)


def test_only_the_gm_with_a_reason_amends_a_resolved_turn_between_turns(played):
    with pytest.raises(AmendmentRefused, match="Only the game master"):
        _preview(played, user=played.users["side_a"])
    with pytest.raises(ValidationError) as e:
        _preview(played, reason="  ")
    assert "reason" in e.value.message_dict
    with pytest.raises(AmendmentRefused, match="Turn 3 has not been resolved"):
        _preview(played, turn_number=3, kind="rollback", target="")
    with pytest.raises(AmendmentRefused, match="no battle"):
        _preview(played, target="t9-b9")
    turn_close(turn=turn_current(campaign=played.campaign), seed=7)
    with pytest.raises(AmendmentRefused, match="Turn 3 is closed"):
        _preview(played)
    assert not Amendment.objects.exists()


def test_a_committed_result_is_the_battle_s_and_amending_it_to_itself_is_refused(played):
    a = _preview(played)
    read = version(Battle.objects.get(campaign=played.campaign, key="t1-b1"))
    amendment_commit(amendment=a, user=played.users["gm"])
    battle = Battle.objects.get(campaign=played.campaign, key="t1-b1")
    assert battle.result == a.amended and battle.entry == Battle.Entry.OVERRIDDEN
    assert battle.result_version > read  # a page of the result open meanwhile is stale
    assert battle.audit.filter(action="amended", note__contains=REASON).exists()
    with pytest.raises(AmendmentRefused, match="already has"):
        _preview(played, data=_doubled(battle))
    for n in (1, 2):
        assert turn_replay(turn=played.campaign.turns.get(number=n)).ok


def test_a_preview_the_line_moved_past_is_refused_and_a_discarded_one_too(played):
    stale = _preview(played)
    rollback = _preview(played, kind="rollback", turn_number=2, target="", data=None)
    amendment_commit(amendment=rollback, user=played.users["gm"])
    with pytest.raises(AmendmentRefused, match="moved on since this preview"):
        amendment_commit(amendment=stale, user=played.users["gm"])
    gone = _preview(played)
    amendment_discard(amendment=gone, user=played.users["gm"])
    assert not Amendment.objects.filter(pk=gone.pk).exists()
    with pytest.raises(AmendmentRefused, match="it was discarded"):
        amendment_commit(amendment=gone, user=played.users["gm"])
    assert stale.status == Amendment.Status.DRAFT  # refused: nothing written
    assert AuditEntry.objects.filter(campaign=played.campaign).count() == 1  # the rollback


def test_a_rollback_reopens_the_turn_as_it_started(played, record_results):
    campaign = played.campaign
    start = TurnResolution.objects.get(turn__campaign=campaign, turn__number=2, stage="turn")
    expected = to_data(state_before(start))
    a = _preview(played, kind="rollback", turn_number=2, target="", data=None)
    assert a.preview["diff"][0]["turn"] == 2
    amendment_commit(amendment=a, user=played.users["gm"])
    campaign.refresh_from_db()
    turn = turn_current(campaign=campaign)
    assert turn.number == 2 and turn.is_open and turn.seed is None
    assert not campaign.turns.filter(number=3).exists()
    assert to_data(state_current(campaign=campaign)) == expected
    assert not Orders.objects.filter(turn=turn, status=Orders.Status.CONFIRMED).exists()
    archive = LineArchive.objects.get(amendment=a)
    assert [t["number"] for t in archive.data["turns"]] == [2, 3]
    entry = AuditEntry.objects.get(campaign=campaign)
    assert entry.action == AuditEntry.Action.ROLLED_BACK and entry.reason == REASON
    _play(campaign, record_results, turns=1)  # the campaign goes on from there
    assert turn_current(campaign=campaign).number == 3
    assert turn_replay(turn=campaign.turns.get(number=2)).ok


def test_an_orders_amendment_can_make_a_battle_vanish(played):
    campaign = played.campaign
    used = TurnResolution.objects.get(turn__campaign=campaign, turn__number=1, stage="turn")
    orders = dict(used.inputs["raiders"])
    orders["forces"] = {k: v for k, v in orders["forces"].items() if k != "r3"}
    orders["initiative_priority"] = [f for f in orders["initiative_priority"] if f != "r3"]
    a = _preview(played, kind="orders", target="raiders", data=orders)
    vanished = [b for t in a.preview["diff"] for b in t["battles"] if b["battle"] == "t1-b1"]
    assert vanished and vanished[0]["new"] is None
    amendment_commit(amendment=a, user=played.users["gm"])
    assert not Battle.objects.filter(campaign=campaign, key="t1-b1").exists()
    archived = LineArchive.objects.get(amendment=a).data["battles"]
    assert "t1-b1" in [b["key"] for b in archived]
    for n in (1, 2):
        report = turn_replay(turn=campaign.turns.get(number=n))
        assert report.ok, report.differences


def test_orders_that_break_the_rules_are_refused(played):
    with pytest.raises(ValidationError) as e:
        _preview(
            played,
            kind="orders",
            target="raiders",
            data={"forces": {"r3": {"force_id": "r3", "path": [[15, 11]]}}},
        )
    assert "orders" in e.value.message_dict


def test_an_options_amendment_replays_with_the_options(played):
    campaign = played.campaign
    start = TurnResolution.objects.get(turn__campaign=campaign, turn__number=1, stage="turn")
    options = to_data(state_before(start).options)
    options["weather_phase"] = not options["weather_phase"]
    a = _preview(played, kind="options", target="", data=options)
    amendment_commit(amendment=a, user=played.users["gm"])
    start = TurnResolution.objects.get(turn__campaign=campaign, turn__number=1, stage="turn")
    assert to_data(state_before(start).options)["weather_phase"] == options["weather_phase"]
    campaign.refresh_from_db()
    assert campaign.options["weather_phase"] == options["weather_phase"]


def _waiting(cast) -> Battle:
    campaign = cast.campaign
    Force.objects.filter(campaign=campaign, key="d3").update(x=4, y=8)
    turn = turn_close(turn=turn_current(campaign=campaign), seed=7)
    turn_resolve(turn_id=turn.pk)
    return Battle.objects.get(campaign=campaign, key="t1-b1")


def test_an_override_is_in_the_audit_log(cast):
    battle = _waiting(cast)
    data = {
        "outcomes": {"a": "stalemate", "b": "stalemate"},
        "units": [
            {"unit_id": u["unit_id"], "killed": 1}
            for s in battle.pack["sides"]
            for f in s["forces"]
            for u in f["units"]
        ],
    }
    battle_result_override(
        campaign=cast.campaign,
        battle=battle,
        version=version(battle),
        user=cast.users["gm"],
        note="Both agreed.",
        data=data,
    )
    entry = AuditEntry.objects.get(campaign=cast.campaign, action="overridden")
    assert entry.user == cast.users["gm"] and entry.turn_number == 1
    assert entry.reason == "Both agreed." and entry.changes["battle"] == "t1-b1"


def test_a_claim_given_back_is_in_the_audit_log(cast):
    """A run that claimed Phases 4–8 and failed gives the turn back: the system's entry."""
    turn = _waiting(cast).turn
    assert turn.claim(Turn.Status.BATTLES, Turn.Status.RESOLVING_AFTER, "test-run")
    assert claims.give_back(
        turn_id=turn.pk, status=Turn.Status.RESOLVING_AFTER, by="test-run", reason="error"
    )
    entry = AuditEntry.objects.get(campaign=cast.campaign, action="claim-recovered")
    assert entry.user is None and entry.turn_number == 1
    assert entry.changes == {
        "status": "resolving-after",
        "claimed_by": "test-run",
        "interrupted": "error",
    }


def test_a_preview_and_a_commit_cost_a_bounded_number_of_queries(
    played, django_assert_max_num_queries
):
    """However many forces and battles: the line is read in a few queries, the branch is
    replayed in memory, the battles are written in bulk (bench/amend.py: 15–25 and 131 at
    240 forces, six turns)."""
    with django_assert_max_num_queries(30):
        a = _preview(played)
    with django_assert_max_num_queries(80):
        amendment_commit(amendment=a, user=played.users["gm"])
