"""What a save and a battle page cost does not depend on the campaign's size (issue 14): one
force's orders saved through the htmx editor, and a battle's detail, pack and result pages,
take as many queries in a campaign of 200 forces as in one of 10; the save's reply is one
card, not the page."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from battles.models import Battle
from campaign.models import Campaign, Force, Membership
from campaign.selectors import turn_current
from campaign.setup.invitations import membership_add, user_get_or_create
from campaign.turns.services import turn_close, turn_resolve
from tests.campaign.orders.test_orders_page import _force_data, _stamp

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def _save_cost(make_campaign, client, forces: int) -> tuple[int, int, int]:
    """(queries of a save, queries of the editor, bytes of the save's reply); the editor
    holds click targets near the force only, not one per square of the map."""
    campaign = make_campaign(width=40, height=40, players=4, forces=forces, seed=3)
    Campaign.objects.filter(pk=campaign.pk).update(fog_of_war=True)
    player = campaign.players.get(key="p1")
    user = user_get_or_create(username=f"cost-{forces}")
    membership_add(campaign=campaign, user=user, role=Membership.Role.PLAYER, player=player)
    client.force_login(user)
    force = Force.objects.filter(campaign=campaign, owner=player).order_by("key").first()
    url = reverse("campaign:orders-force", args=[campaign.slug, force.key])
    client.get(url, headers=HTMX)  # warm: sessions, the header's counts
    with CaptureQueriesContext(connection) as editor:
        opened = client.get(url, headers=HTMX)
    assert opened.status_code == 200
    assert opened.content.count(b'class="click"') <= 11 * 11  # within 5 squares of it
    data = {**_force_data(), **_stamp(campaign, force.key)}
    with CaptureQueriesContext(connection) as save:
        response = client.post(url, data, headers=HTMX)
    assert response.status_code == 200 and b"Saved." in response.content
    return len(save), len(editor), len(response.content)


def test_a_save_takes_as_many_queries_in_a_big_campaign_as_in_a_small_one(make_campaign, client):
    small = _save_cost(make_campaign, client, 10)
    big = _save_cost(make_campaign, client, 200)
    assert big[0] == small[0], (small, big)  # the save
    assert big[1] == small[1], (small, big)  # the editor
    assert big[2] < 60_000  # one card, not the page


def _battle_cost(make_campaign, submit_orders, client, forces: int, side: int) -> dict[str, int]:
    """Queries of a battle's detail, pack and result pages, as the GM, after Phases 0–2 (on
    a map of `side` squares a side, crowded enough for battles)."""
    campaign = make_campaign(width=side, height=side, players=4, forces=forces, seed=5)
    submit_orders(campaign, seed=5)
    turn = turn_close(turn=turn_current(campaign=campaign), seed=5)
    turn_resolve(turn_id=turn.pk)
    battle = Battle.objects.filter(turn=turn).order_by("key").first()
    assert battle is not None, "the generated turn has no battle"
    gm = user_get_or_create(username=f"gm-{forces}")
    membership_add(campaign=campaign, user=gm, role=Membership.Role.GM)
    client.force_login(gm)
    out = {}
    for name in ("battles:detail", "battles:pack", "battles:result"):
        url = reverse(name, args=[campaign.slug, battle.key])
        client.get(url)
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url).status_code == 200
        out[name] = len(queries)
    return out


def test_battle_pages_take_as_many_queries_in_a_big_campaign(make_campaign, submit_orders, client):
    small = _battle_cost(make_campaign, submit_orders, client, 10, 6)
    big = _battle_cost(make_campaign, submit_orders, client, 200, 24)
    assert big == small


def test_a_save_keeps_the_orders_as_a_fresh_reading_gives_them(make_campaign, client):
    """A save decodes only the force it changes (the rest as the page read them) and keeps
    what it wrote decoded for the next page: both exactly as decoding the stored row gives."""
    from campaign import adapters
    from campaign.models import Orders
    from campaign.orders.selectors import orders_decoded

    _save_cost(make_campaign, client, 10)
    row = Orders.objects.select_related("player").get(player__key="p1")
    fresh = adapters.orders_from_data(row.player.key, row.data)
    assert orders_decoded(row.player.key, row.data) == fresh
    assert fresh.forces  # the saved force is there


def test_a_big_army_s_orders_page_draws_its_first_cards_and_the_rest_when_scrolled_to(
    make_campaign, client
):
    """A player with more forces than `CARDS_AT_ONCE` gets that many cards drawn whole; each
    other is its name, status and a link, and asks for its card when scrolled to (htmx)."""
    from campaign.orders.selectors import CARDS_AT_ONCE

    campaign = make_campaign(width=40, height=40, players=2, forces=2 * (CARDS_AT_ONCE + 6))
    player = campaign.players.get(key="p1")
    user = user_get_or_create(username="big-army")
    membership_add(campaign=campaign, user=user, role=Membership.Role.PLAYER, player=player)
    client.force_login(user)
    html = client.get(reverse("campaign:orders", args=[campaign.slug])).content.decode()
    mine = list(Force.objects.filter(campaign=campaign, owner=player).order_by("position", "key"))
    assert len(mine) > CARDS_AT_ONCE
    assert html.count("Edit the orders of") == CARDS_AT_ONCE
    later = mine[-1]
    assert html.count('hx-trigger="revealed"') == len(mine) - CARDS_AT_ONCE
    url = reverse("campaign:orders-force", args=[campaign.slug, later.key])
    assert f'hx-get="{url}?view=summary"' in html
    assert f"Show the orders of {later.name or later.key}" in html
    card = client.get(url + "?view=summary", headers=HTMX).content.decode()
    assert f'id="orders-force-{later.key}"' in card and "Edit the orders of" in card
