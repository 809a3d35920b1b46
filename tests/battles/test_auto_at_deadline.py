"""Auto-resolve at the deadline: while battles wait, the GM sets when their results are due
(`turn_battles_deadline_set`, the overview's "battles-deadline" action) and marks battles
"auto-resolve at the deadline" on their result page. The periodic deadline check
(`turn_deadlines_check`, Celery beat every minute) then has the tactical engine fight each
marked battle that still has no result entered, exactly as the GM's button does; a battle
with a result entered, an unmarked one, or one before the deadline is left alone."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from battles.models import Battle, BattleAudit
from battles.services import (
    battle_result_enter,
    battle_result_override,
    battles_auto_resolve_due,
    battles_due_auto_resolve_list,
)
from campaign.models import Turn, TurnResolution
from campaign.turns.services import (
    ClockError,
    djtz,
    turn_battles_deadline_set,
    turn_deadlines_check,
)
from campaign.turns.tasks import deadlines_check_task
from rules.dice import SeededDice, derive_seed
from rules.tactical import battle_input_from_state, fight
from tests.battles.conftest import result_url, stamped, version
from tests.stamp import stamped as turn_stamped

pytestmark = pytest.mark.django_db

STALEMATE = {"outcomes": {"a": "stalemate", "b": "stalemate"}, "units": [], "individuals": []}


def refresh(battle: Battle) -> Battle:
    return Battle.objects.select_related("turn").get(pk=battle.pk)


def _mark(cast, battle: Battle, *, auto: bool = True) -> None:
    response = cast.client("gm").post(
        result_url(battle, "resolver"),
        stamped(
            battle,
            {
                "resolver": "tabletop",
                **({"auto_at_deadline": "on"} if auto else {}),
            },
        ),
    )
    assert response.status_code == 302
    assert refresh(battle).auto_at_deadline is auto


def _due(battle: Battle, minutes: int = 30) -> None:
    """Give the battle's turn a battles deadline, then let it pass (without waiting)."""
    turn_battles_deadline_set(
        turn=battle.turn, deadline=timezone.now() + timedelta(minutes=minutes), timezone="UTC"
    )


def _after_deadline(minutes: int = 31):
    return timezone.now() + timedelta(minutes=minutes)


def test_a_marked_battle_is_fought_by_the_engine_at_the_deadline(
    cast, battle, django_capture_on_commit_callbacks
):
    _mark(cast, battle)
    _due(battle)
    # before the deadline nothing happens
    assert turn_deadlines_check().auto_resolved == []
    assert refresh(battle).status == Battle.Status.PENDING

    # the engine's own result for the turn's derived seed: what the GM's button would give
    from campaign.adapters import state_current as campaign_state

    state = campaign_state(campaign=cast.campaign)
    pending = next(b for b in state.pending_battles if b.battle_id == battle.key)
    seed = derive_seed(battle.turn.seed or 0, "battle", battle.key)
    expected = fight(battle_input_from_state(state, pending), SeededDice(seed))

    with django_capture_on_commit_callbacks(execute=True):
        check = turn_deadlines_check(now=_after_deadline())
    assert [b.pk for b in check.auto_resolved] == [battle.pk]
    battle = refresh(battle)
    assert battle.status == Battle.Status.RESOLVED
    assert (battle.resolver, battle.entry) == (Battle.Resolver.AUTO, Battle.Entry.CONFIRMED)
    assert battle.entered_by is None
    audit = BattleAudit.objects.get(battle=battle, action="auto-resolve-deadline")
    assert audit.user is None and "battles deadline" in audit.note
    assert audit.data["seed"] == seed and audit.data["ledger"]
    stored = {u["unit_id"]: u for u in battle.result["units"]}
    for u in expected.units:
        assert stored.get(u.unit_id, {}).get("killed", 0) == u.killed
    # the turn went on exactly as after the GM's button
    turn = Turn.objects.get(pk=battle.turn_id)
    assert turn.status == Turn.Status.RESOLVED
    assert TurnResolution.objects.filter(turn=turn, stage="after-battles").exists()

    # the pages say what happened
    html = cast.client("side_a").get(result_url(battle)).content.decode()
    assert "No result was entered by the battles deadline" in html
    assert "The tactical engine fought the battle at the battles deadline." in html
    assert "someone no longer registered" not in html

    # and the next check finds nothing more to do
    assert turn_deadlines_check(now=_after_deadline(60)).auto_resolved == []


