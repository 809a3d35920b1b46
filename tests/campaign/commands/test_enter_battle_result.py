"""`enter_battle_result`: one battle's result from a file, checked by the rules first."""

from __future__ import annotations

import pytest
from django.core.management.base import CommandError

from battles.models import Battle

pytestmark = pytest.mark.django_db

STALEMATE = {"outcomes": {"a": "stalemate", "b": "stalemate"}}


def test_records_the_result(run, battle_campaign, results_file):
    battle = Battle.objects.get(key="t1-b1")
    data = {**STALEMATE, "units": [{"unit_id": "f10u1", "killed": 2, "fled": 1}]}
    out = run("enter_battle_result", "t1-b1", results_file(data)).out
    assert "Result recorded for battle t1-b1." in out
    assert "Every battle of turn 1 has its result: run `manage.py resolve_turn skirmish`" in out
    battle.refresh_from_db()
    assert battle.status == Battle.Status.RESOLVED and battle.resolver == "tabletop"
    assert battle.result["units"] == [
        {"unit_id": "f10u1", "killed": 2, "fled": 1, "left_oppose": 0, "left_retreat": 0}
    ]
    assert "Turn 2 is open" in run("resolve_turn", "skirmish").out


def test_accepts_a_results_file_holding_just_this_battle(run, battle_campaign, results_file):
    run("enter_battle_result", "t1-b1", results_file({"t1-b1": STALEMATE}))
    assert Battle.objects.get(key="t1-b1").status == Battle.Status.RESOLVED


def test_a_result_for_another_battle_is_refused(run, battle_campaign, results_file):
    with pytest.raises(CommandError, match="the result of battle 't2-b1', not t1-b1"):
        run("enter_battle_result", "t1-b1", results_file({**STALEMATE, "battle_id": "t2-b1"}))


def test_a_result_the_rules_refuse_changes_nothing(run, battle_campaign, results_file):
    data = {**STALEMATE, "units": [{"unit_id": "nobody", "killed": 1}]}
    with pytest.raises(CommandError, match="unit nobody did not fight in it"):
        run("enter_battle_result", "t1-b1", results_file(data))
    with pytest.raises(CommandError, match="unknown field"):
        run("enter_battle_result", "t1-b1", results_file({**STALEMATE, "winner": "a"}))
    battle = Battle.objects.get(key="t1-b1")
    assert battle.status == Battle.Status.PENDING and battle.result is None


def test_a_battle_of_a_finished_turn_is_refused(run, battle_campaign, results_file):
    run("enter_battle_result", "t1-b1", results_file(STALEMATE))
    run("resolve_turn", "skirmish")
    with pytest.raises(CommandError, match="turn 1, which is not waiting for battle results"):
        run("enter_battle_result", "t1-b1", results_file(STALEMATE))


def test_unknown_and_ambiguous_battles(run, battle_campaign, results_file, skirmish):
    path = results_file(STALEMATE)
    with pytest.raises(CommandError, match="Unknown battle 't7-b1'."):
        run("enter_battle_result", "t7-b1", path)
    with pytest.raises(CommandError, match="Unknown battle 't1-b1' in campaign 'other'."):
        run("enter_battle_result", "t1-b1", path, "--campaign", "other")
    # a second campaign with the same battle key
    skirmish("other")
    with pytest.raises(CommandError, match=r"exists in several campaigns \(other, skirmish\)"):
        run("enter_battle_result", "t1-b1", path)
    run("enter_battle_result", "t1-b1", path, "--campaign", "other")
    statuses = dict(Battle.objects.values_list("campaign__slug", "status"))
    assert statuses == {"other": "resolved", "skirmish": "pending"}


def test_unreadable_files(run, battle_campaign, tmp_path):
    with pytest.raises(CommandError, match="Cannot read the battle result file"):
        run("enter_battle_result", "t1-b1", str(tmp_path / "missing.json"))
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    with pytest.raises(CommandError, match="is not valid JSON"):
        run("enter_battle_result", "t1-b1", str(tmp_path / "bad.json"))
    (tmp_path / "list.json").write_text("[]", encoding="utf-8")
    with pytest.raises(CommandError, match="must hold one JSON object"):
        run("enter_battle_result", "t1-b1", str(tmp_path / "list.json"))
