"""`resolve_turn`: close, Phases 0–2, battle results, Phases 4–8 — as far as the turn goes."""

from __future__ import annotations

import pytest
from django.core.management.base import CommandError

from battles.models import Battle
from campaign.models import Turn, TurnResolution

pytestmark = pytest.mark.django_db

SMALL = ("--width", "6", "--height", "6", "--forces", "10")


def test_a_turn_without_battles_is_resolved_at_once(run, demo):
    out = run("resolve_turn", "incursion", "--seed", "7").out
    turn = demo.turns.get(number=1)
    assert turn.status == Turn.Status.RESOLVED and turn.seed == 7
    assert f"Seed hash: {Turn(campaign=demo, number=1).hash_of(7)}" in out
    assert "Turn 1, Phases 0–2: 7 event(s), 9 roll(s) in the ledger." in out
    assert "0 contact(s), 0 capture(s), 0 will-to-fight test(s)." in out
    assert "Turn 2 is open for orders (day 1)." in out
    assert demo.turns.get(number=2).status == Turn.Status.OPEN
    assert set(TurnResolution.objects.filter(turn=turn).values_list("stage", flat=True)) == {
        "turn",
        "after-battles",
    }


def test_without_seed_a_random_one_is_fixed_and_its_hash_printed(run, demo):
    out = run("resolve_turn", "incursion").out
    turn = demo.turns.get(number=1)
    assert turn.seed is not None
    assert turn.seed_hash in out and str(turn.seed) in out  # revealed once resolved


def test_pending_battles_are_listed_and_the_turn_waits(run, battle_campaign):
    out = run("resolve_turn", "skirmish").out
    assert "Turn 1 waits for 1 battle result(s):" in out
    assert "t1-b1 at (2, 2):" in out
    assert "a (s2): f10 (p2, probe, 43 figures)" in out
    assert "b (s1): f3 (p1, probe, 60 figures)" in out
    assert "manage.py resolve_turn skirmish --battle-results FILE" in out
    assert "manage.py enter_battle_result t1-b1 RESULT.json --campaign skirmish" in out
    assert battle_campaign.turns.get(number=1).status == Turn.Status.BATTLES


def test_first_call_shows_the_contact_in_the_summary(run, db):
    run("generate_campaign", *SMALL, "--seed", "6", "--orders", "--slug", "skirmish")
    out = run("resolve_turn", "skirmish", "--seed", "1").out
    assert "Contact: f10 met f3 at (2, 2) (battle t1-b1)." in out
    assert "1 contact(s)" in out
    assert "waits for 1 battle result(s)" in out


def test_results_file_records_the_results_and_finishes_the_turn(run, battle_campaign, results_file):
    battle = Battle.objects.get(campaign=battle_campaign, key="t1-b1")
    out = run("resolve_turn", "skirmish", "--battle-results", results_file([battle])).out
    assert "Result recorded for battle t1-b1." in out
    assert "Turn 1, Phases 4–8:" in out
    assert "Turn 2 is open for orders" in out
    battle.refresh_from_db()
    assert battle.status == Battle.Status.RESOLVED
    assert battle.result["outcomes"] == {"a": "stalemate", "b": "stalemate"}
    assert battle_campaign.turns.get(number=1).status == Turn.Status.RESOLVED


def test_entries_for_battles_that_have_a_result_are_ignored(run, skirmish, results_file):
    skirmish("two-battles", seed=1)
    b1, b2 = Battle.objects.filter(campaign__slug="two-battles").order_by("key")
    assert (b1.key, b2.key) == ("t1-b1", "t1-b2")
    run("enter_battle_result", "t1-b1", results_file({"outcomes": {"a": "won", "b": "lost"}}))
    out = run("resolve_turn", "two-battles", "--battle-results", results_file([b1, b2])).out
    assert "Battle t1-b1 already has a result; its entry is ignored." in out
    assert "Result recorded for battle t1-b2." in out
    assert "Turn 1, Phases 4–8:" in out
    b1.refresh_from_db()
    assert b1.result["outcomes"] == {"a": "won", "b": "lost"}  # the first result stands
    # the lost battle broke p2's will to fight, and the campaign with it
    assert "Will to fight: p2 FAILED" in out
    assert "The campaign has ended: will-to-fight, won by s1." in out
    out = run("resolve_turn", "two-battles").out
    assert "no turn follows: the campaign has ended (will-to-fight)" in out


def test_an_entry_for_an_unknown_battle_is_an_error_and_nothing_is_recorded(
    run, battle_campaign, results_file
):
    battle = Battle.objects.get(campaign=battle_campaign, key="t1-b1")
    data = {"t1-b1": {"outcomes": {"a": "won", "b": "lost"}}, "t9-b9": {}}
    with pytest.raises(CommandError, match="The results name 't9-b9', not a battle of skirmish"):
        run("resolve_turn", "skirmish", "--battle-results", results_file(data))
    battle.refresh_from_db()
    assert battle.status == Battle.Status.PENDING and battle.result is None


def test_a_result_the_rules_refuse_is_a_clear_error(run, battle_campaign, results_file):
    data = {
        "t1-b1": {
            "outcomes": {"a": "stalemate", "b": "stalemate"},
            "units": [{"unit_id": "f10u1", "killed": 999}],
        }
    }
    with pytest.raises(CommandError, match=r"unit f10u1 had \d+ figure\(s\) but the result"):
        run("resolve_turn", "skirmish", "--battle-results", results_file(data))
    assert Battle.objects.get(key="t1-b1").status == Battle.Status.PENDING


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{oops", "is not valid JSON: Expecting property name"),
        ("[1, 2]", "must hold a JSON object: battle id → result object"),
        ('{"t1-b1": 3}', "must hold a JSON object: battle id → result object"),
    ],
)
def test_unreadable_results_files_are_clear_errors(
    run, battle_campaign, tmp_path, content, message
):
    path = tmp_path / "r.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(CommandError, match=message):
        run("resolve_turn", "skirmish", "--battle-results", str(path))
    with pytest.raises(CommandError, match="Cannot read the battle results file"):
        run("resolve_turn", "skirmish", "--battle-results", str(tmp_path / "missing.json"))


def test_another_seed_on_a_closed_turn_is_refused(run, battle_campaign):
    with pytest.raises(CommandError, match="Turn 1 is already closed with another seed"):
        run("resolve_turn", "skirmish", "--seed", "2")
    run("resolve_turn", "skirmish", "--seed", "1")  # the same seed is fine


def test_unknown_campaign(run, demo):
    with pytest.raises(CommandError, match=r"Unknown campaign 'nope' \(campaigns: incursion\)"):
        run("resolve_turn", "nope")


def test_a_turn_being_resolved_elsewhere(run, demo):
    demo.turns.filter(number=1).update(status=Turn.Status.RESOLVING)
    with pytest.raises(CommandError, match="being resolved right now"):
        run("resolve_turn", "incursion")


def test_a_bad_seed_is_a_service_error(run, demo):
    with pytest.raises(CommandError, match="non-negative 63-bit integer"):
        run("resolve_turn", "incursion", "--seed", "-1")
