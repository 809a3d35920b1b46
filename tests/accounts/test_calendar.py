"""A user's private calendar of deadlines (issue 30): made and reset from the account page, read
at its secret address by a calendar application (no login), parsed here with `icalendar`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import icalendar
import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.calendar import calendar_token
from accounts.models import Profile
from campaign.models import Turn

pytestmark = pytest.mark.django_db

PROFILE = reverse("accounts:profile")
RESET = reverse("accounts:calendar-reset")


def _make(client, shown: str = "") -> str:
    response = client.post(RESET, {"calendar": shown})
    assert response.status_code == 302
    assert response["Location"] == f"{PROFILE}#calendar"
    return str(client.get(PROFILE).content, "utf-8")


def _feed(client, user) -> icalendar.Calendar:
    token = calendar_token(user=user)
    response = client.get(reverse("accounts:calendar-feed", args=[token]))
    assert response.status_code == 200
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    return icalendar.Calendar.from_ical(response.content)


def _deadline(turn: Turn, days: int) -> datetime:
    moment = (timezone.now() + timedelta(days=days)).replace(microsecond=0)
    turn.deadline = moment
    turn.save(update_fields=["deadline"])
    return moment


def test_the_account_page_makes_the_address_and_the_feed_holds_the_deadline(cast):
    raider = cast.users["side_a"]
    client = cast.client("side_a")
    assert "Make my calendar address" in str(client.get(PROFILE).content, "utf-8")
    page = _make(client)
    token = calendar_token(user=raider)
    assert token and f"/accounts/calendar/{token}.ics" in page
    assert "Your calendar is ready" in page

    turn = cast.campaign.turns.get(number=1)
    due = _deadline(turn, 3)
    anonymous = cast.client("anonymous")  # a calendar application sends no cookie
    events = _feed(anonymous, raider).walk("VEVENT")
    assert [str(e["SUMMARY"]) for e in events] == ["Incursion: orders for turn 1 are due"]
    assert events[0].decoded("DTSTART") == due.astimezone(UTC)
    assert str(events[0]["UID"]).startswith(f"turn-{turn.pk}-orders@")
    assert str(events[0]["URL"]).endswith("/c/incursion/")

    # the GM moves the deadline: the same event, at the new moment
    moved = _deadline(turn, 5)
    (event,) = _feed(anonymous, raider).walk("VEVENT")
    assert event.decoded("DTSTART") == moved.astimezone(UTC)
    assert str(event["UID"]) == str(events[0]["UID"])


def test_a_paused_turn_and_a_campaign_of_others_are_not_in_the_feed(cast):
    turn = cast.campaign.turns.get(number=1)
    _deadline(turn, 3)
    outsider = cast.client("outsider")
    _make(outsider)
    assert _feed(outsider, cast.users["outsider"]).walk("VEVENT") == []
    gm = cast.client("gm")
    _make(gm)
    turn.paused_at = timezone.now()
    turn.save(update_fields=["paused_at"])
    assert _feed(gm, cast.users["gm"]).walk("VEVENT") == []


def test_the_battles_deadline_is_in_the_feed(cast):
    turn = cast.campaign.turns.get(number=1)
    turn.status = Turn.Status.BATTLES
    turn.battles_deadline = timezone.now() + timedelta(days=2)
    turn.save(update_fields=["status", "battles_deadline"])
    client = cast.client("side_b")
    _make(client)
    (event,) = _feed(client, cast.users["side_b"]).walk("VEVENT")
    assert str(event["SUMMARY"]) == "Incursion: battle results of turn 1 are due"


def test_the_feed_is_written_in_its_reader_s_language(cast):
    raider = cast.users["side_a"]
    Profile.objects.update_or_create(user=raider, defaults={"language": "it"})
    client = cast.client("side_a")
    _make(client)
    _deadline(cast.campaign.turns.get(number=1), 3)
    (event,) = _feed(client, raider).walk("VEVENT")
    assert str(event["SUMMARY"]) == "Incursion: gli ordini del turno 1 scadono"


def test_a_reset_ends_the_old_address_and_a_stale_page_resets_nothing(cast):
    raider = cast.users["side_a"]
    client = cast.client("side_a")
    _make(client)
    old = calendar_token(user=raider)
    page = _make(client, shown=str(old))
    new = calendar_token(user=raider)
    assert new != old and "the old one no longer works" in page
    gone = client.get(reverse("accounts:calendar-feed", args=[old]))
    assert gone.status_code == 404

    # a second tab still shows the old address: its reset is refused, nothing changes
    page = _make(client, shown=str(old))
    assert calendar_token(user=raider) == new
    assert "changed on another page" in page and f"{new}.ics" in page


def test_the_reset_needs_a_login_and_a_post(cast):
    anonymous = cast.client("anonymous")
    response = anonymous.post(RESET, {"calendar": ""})
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    assert cast.client("side_a").get(RESET).status_code == 405
    assert anonymous.get(reverse("accounts:calendar-feed", args=["nope"])).status_code == 404


def test_a_long_name_with_commas_and_accents_is_escaped_and_folded(cast):
    """RFC 5545: commas and semicolons escaped, lines folded at 75 octets, never inside a
    character: the parser reads the name back whole."""
    name = "La lunga campagna, città; castelli e «guerrieri» della Marca d'Oriente " * 2
    cast.campaign.name = name.strip()
    cast.campaign.save(update_fields=["name"])
    _deadline(cast.campaign.turns.get(number=1), 3)
    client = cast.client("gm")
    _make(client)
    response = client.get(
        reverse("accounts:calendar-feed", args=[calendar_token(user=cast.users["gm"])])
    )
    assert all(len(line) <= 75 for line in response.content.split(b"\r\n"))
    (event,) = icalendar.Calendar.from_ical(response.content).walk("VEVENT")
    assert str(event["SUMMARY"]) == f"{name.strip()}: orders for turn 1 are due"
