""" "Your move" (`campaign.todo`): on the home page each campaign is a link with what the user
must do there next, and by when; the overview starts with the same list. Battles are in
tests/battles/test_todo_battles.py."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from campaign.models import Campaign, Turn
from campaign.selectors import turn_current
from campaign.turns.services import turn_open
from tests.campaign.orders.test_orders_page import _confirm_stamp
from tests.reading import reads_in

pytestmark = pytest.mark.django_db

ORDERS = reverse("campaign:orders", args=["incursion"])
DETAIL = reverse("campaign:detail", args=["incursion"])


def _home(cast, who: str) -> str:
    return cast.client(who).get("/").content.decode()


def _confirm(cast, who: str) -> None:
    client = cast.client(who)
    client.post(
        reverse("campaign:orders-confirm", args=["incursion"]),
        {"action": "confirm", **_confirm_stamp(client, cast.campaign)},
    )


def test_the_home_card_links_the_campaign_and_says_what_to_do(cast):
    html = _home(cast, "side_a")
    assert f'<a href="{DETAIL}">{cast.campaign.name}</a>' in html
    assert "Your move" in html
    # load_demo saved orders for each army, not confirmed
    assert f'<a href="{ORDERS}">Confirm your orders for turn 1.</a>' in html


def test_the_due_date_is_shown_with_its_zone_and_what_is_left(cast):
    reads_in(cast.users["side_a"], zone="Europe/Rome")
    turn_open(
        turn=turn_current(campaign=cast.campaign),
        deadline=timezone.now() + timedelta(days=2, hours=1),
        timezone="Europe/Rome",
    )
    html = _home(cast, "side_a")
    assert re.search(r"Due \d+ \w+ \d{4}, \d\d:\d\d CES?T: 2\xa0days", html)


def test_a_player_without_orders_is_asked_for_them_and_one_who_confirmed_waits(cast):
    turn = turn_current(campaign=cast.campaign)
    turn.orders.filter(player__key="raiders").delete()
    assert "Give your orders for turn 1." in _home(cast, "side_a")

    _confirm(cast, "side_b")
    html = cast.client("side_b").get(DETAIL).content.decode()
    assert "Nothing for you to do now." in html
    assert "Waiting for the other players&#x27; orders for turn 1." in html


def test_the_gm_sees_who_has_not_confirmed_then_that_he_closes(cast):
    html = _home(cast, "gm")
    assert "2 players have not confirmed their orders for turn 1 yet" in html
    _confirm(cast, "side_a")
    assert "1 player has not confirmed the orders for turn 1 yet: " in _home(cast, "gm")
    _confirm(cast, "side_b")
    html = cast.client("gm").get(DETAIL).content.decode()
    assert "Every player has confirmed: close turn 1 and resolve it." in html
    assert 'href="/c/incursion/#turn-controls"' in html and 'id="turn-controls"' in html


def test_with_auto_close_the_gm_is_not_asked_to_close(cast):
    Campaign.objects.filter(pk=cast.campaign.pk).update(auto_close=True)
    _confirm(cast, "side_a")
    # the defenders' confirmation would close the turn; before it, nothing asks the GM to
    assert "close turn 1" not in _home(cast, "gm")


def test_an_observer_has_nothing_to_do(cast):
    html = _home(cast, "observer")
    assert "Nothing for you to do now." in html
    assert "Confirm your orders" not in html


def test_in_set_up_the_gm_sets_up_and_players_write_rosters(cast, django_user_model):
    Campaign.objects.filter(pk=cast.campaign.pk).update(setup_open=True)
    assert "2 armies&#x27; rosters are not ready yet" in _home(cast, "gm")
    html = _home(cast, "side_a")
    assert "Write the roster of" in html
    assert reverse("campaign:roster", args=["incursion"]) in html
    assert "Being set up" in html


def test_an_ended_campaign_links_its_end_page_everywhere(cast):
    Campaign.objects.filter(pk=cast.campaign.pk).update(ended="will-to-fight", winner="raiders")
    end = reverse("campaign:end", args=["incursion"])
    assert f'<a href="{end}">The campaign has ended: see who won.</a>' in _home(cast, "side_b")
    for url in (DETAIL, reverse("campaign:map", args=["incursion"]), ORDERS):
        html = cast.client("side_b").get(url).content.decode()
        assert "This campaign has ended." in html and end in html, url


def test_the_home_page_counts_the_turn_as_the_overview_does(cast):
    # once the campaign has ended, the rules' turn counter runs one past the last turn
    Campaign.objects.filter(pk=cast.campaign.pk).update(turn_number=2, day=4)
    assert Turn.objects.filter(campaign=cast.campaign).count() == 1
    assert "Turn 1, day 4" in _home(cast, "gm")
    assert "Turn 1, day 4" in cast.client("gm").get(DETAIL).content.decode()


def test_the_home_page_queries_stay_few_per_campaign(cast, django_assert_max_num_queries):
    client = cast.client("gm")
    with django_assert_max_num_queries(12):
        client.get("/")
