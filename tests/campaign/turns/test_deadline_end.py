"""A deadline near the end of the calendar (issue 28: "turn_resume still overflows on a stored
deadline near year 9999 (an import or the admin can set one)"). The import and the admin
refuse one more than 100 years ahead, as the GM's form does; whatever moves a stored deadline
on (resume, extend, the next turn's schedule) refuses or leaves it rather than overflow; the
periodic checks and reminders read it without harm."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from campaign.errors import ServiceError
from campaign.exchange.export import campaign_export, export_json
from campaign.exchange.importing import campaign_import
from campaign.models import Campaign, Turn
from campaign.selectors import turn_current
from campaign.turns.services import (
    ClockError,
    turn_deadlines_check,
    turn_extend,
    turn_next_schedule,
    turn_open,
    turn_resume,
)
from notifications.services import notify_reminders_due
from tests.stamp import stamped

pytestmark = pytest.mark.django_db

END = datetime(9999, 12, 31, 20, tzinfo=UTC)  # a date that exists in UTC, not in Tokyo
NEAR_END = datetime(9999, 12, 29, tzinfo=UTC)  # one that exists everywhere


def _set(turn: Turn, **fields) -> Turn:
    """What the admin or an old import could store, written past every check."""
    Turn.objects.filter(pk=turn.pk).update(**fields)
    return Turn.objects.get(pk=turn.pk)


def _paused(cast, deadline: datetime, paused_for: timedelta) -> Turn:
    turn = turn_current(campaign=cast.campaign)
    return _set(turn, deadline=deadline, paused_at=timezone.now() - paused_for)


@pytest.mark.parametrize("deadline", [END, NEAR_END])
def test_resuming_a_deadline_at_the_end_of_the_calendar_is_refused(cast, deadline):
    turn = _paused(cast, deadline, timedelta(days=3))
    with pytest.raises(ClockError) as refused:
        turn_resume(turn=turn)
    assert str(refused.value.message) == (
        "Turn 1 cannot resume: moved on by the time it was paused, its deadline would fall "
        "past the end of the calendar. Set an earlier deadline first."
    )
    turn = Turn.objects.get(pk=turn.pk)
    assert turn.paused and turn.deadline == deadline  # nothing changed


def test_the_gm_is_told_so_on_the_overview_and_resumes_once_he_set_an_earlier_one(cast):
    turn = _paused(cast, END, timedelta(hours=1))
    client = cast.client("gm")
    response = client.post(
        reverse("campaign:turn-resume", args=["incursion"]), stamped("incursion")
    )
    assert response.status_code == 400
    assert "Turn 1 cannot resume: moved on by the time it was paused" in response.content.decode()
    far = datetime(timezone.now().year + 50, 1, 1)
    turn_open(turn=turn, deadline=far, timezone="UTC")  # still paused, from now
    turn_resume(turn=Turn.objects.get(pk=turn.pk))
    turn = Turn.objects.get(pk=turn.pk)
    assert not turn.paused
    assert turn.deadline - far.replace(tzinfo=UTC) < timedelta(minutes=1)


def test_a_pause_moves_a_far_deadline_on_as_ever(cast):
    far = datetime(2199, 1, 1, tzinfo=UTC)
    turn = _paused(cast, far, timedelta(hours=2))
    turn_resume(turn=turn)
    moved = Turn.objects.get(pk=turn.pk).deadline - far
    assert timedelta(hours=2) <= moved < timedelta(hours=2, minutes=1)


def test_extending_to_the_last_day_of_the_calendar_is_refused(cast):
    """9999-12-30 plus a day exists in UTC, but not on Tokyo's clock: refused like a later
    one (the overview shows the deadline in the turn's time zone)."""
    turn = _set(turn_current(campaign=cast.campaign), deadline=NEAR_END, timezone="Asia/Tokyo")
    with pytest.raises(ClockError, match="That date is too far ahead to be a deadline."):
        turn_extend(turn=turn, days=2)
    assert Turn.objects.get(pk=turn.pk).deadline == NEAR_END
    assert Turn.objects.get(pk=turn.pk).extensions == 0


def test_the_next_turn_of_a_deadline_at_the_end_of_the_calendar_has_none(cast):
    """The next turn gets the previous turn's duration: from a deadline near year 9999 that
    would overflow, in the middle of a resolution. It gets no deadline; the GM sets one."""
    call_command("resolve_turn", "incursion", "--seed", "5", stdout=StringIO())
    first = Turn.objects.get(campaign=cast.campaign, number=1)
    nxt = _set(turn_current(campaign=cast.campaign), deadline=None)
    assert nxt.number == 2
    opened = timezone.now() - timedelta(days=10)
    first = _set(first, deadline=END, opened_at=opened)
    assert turn_next_schedule(previous=first) is not None
    assert Turn.objects.get(pk=nxt.pk).deadline is None
    first = _set(first, deadline=opened + timedelta(days=3))  # an ordinary one still carries
    turn_next_schedule(previous=first)
    nxt = Turn.objects.get(pk=nxt.pk)
    assert nxt.deadline - nxt.opened_at == timedelta(days=3)


def test_the_periodic_checks_and_reminders_read_it_without_harm(cast):
    turn = _set(turn_current(campaign=cast.campaign), deadline=END)
    check = turn_deadlines_check()
    assert check.closed == [] and Turn.objects.get(pk=turn.pk).is_open
    assert notify_reminders_due() == []
    _set(turn, paused_at=timezone.now())  # paused: the same checks skip it
    assert turn_deadlines_check().closed == []


def test_the_service_refuses_a_deadline_more_than_a_century_ahead(cast):
    turn = turn_current(campaign=cast.campaign)
    with pytest.raises(ClockError, match="A deadline can be at most 100 years ahead."):
        turn_open(turn=turn, deadline=datetime(9999, 12, 30, 12), timezone="UTC")


@pytest.mark.parametrize("field", ["deadline", "battles_deadline"])
def test_the_import_refuses_a_deadline_at_the_end_of_the_calendar(cast, field):
    data = json.loads(export_json(campaign_export(campaign=cast.campaign)))
    data["turns"][0][field] = "9999-12-31T20:00:00+00:00"
    with pytest.raises(ServiceError) as refused:
        campaign_import(data=data, slug="copy")
    assert str(refused.value.message) == (
        f"Malformed export: turn 1's {field} (9999-12-31T20:00:00+00:00) is more than 100 "
        "years ahead; a deadline can be at most 100 years ahead."
    )
    assert not Campaign.objects.filter(slug="copy").exists()
    data["turns"][0][field] = "2099-01-01T00:00:00+00:00"  # far, but within a century
    assert campaign_import(data=data, slug="copy").campaign.turns.get(number=1)


def test_the_import_command_says_which_turn_and_field(cast, tmp_path):
    data = json.loads(export_json(campaign_export(campaign=cast.campaign)))
    data["turns"][0]["deadline"] = "9999-12-31T20:00:00+00:00"
    path = tmp_path / "export.json"
    path.write_text(json.dumps(data))
    with pytest.raises(Exception, match=r"turn 1's deadline \(9999-12-31T20:00:00\+00:00\)"):
        call_command("import_campaign", str(path), "--slug", "copy", stdout=StringIO())


def test_the_admin_refuses_a_deadline_more_than_a_century_ahead():
    field = Turn._meta.get_field("deadline")
    with pytest.raises(ValidationError, match="at most 100 years ahead"):
        field.run_validators(END)
    field.run_validators(datetime(2099, 1, 1, tzinfo=UTC))  # within a century: accepted
    with pytest.raises(ValidationError):
        Turn._meta.get_field("battles_deadline").run_validators(END)
