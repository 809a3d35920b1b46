"""The GM's amendment pages through Django's test client: the turn's amend page prefilled with
what the turn used, its mistakes beside their fields, a rollback previewed and committed, a
result amendment from the battle's page discarded, and the audit log. (Who may reach them:
the permission matrix, tests/campaign/test_permissions.py.)"""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from battles.models import Battle
from campaign.models import Amendment, AuditEntry, Force, Turn
from campaign.selectors import turn_current
from campaign.turns.services import turn_close, turn_resolve, turn_resolve_after_battles

pytestmark = pytest.mark.django_db


@pytest.fixture
def resolved(cast, record_results):
    """Turn 1 of the demo resolved after battle t1-b1; turn 2 open."""
    campaign = cast.campaign
    Force.objects.filter(campaign=campaign, key="d3").update(x=4, y=8)
    turn = turn_close(turn=turn_current(campaign=campaign), seed=7)
    turn_resolve(turn_id=turn.pk)
    record_results(Turn.objects.get(pk=turn.pk))
    turn_resolve_after_battles(turn_id=turn.pk)
    return cast


def _url(name: str, *args) -> str:
    return reverse(f"campaign:{name}", args=["incursion", *args])


def test_the_turn_s_amend_page_shows_what_the_turn_used_and_refuses_bad_json(resolved):
    gm = resolved.client("gm")
    page = gm.get(_url("amend-turn", 1))
    assert page.status_code == 200
    text = page.content.decode()
    assert "Roll the campaign back to the start of this turn" in text
    assert "&quot;forces&quot;" in text and "weather_phase" in text  # the orders, the options
    bad = gm.post(
        _url("amend-turn", 1),
        {"kind": "orders", "player": "raiders", "orders": "{not json", "reason": "Typo."},
    )
    assert bad.status_code == 400
    assert "This is not JSON" in bad.content.decode()
    nobody = gm.post(_url("amend-turn", 1), {"kind": "orders", "orders": "{}", "reason": "x"})
    assert nobody.status_code == 400
    assert "Choose whose orders to correct." in nobody.content.decode()
    assert not Amendment.objects.exists()


def test_a_rollback_previewed_then_committed_from_the_pages(resolved):
    gm = resolved.client("gm")
    asked = gm.post(_url("amend-turn", 1), {"kind": "rollback", "reason": "Start again."})
    assert asked.status_code == 302 and asked["Location"] == _url("amendment", 1)
    preview = gm.get(_url("amendment", 1)).content.decode()
    assert "What would change" in preview and "Start again." in preview
    assert "Commit the amendment" in preview
    done = gm.post(_url("amendment-commit", 1), follow=True)
    assert "Amendment 1 is committed" in done.content.decode()
    assert turn_current(campaign=resolved.campaign).number == 1
    assert AuditEntry.objects.get().action == AuditEntry.Action.ROLLED_BACK
    log = gm.get(_url("audit")).content.decode()
    assert "Campaign rolled back" in log and "Start again." in log
    report = gm.get(_url("report", 1)).content.decode()
    assert "rolled the campaign back to the start of this turn" in report
    line = gm.get(_url("amendment-line", 1))
    assert line.status_code == 200 and "Phases 0–2" in line.content.decode()
    download = gm.get(_url("amendment-line", 1) + "?format=json")
    assert json.loads(download.content)["from_turn"] == 1


def test_a_result_amendment_from_the_battle_s_page_discarded(resolved):
    gm = resolved.client("gm")
    battle = Battle.objects.get(campaign=resolved.campaign, key="t1-b1")
    original = battle.result
    form = {f"u-{u['unit_id']}-killed": "1" for u in battle.result["units"]}
    form["outcome"] = "stalemate"
    without = gm.post(reverse("campaign:amend-result", args=["incursion", "t1-b1"]), form)
    assert without.status_code == 400
    assert "Say why" in without.content.decode()
    form["reason"] = "One figure each."
    asked = gm.post(reverse("campaign:amend-result", args=["incursion", "t1-b1"]), form)
    assert asked.status_code == 302 and asked["Location"] == _url("amendment", 1)
    gone = gm.post(_url("amendment-discard", 1), follow=True)
    assert "Amendment 1 is discarded: nothing changed." in gone.content.decode()
    assert not Amendment.objects.exists() and not AuditEntry.objects.exists()
    battle.refresh_from_db()
    assert battle.result == original


def test_the_report_of_an_amended_turn_says_so_to_everyone(resolved):
    """The battle's sides read what was amended and why; an observer who follows no one sees
    no battle under fog of war, and reads only that the game master amended an earlier turn."""
    battle = Battle.objects.get(campaign=resolved.campaign, key="t1-b1")
    form = {f"u-{u['unit_id']}-killed": "1" for u in battle.result["units"]}
    form |= {"outcome": "stalemate", "reason": "One figure each, as agreed."}
    gm = resolved.client("gm")
    page = gm.get(reverse("battles:result", args=["incursion", "t1-b1"])).content.decode()
    hint = (
        "The players who saw this battle, Defenders (The March of Ashbury) and Raiders "
        "(The Grey Fell Clans), read"
    )
    assert hint in page
    gm.post(reverse("campaign:amend-result", args=["incursion", "t1-b1"]), form)
    gm.post(_url("amendment-commit", 1))
    for who in ("side_a", "side_b"):
        page = resolved.client(who).get(_url("report", 1)).content.decode()
        assert "This turn was played again after amendment 1" in page, who
        assert "One figure each, as agreed." in page
        assert _url("amendment", 1) not in page  # what changed is the GM's page
    page = resolved.client("observer").get(_url("report", 1)).content.decode()
    assert "the game master amended an earlier turn (turn 1)." in page
    assert "amendment 1" not in page and "One figure each" not in page and "t1-b1" not in page
    assert _url("amendment", 1) in gm.get(_url("report", 1)).content.decode()