def test_an_entered_result_or_an_unmarked_battle_waits(cast, battle):
    _due(battle)
    assert turn_deadlines_check(now=_after_deadline()).auto_resolved == []
    assert refresh(battle).status == Battle.Status.PENDING  # not marked

    _mark(cast, battle)
    battle_result_enter(
        campaign=cast.campaign,
        battle=battle,
        version=version(battle),
        user=cast.users["side_b"],
        data=STALEMATE,
    )
    assert turn_deadlines_check(now=_after_deadline()).auto_resolved == []
    battle = refresh(battle)
    assert (battle.status, battle.entry) == (Battle.Status.PENDING, Battle.Entry.ENTERED)


def test_no_deadline_no_auto_resolution(cast, battle):
    _mark(cast, battle)
    assert battle.turn.battles_deadline is None
    far = timezone.now() + timedelta(days=365)
    assert turn_deadlines_check(now=far).auto_resolved == []
    html = cast.client("gm").get(result_url(battle)).content.decode()
    assert "No battles deadline is set yet: set it on the campaign overview." in html


def test_the_beat_task_reports_the_battles_it_fought(cast, battle, monkeypatch):
    _mark(cast, battle)
    _due(battle)
    later = _after_deadline()
    monkeypatch.setattr(djtz, "now", lambda: later)
    assert deadlines_check_task() == "0 closed at the deadline, 0 early, 1 battles auto-resolved"
    assert refresh(battle).status == Battle.Status.RESOLVED


def test_the_gm_sets_the_battles_deadline_on_the_overview(cast, battle):
    url = reverse("campaign:detail", args=[cast.campaign.slug])
    set_url = reverse("campaign:turn-battles-deadline", args=[cast.campaign.slug])
    html = cast.client("gm").get(url).content.decode()
    assert "When battle results are due" in html
    assert "0 waiting battles are marked to be auto-resolved at the deadline." in html
    _mark(cast, battle)
    when = (timezone.now() + timedelta(days=2)).astimezone(timezone.get_fixed_timezone(60))
    response = cast.client("gm").post(
        set_url,
        turn_stamped(
            cast.campaign.slug,
            {"deadline": when.strftime("%Y-%m-%dT%H:%M"), "timezone": "Europe/Rome"},
        ),
    )
    assert response.status_code == 302
    turn = Turn.objects.get(pk=battle.turn_id)
    assert turn.battles_deadline is not None and turn.timezone == "Europe/Rome"
    for who in ("side_a", "side_b", "observer"):
        page = cast.client(who).get(url).content.decode()
        assert "Battle results due" in page
        assert "When battle results are due" not in page  # the GM's control only
    html = cast.client("gm").get(url).content.decode()
    assert "1 waiting battle is marked to be auto-resolved at the deadline." in html
    assert "The battles deadline is" in cast.client("gm").get(result_url(battle)).content.decode()

    # a past deadline, or nonsense, is refused with a reason and changes nothing
    for bad in ("2001-01-01T10:00", "tomorrow"):
        response = cast.client("gm").post(
            set_url, turn_stamped(cast.campaign.slug, {"deadline": bad, "timezone": "Europe/Rome"})
        )
        assert response.status_code == 400
        assert Turn.objects.get(pk=battle.turn_id).battles_deadline == turn.battles_deadline
    # a player may not set it
    response = cast.client("side_a").post(set_url, {"deadline": "", "timezone": "UTC"})
    assert response.status_code == 403
    # cleared by the GM
    response = cast.client("gm").post(
        set_url, turn_stamped(cast.campaign.slug, {"deadline": "", "timezone": "UTC"})
    )
    assert response.status_code == 302
    assert Turn.objects.get(pk=battle.turn_id).battles_deadline is None


def test_the_battles_deadline_only_while_battles_wait(cast):
    turn = Turn.objects.get(campaign=cast.campaign, number=1)
    with pytest.raises(ClockError, match="no battles waiting"):
        turn_battles_deadline_set(turn=turn, deadline=timezone.now() + timedelta(days=1))


def test_a_battle_settled_meanwhile_is_left_alone(cast, battle):
    _mark(cast, battle)
    _due(battle)
    due = battles_due_auto_resolve_list(now=_after_deadline())
    assert [b.pk for b in due] == [battle.pk]
    # the GM settles it between the list and the fight
    battle_result_override(
        campaign=cast.campaign,
        battle=battle,
        version=version(battle),
        user=cast.users["gm"],
        note="fought on the table after all",
        data=STALEMATE,
    )
    assert battles_auto_resolve_due(now=_after_deadline()) == []
    assert not BattleAudit.objects.filter(battle=battle, action="auto-resolve-deadline").exists()
