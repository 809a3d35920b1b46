"""Inputs that used to end in a server error (issue 12, defect 6) get a clear refusal: odd
digits in a query, coordinates and counts of thousands of digits, deadlines at the end of
the calendar, uses and points beyond the database's integers."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.urls import reverse

from battles.entry import _count
from campaign.models import Turn
from campaign.orders.forms import squares_parse
from campaign.selectors import turn_current
from campaign.setup.forms import InvitationForm, PlayerForm, UnitForm

pytestmark = pytest.mark.django_db

HUGE = "9" * 5000


def _control(action: str) -> str:
    return reverse(f"campaign:turn-{action}", args=["incursion"])


def test_a_turn_in_other_digits_shows_the_battles_page(cast):
    url = reverse("battles:history", args=["incursion"])
    for raw in ("²", "٣", HUGE):
        assert cast.client("gm").get(url, {"turn": raw}).status_code == 200


def test_coordinates_of_thousands_of_digits_are_refused_with_a_message(cast):
    with pytest.raises(Exception, match="Write squares as x,y"):
        squares_parse(f"{HUGE},1")
    url = reverse("campaign:orders-path", args=["incursion", "r1"])
    for data in ({"square": f"{HUGE},1"}, {"x": HUGE, "y": "1"}, {"path": f"{HUGE},3"}):
        response = cast.client("side_a").post(url, data)
        assert response.status_code == 400, data
        assert "Click a square of the map" in response.content.decode()


@pytest.mark.parametrize("zone", ["America/Los_Angeles", "UTC"])
def test_a_deadline_at_the_end_of_the_calendar_is_refused(cast, zone):
    response = cast.client("gm").post(
        _control("deadline"), {"deadline": "9999-12-31T23:59", "timezone": zone}
    )
    if zone == "UTC":  # it exists: a deadline, far away
        assert response.status_code == 302
        return
    assert response.status_code == 400
    assert "That date is too far ahead to be a deadline." in response.content.decode()


def test_extending_past_the_end_of_the_calendar_is_refused(cast):
    turn = turn_current(campaign=cast.campaign)
    Turn.objects.filter(pk=turn.pk).update(deadline=datetime(9999, 12, 31, 20, tzinfo=UTC))
    response = cast.client("gm").post(_control("extend"), {"days": "1", "hours": "0"})
    assert response.status_code == 400
    assert "That date is too far ahead to be a deadline." in response.content.decode()


def test_counts_beyond_the_database_are_form_errors():
    invitation = InvitationForm({"role": "player", "max_uses": 2**31})
    assert not invitation.is_valid() and "max_uses" in invitation.errors
    player = PlayerForm({"initial_points": 2**31}, sides=[])
    assert not player.is_valid() and "initial_points" in player.errors
    unit = UnitForm({"figures": 2**40, "points_per_figure": 2**40})
    assert not unit.is_valid()
    assert {"figures", "points_per_figure"} <= set(unit.errors)


def test_a_result_count_in_other_digits_is_not_a_number():
    assert _count("²") is None and _count(HUGE) is None
    assert _count("12") == 12 and _count("-3") == -3


@pytest.mark.parametrize(
    "text",
    [
        '{"width": 3, "height": 3, "squares": [{"x": 0, "y": 0, "zone": ["red"]}]}',
        '{"width": 3, "height": 3, "squares": [{"x": 0, "y": 0, "zone": {"a": 1}}]}',
        "[" * 100_000 + "]" * 100_000,
        '{"width": ' + "9" * 5000 + ', "height": 3, "squares": []}',
    ],
)
def test_a_malformed_json_map_is_refused_with_a_message(text):
    from campaign.setup.map_import import MapFormatError, map_parse_json

    with pytest.raises(MapFormatError) as refused:
        map_parse_json(text, players=["red"])
    assert str(refused.value.problems[0])


def test_a_csv_map_with_an_endless_cell_is_refused_with_a_message():
    from campaign.setup.map_import import MapFormatError, map_parse_csv

    with pytest.raises(MapFormatError, match="far too long"):
        map_parse_csv('"' + "x" * 200_000 + '"\n', players=["red"])
