"""The reinforcements page (§9.3, issue 13): a player composes standing requests from his
roster's prices, removes and reorders them; bad input is refused with a plain sentence and
the saved requests stay as they were."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaign.adapters import state_current
from campaign.models import Campaign, Holding, Orders, Player, Turn
from campaign.orders.reinforcement_catalogue import catalogue_get
from campaign.selectors import turn_current
from campaign.turns.services import turn_close, turn_resolve, turn_resolve_after_battles
from tests.campaign.orders.test_orders_page import _stamp

pytestmark = pytest.mark.django_db


def _url(campaign: Campaign, name: str = "reinforcements") -> str:
    return reverse(f"campaign:{name}", args=[campaign.slug])


def _key(campaign: Campaign, player: str, unit_type: str) -> str:
    state = state_current(campaign=campaign)
    catalogue = catalogue_get(campaign=campaign, state=state, player_key=player)
    return next(t.key for t in (*catalogue.units, *catalogue.elite) if t.unit.type == unit_type)


def _general(campaign: Campaign, player: str) -> str:
    state = state_current(campaign=campaign)
    return catalogue_get(campaign=campaign, state=state, player_key=player).generals[0].key


def _requests(campaign: Campaign, player: str) -> list:
    row = Orders.objects.filter(turn=turn_current(campaign=campaign), player__key=player).first()
    return (row.data.get("reinforcements") or []) if row else []


def test_the_page_shows_bank_capital_and_prices(cast):
    Player.objects.filter(campaign=cast.campaign, key="defenders").update(bank=250)
    html = cast.client("side_b").get(_url(cast.campaign)).content.decode()
    assert "250 reinforcement points in the bank." in html
    assert "Ashbury" in html and "Ashbury Garrison" in html  # the force in the capital
    assert "Spearmen (Infantry, Average)" in html
    assert "Knights of the March" in html  # listed apart: Elite, not for sale
    assert "Not for sale, Elite (R9.3.2)" in html


def test_the_orders_page_links_to_it(cast):
    Player.objects.filter(campaign=cast.campaign, key="defenders").update(bank=80)
    html = cast.client("side_b").get(reverse("campaign:orders", args=[cast.campaign.slug]))
    text = html.content.decode()
    assert _url(cast.campaign) in text and "Buy reinforcements" in text
    assert "80 reinforcement points in the bank." in text


def test_add_remove_and_reorder_requests_keep_the_forces_orders(cast):
    c, client = cast.campaign, cast.client("side_b")
    before = (
        Orders.objects.filter(turn=turn_current(campaign=c), player__key="defenders").first().data
    )
    spear, bows = _key(c, "defenders", "Spearmen"), _key(c, "defenders", "Longbowmen")
    r = client.post(_url(c), {**_stamp(c), f"figures_{spear}": "10", "join": "d1"})
    assert r.status_code == 302
    client.post(_url(c), {**_stamp(c), f"figures_{bows}": "5", "general": _general(c, "defenders")})
    reqs = _requests(c, "defenders")
    assert [(q["units"][0]["type"], q["units"][0]["figures"]) for q in reqs] == [
        ("Spearmen", 10),
        ("Longbowmen", 5),
    ]
    assert reqs[0]["units"][0]["points_per_figure"] == 6 and reqs[0]["join"] == "d1"
    page = client.get(_url(c)).content.decode()
    assert "Request 1: 60 points" in page and "Request added: 60 points." in page
    client.post(
        _url(c, "reinforcements-move"),
        {**_stamp(c, requests="defenders"), "index": "1", "direction": "up"},
    )
    assert [q["units"][0]["type"] for q in _requests(c, "defenders")] == ["Longbowmen", "Spearmen"]
    client.post(_url(c, "reinforcements-remove"), {**_stamp(c, requests="defenders"), "index": "0"})
    assert [q["units"][0]["type"] for q in _requests(c, "defenders")] == ["Spearmen"]
    after = Orders.objects.get(turn=turn_current(campaign=c), player__key="defenders").data
    assert after["forces"] == before["forces"]


@pytest.mark.parametrize(
    ("post", "message"),
    [
        ({"figures_t999": "5"}, "There is no such unit type in your roster."),
        ({}, "Choose at least one unit, general or character to buy."),
        ({"figures_SPEAR": "0"}, "Choose at least one unit, general or character to buy."),
        ({"figures_SPEAR": "-3"}, "a number from 0 to 1000"),
        ({"figures_SPEAR": "ten"}, "write a whole number"),
        ({"figures_KNIGHTS": "4"}, "Elite troops cannot be sent as reinforcements"),
        ({"figures_SPEAR": "5", "general": "g99"}, "There is no such general in your roster."),
        ({"general": "g1"}, "A general comes with at least one unit to command"),
        ({"figures_SPEAR": "5", "join": "r1"}, "You command no such force."),
        ({"figures_SPEAR": "5", "status": "shattered"}, "A new force starts under an order"),
    ],
)
def test_bad_requests_are_refused_and_the_saved_ones_kept(cast, post, message):
    c, client = cast.campaign, cast.client("side_b")
    spear = _key(c, "defenders", "Spearmen")
    client.post(_url(c), {**_stamp(c), f"figures_{spear}": "10"})
    keys = {"SPEAR": spear, "KNIGHTS": _key(c, "defenders", "Knights of the March")}
    data = {
        k.replace("SPEAR", keys["SPEAR"]).replace("KNIGHTS", keys["KNIGHTS"]): v
        for k, v in post.items()
    }
    r = client.post(_url(c), {**_stamp(c), **data})
    assert r.status_code == 400
    assert message in r.content.decode()
    assert len(_requests(c, "defenders")) == 1


def test_too_many_characters_for_a_new_force_r9_3_5(cast):
    c, client = cast.campaign, cast.client("side_a")  # no raider force in Wolfstead
    state = state_current(campaign=c)
    cat = catalogue_get(campaign=c, state=state, player_key="raiders")
    levy = _key(c, "raiders", "Tribal levy")
    post = {
        f"figures_{levy}": "10",
        f"count_{cat.characters[0].key}": "2",
        "general": cat.generals[0].key,
    }
    r = client.post(_url(c), {**_stamp(c), **post})
    assert r.status_code == 400 and "Too many characters" in r.content.decode()


def test_a_lost_capital_says_why_nothing_can_be_bought_r9_3_1(cast):
    c = cast.campaign
    raiders = Player.objects.get(campaign=c, key="raiders")
    Holding.objects.filter(campaign=c, key="ashbury").update(owner=raiders)
    html = cast.client("side_b").get(_url(c)).content.decode()
    assert "Your capital Ashbury is in enemy hands" in html
    assert "Add this request" not in html


def test_a_closed_turn_changes_nothing(cast):
    c, client = cast.campaign, cast.client("side_b")
    spear = _key(c, "defenders", "Spearmen")
    client.post(_url(c), {**_stamp(c), f"figures_{spear}": "10"})
    turn = turn_current(campaign=c)
    turn.status = turn.Status.CLOSED
    turn.save(update_fields=["status"])
    r = client.post(
        _url(c, "reinforcements-remove"),
        {**_stamp(c, requests="defenders"), "index": "0"},
        follow=True,
    )
    assert "can no longer be changed" in r.content.decode()
    assert len(_requests(c, "defenders")) == 1


def test_a_confirmed_player_is_told_his_orders_went_back_to_saved(cast):
    c, client = cast.campaign, cast.client("side_b")
    client.post(
        reverse("campaign:orders-confirm", args=[c.slug]),
        {"action": "confirm", **_stamp(c, player="defenders")},
    )
    spear = _key(c, "defenders", "Spearmen")
    r = client.post(_url(c), {**_stamp(c), f"figures_{spear}": "10"}, follow=True)
    assert "set them back to saved" in r.content.decode()
    row = Orders.objects.get(turn=turn_current(campaign=c), player__key="defenders")
    assert row.status == Orders.Status.SAVED


def test_only_players_buy(cast):
    assert cast.client("gm").get(_url(cast.campaign)).status_code == 403
    assert (
        cast.client("observer").post(_url(cast.campaign, "reinforcements-move")).status_code == 403
    )


def _resolve(campaign: Campaign) -> None:
    turn = turn_close(turn=turn_current(campaign=campaign), seed=7)
    turn_resolve(turn_id=turn.pk)
    turn_resolve_after_battles(turn_id=turn.pk)


def test_requests_not_bought_stand_in_the_next_turns_orders(cast):
    c, client = cast.campaign, cast.client("side_b")
    spear = _key(c, "defenders", "Spearmen")
    client.post(_url(c), {**_stamp(c), f"figures_{spear}": "10"})
    _resolve(c)  # day 1: no reinforcements, nothing bought
    row = Orders.objects.get(turn=turn_current(campaign=c), player__key="defenders")
    assert turn_current(campaign=c).number == 2 and row.status == Orders.Status.SAVED
    assert [q["units"][0]["figures"] for q in row.data["reinforcements"]] == [10]
    assert "Request 1: 60 points" in client.get(_url(c)).content.decode()


def test_on_a_reinforcement_day_the_bought_requests_go_and_the_rest_stand(cast):
    c, client = cast.campaign, cast.client("side_b")
    Turn.objects.filter(campaign=c, number=1).update(number=7)  # Phase 6 makes it day 7
    Campaign.objects.filter(pk=c.pk).update(turn_number=7, day=6)
    spear = _key(c, "defenders", "Spearmen")
    client.post(_url(c), {**_stamp(c), f"figures_{spear}": "10", "join": "d1"})
    client.post(
        _url(c), {**_stamp(c), f"figures_{spear}": "1000"}
    )  # 6000 points: more than the bank
    c.refresh_from_db()
    _resolve(c)
    state = state_current(campaign=c)
    assert [u.figures for u in state.force("d1").units if u.type == "Spearmen"] == [10]
    assert state.bank["defenders"] == 360 - 60
    row = Orders.objects.get(turn=turn_current(campaign=c), player__key="defenders")
    assert [q["units"][0]["figures"] for q in row.data["reinforcements"]] == [1000]
    report = client.get(reverse("campaign:report", args=[c.slug, 7])).content.decode()
    assert "10 Spearmen (60 points) arrived for" in report
    assert "in Ashbury and joined Ashbury Garrison." in report
