"""The GM inbox (`campaign:inbox`): everything that holds up the current turn, each item with a
link to where it is settled; only the GM may open it."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from battles.models import Battle
from campaign.models import Force, Orders, Player
from campaign.reports.views import _battle_url as battle_url
from tests.conftest import CAST

pytestmark = pytest.mark.django_db

URL = reverse("campaign:inbox", args=["incursion"])


def inbox(cast, **extra) -> str:
    response = cast.client("gm").get(URL, **extra)
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize("who, status", zip(CAST, (200, 403, 403, 403, 404, 404, 302), strict=True))
def test_the_cast_on_the_inbox(cast, who, status):
    response = cast.client(who).get(URL)
    assert response.status_code == status
    if who == "anonymous":
        assert response["Location"].startswith(reverse("login"))


def test_missing_and_unconfirmed_orders_link_to_the_overview(cast):
    Orders.objects.filter(player__key="raiders").delete()
    html = inbox(cast)
    assert "Turn 1 is open for orders." in html
    assert "The Grey Fell Clans has not sent orders for turn 1." in html
    assert "The March of Ashbury has saved orders for turn 1 but not confirmed them." in html
    assert html.count(f'href="{reverse("campaign:detail", args=["incursion"])}"') >= 2


def test_banked_points_without_a_request(cast):
    Player.objects.filter(key="defenders").update(bank=60)
    html = inbox(cast)
    assert (
        "The March of Ashbury has 60 reinforcement points banked and no standing reinforcement "
        "request: the points will stay in the bank." in html
    )
    assert "The Grey Fell Clans has" not in html.split("not confirmed")[-1]


def test_an_empty_inbox_says_so(cast):
    Orders.objects.update(status=Orders.Status.CONFIRMED)
    html = inbox(cast)
    assert "Nothing is blocking the turn: the inbox is empty." in html


def test_pending_battle_and_default_retreat_link_to_the_battle(cast):
    Force.objects.filter(campaign=cast.campaign, key="d3").update(x=4, y=8)
    call_command("resolve_turn", "incursion", "--seed", "7", stdout=StringIO())
    battle = Battle.objects.get(campaign=cast.campaign, key="t1-b1")
    html = inbox(cast)
    assert "Turn 1 waits for battle results." in html
    assert "Battle 1 of turn 1 at (4, 8) has no result yet." in html
    # the defenders' standing orders name no retreat square; the Red Riders' do
    assert (
        "The Southern March (The March of Ashbury) has no retreat square in its orders for "
        "battle 1 of turn 1: the default retreat will apply (R8.4)." in html
    )
    assert "The Red Riders (" not in html
    assert html.count(f'href="{battle_url(battle)}"') == 2
    assert "orders for turn 1" not in html  # the turn is closed: orders no longer block it


def test_htmx_refresh_gets_only_the_items(cast):
    fragment = inbox(cast, HTTP_HX_REQUEST="true")
    assert fragment.lstrip().startswith('<div id="inbox-items">')
    assert "<html" not in fragment
    assert f'hx-get="{URL}"' in fragment and f'href="{URL}"' in fragment


def test_the_inbox_link_is_shown_to_the_gm_only(cast):
    report = reverse("campaign:report", args=["incursion", 1])
    assert f'href="{URL}"' in cast.client("gm").get(report).content.decode()
    assert f'href="{URL}"' not in cast.client("side_a").get(report).content.decode()
