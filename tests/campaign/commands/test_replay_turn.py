"""`replay_turn`: a stored turn played again gives the same rolls and events, or says where
it does not."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from campaign.exchange.replay import turn_replay
from campaign.models import TurnResolution

pytestmark = pytest.mark.django_db


@pytest.fixture
def fought(run, battle_campaign, results_file):
    """The skirmish with turn 1 fully resolved, its battle fought to a stalemate."""
    run(
        "resolve_turn",
        "skirmish",
        "--battle-results",
        results_file(list(battle_campaign.battles.all())),
    )
    return battle_campaign


def test_a_resolved_turn_replays(run, fought):
    out = run("replay_turn", "skirmish", "1").out
    assert out.splitlines() == ["Turn 1, Phases 0–2: OK", "Turn 1, Phases 4–8: OK"]


def test_an_altered_roll_is_found(run, fought):
    r = TurnResolution.objects.get(turn__campaign=fought, turn__number=1, stage="turn")
    entry = r.ledger[2]
    old = entry["natural"][0]
    entry["natural"][0] = old % entry["sides"] + 1
    r.save()
    with pytest.raises(CommandError, match=r"Turn 1 of skirmish does not replay: \d+ diff"):
        run("replay_turn", "skirmish", "1")
    report = turn_replay(turn=r.turn)
    assert not report.ok
    first = report.differences[0]
    assert first.startswith(f"Phases 0–2: ledger #3 ({entry['purpose']}): ")
    assert f"natural: stored [{old % entry['sides'] + 1}], replayed [{old}]" in first


def test_differences_go_to_stderr_and_ok_stages_still_print(fought):
    r = TurnResolution.objects.get(turn__campaign=fought, turn__number=1, stage="after-battles")
    r.events[0]["type"] = "SomethingElse"
    r.save()
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError):
        call_command("replay_turn", "skirmish", "1", stdout=out, stderr=err)
    assert out.getvalue() == "Turn 1, Phases 0–2: OK\n"
    assert 'Turn 1, Phases 4–8: event #1 (SomethingElse): type: stored "SomethingElse"' in (
        err.getvalue()
    )


def test_a_changed_seed_is_found(fought):
    r = TurnResolution.objects.get(turn__campaign=fought, turn__number=1, stage="turn")
    r.seed += 1
    r.save()
    report = turn_replay(turn=r.turn)
    assert report.differences[0] == (
        f"Phases 0–2: seed: the turn fixed {r.seed - 1}, the resolution used {r.seed}"
    )


def test_a_missing_entry_is_found(fought):
    r = TurnResolution.objects.get(turn__campaign=fought, turn__number=1, stage="turn")
    dropped = r.ledger.pop()
    r.save()
    report = turn_replay(turn=r.turn)
    (difference,) = report.differences
    assert difference.startswith(
        f"Phases 0–2: ledger #{dropped['seq']} ({dropped['purpose']}): not stored, replay "
        f'gives {{"details": '
    )


def test_a_turn_not_resolved_yet(run, demo):
    with pytest.raises(CommandError, match="does not replay"):
        run("replay_turn", "incursion", "1")
    assert turn_replay(turn=demo.turns.get()).differences == [
        "Turn 1 has no stored resolution to replay."
    ]


def test_unknown_campaign_and_turn(run, fought):
    with pytest.raises(CommandError, match="Unknown campaign 'nope'"):
        run("replay_turn", "nope", "1")
    with pytest.raises(CommandError, match=r"Campaign skirmish has no turn 5 \(it has turns 1–2\)"):
        run("replay_turn", "skirmish", "5")


def test_a_seed_that_does_not_match_its_published_hash_is_found(run, fought):
    turn = fought.turns.get(number=1)
    turn.seed_hash = "0" * 64
    turn.save()
    with pytest.raises(CommandError, match="does not replay: 1 difference"):
        run("replay_turn", "skirmish", "1")
    assert turn_replay(turn=turn).differences[0].startswith(f"seed hash: published {'0' * 64}")
