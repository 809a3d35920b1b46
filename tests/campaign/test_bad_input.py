"""Inputs that used to end in a server error (issue 12, defect 6) get a clear refusal: odd
digits in a query, coordinates and counts of thousands of digits, deadlines at the end of
the calendar, uses and points beyond the database's integers."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.urls import reverse
from django.utils import translation

from battles.entry import _count
from campaign.models import Turn
from campaign.orders.forms import squares_parse
from campaign.selectors import turn_current
from campaign.setup.forms import InvitationForm, PlayerForm, UnitForm
from tests.campaign.orders.test_orders_page import _stamp
from tests.stamp import stamped

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
        response = cast.client("side_a").post(url, {**data, **_stamp(cast.campaign, "r1")})
        assert response.status_code == 400, data
        assert "Click a square of the map" in response.content.decode()


@pytest.mark.parametrize("zone", ["America/Los_Angeles", "UTC", "Asia/Tokyo"])
@pytest.mark.parametrize("when", ["9999-12-31T23:59", "0001-01-01T00:00"])
def test_a_deadline_at_either_end_of_the_calendar_is_refused(cast, zone, when):
    """Even where the date exists (in UTC): resuming a paused turn would move it past the
    end of the calendar."""
    response = cast.client("gm").post(
        _control("deadline"), stamped("incursion", {"deadline": when, "timezone": zone})
    )
    assert response.status_code == 400
    page = response.content.decode()
    if when.startswith("9999"):
        assert "A deadline can be at most 100 years ahead." in page
    else:
        assert "The deadline must be in the future." in page


def test_extending_past_the_end_of_the_calendar_is_refused(cast):
    turn = turn_current(campaign=cast.campaign)
    Turn.objects.filter(pk=turn.pk).update(deadline=datetime(9999, 12, 31, 20, tzinfo=UTC))
    response = cast.client("gm").post(
        _control("extend"), stamped("incursion", {"days": "1", "hours": "0"})
    )
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


@pytest.mark.parametrize(
    ("square", "message"),
    [
        ('{"x": 0, "y": 0, "features": [["forest"]]}', "each feature must be a name"),
        ('{"x": 0, "y": 0, "zone": ["red"]}', 'zone ["red"] is not a player'),
    ],
)
def test_a_json_map_quotes_what_was_written_never_a_python_repr(square, message):
    from campaign.setup.map_import import MapFormatError, map_parse_json

    with pytest.raises(MapFormatError) as refused:
        map_parse_json(f'{{"width": 3, "height": 3, "squares": [{square}]}}', players=["red"])
    (problem,) = refused.value.problems
    assert message in str(problem) and "['" not in str(problem)
    with pytest.raises(MapFormatError, match=r'not \["a"\]'):
        map_parse_json('{"width": ["a"], "height": 3}', players=[])


def test_a_map_of_more_than_a_million_characters_is_refused():
    from campaign.setup.forms import ImportForm

    form = ImportForm({"data": "forest," * 200_000})
    assert not form.is_valid()
    assert form.errors["data"] == [
        "A map is at most a million characters long: this one is far too long."
    ]


def test_putting_back_orders_from_a_malformed_original_keeps_them(cast):
    url = reverse("campaign:orders-force", args=["incursion", "r1"])
    for original in ("[" * 100_000, '{"path": "' + HUGE + ',1"}', "1" * 5000):
        data = {"restore": "1", "original": original, **_stamp(cast.campaign, "r1")}
        response = cast.client("side_a").post(url, data)
        assert response.status_code == 302, original


def test_squares_are_at_most_two_hundred_characters(cast):
    url = reverse("campaign:orders-force", args=["incursion", "r1"])
    data = {"zoc": "stop", "countermarch": "never", "initiative": "early"}
    data |= _stamp(cast.campaign, "r1")
    response = cast.client("side_a").post(url, {**data, "retreat_squares": "1,1; " * 100})
    assert response.status_code == 200
    assert "Ensure this value has at most 200 characters" in response.content.decode()


@pytest.mark.parametrize("page", ["setup-territory", "setup-import", "setup-options"])
def test_an_empty_post_shows_the_form_with_its_errors(page):
    from tests.campaign.setup.test_setup import make_world

    world = make_world()
    response = world.client("gm").post(world.url(page))
    assert response.status_code == 400
    assert 'class="errorlist' in response.content.decode()


def test_a_refusal_of_who_is_asking_says_why(cast):
    response = cast.client("side_a").post(_control("pause"), stamped("incursion"))
    assert response.status_code == 403
    page = response.content.decode()
    assert 'role="alert">Only the game master can do this.</p>' in page
    italian = cast.client("side_a")
    italian.cookies["django_language"] = "it"
    assert (
        "Solo il master può farlo."
        in italian.post(_control("pause"), stamped("incursion")).content.decode()
    )
    translation.activate("en")  # the request left Italian active in this thread


def test_a_json_map_with_a_lone_surrogate_is_refused_in_words():
    from campaign.setup.map_import import MapFormatError, map_parse_json

    text = '{"width": 3, "height": 3, "squares": [{"x": 0, "y": 0, "zone": "\\ud800"}]}'
    with pytest.raises(MapFormatError) as refused:
        map_parse_json(text, players=["red"])
    message = str(refused.value.problems[0])
    assert '"\\ud800"' in message  # quoted as written, in whatever language is active
    message.encode("utf-8")  # the page can be sent
