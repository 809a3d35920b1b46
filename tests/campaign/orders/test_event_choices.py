"""The orders page's "Random events" box (issue 13): the player chooses in advance whether he
rolls again when an event says he may (*potete rilanciare*, §9.4.1 8, §11.8) and where the
blows the book leaves to him fall (A-41); the engine's Phase 8 then uses his choices."""

from __future__ import annotations

from dataclasses import replace

import pytest
from django.urls import reverse

from campaign import adapters
from campaign.exchange.export import campaign_export
from campaign.exchange.importing import campaign_import
from campaign.models import Campaign, Orders
from campaign.selectors import turn_current
from rules import ScriptedDice
from rules.phases import random_events
from tests.campaign.orders.test_orders_page import _stamp

pytestmark = pytest.mark.django_db

BOX = "Random events"
STRESS = "A leader under stress: the force whose leader drops to CV 2"


def _url(campaign: Campaign, name: str) -> str:
    return reverse(f"campaign:{name}", args=[campaign.slug])


def _orders(campaign: Campaign, player: str) -> Orders | None:
    return Orders.objects.filter(turn=turn_current(campaign=campaign), player__key=player).first()


def _random_events_on(campaign: Campaign) -> None:
    campaign.options = {**campaign.options, "random_events": True}
    campaign.save(update_fields=["options"])


def test_the_defender_is_offered_the_reroll_of_his_day_7_table(cast):
    html = cast.client("side_b").get(_url(cast.campaign, "orders")).content.decode()
    assert BOX in html and "When an event says you may roll again" in html
    assert 'value="yes" id="event-reroll-yes" checked' in html  # the default: roll again
    assert STRESS in html  # his day-28 table (2: a leader under stress)
    assert "An epidemic: in which holding" not in html  # only in the general tables (§9.4.3)


def test_with_the_general_tables_every_choice_is_offered(cast):
    _random_events_on(cast.campaign)
    html = cast.client("side_b").get(_url(cast.campaign, "orders")).content.decode()
    assert "An epidemic: in which holding" in html and '<option value="oakley">Oakley' in html


def test_a_player_saves_his_event_choices_and_the_engine_uses_them(cast):
    _random_events_on(cast.campaign)
    client = cast.client("side_b")
    html = client.get(_url(cast.campaign, "orders")).content.decode()
    assert STRESS in html and '<option value="d3">' in html and "Oakley" in html
    assert '<option value="r1">' not in html  # only his own forces
    before = _orders(cast.campaign, "defenders")
    response = client.post(
        _url(cast.campaign, "orders-events"),
        {
            **_stamp(cast.campaign),
            "box": "events",
            "event_reroll": "no",
            "leader-stress-1": "d3",
            "leader-stress-2": "d3",  # a repeat adds nothing
            "leader-stress-3": "d1",
            "epidemic-holding-1": "oakley",
        },
    )
    assert response.status_code == 302
    assert response["Location"].endswith("#orders-events")
    row = _orders(cast.campaign, "defenders")
    assert row is not None
    assert row.data["event_reroll"] is False
    assert row.data["event_targets"] == {
        "leader-stress": ["d3", "d1"],
        "epidemic-holding": ["oakley"],
    }
    if before is not None:
        assert row.data["forces"] == before.data["forces"]
    html = client.get(response["Location"]).content.decode()
    assert "Choices saved." in html
    assert 'value="no" id="event-reroll-no" checked' in html
    assert '<option value="d3" selected>' in html

    # Phase 8 of day 28 reads them: the defenders' 2 (leader under stress) strikes d3's
    # leader, not d2's (the rules' own pick: the lowest CV above 2, lowest id)
    state = adapters.state_load(campaign=cast.campaign)
    po = adapters.orders_from_data("defenders", row.data)
    state = replace(state, day=28, orders={"defenders": po})
    state = replace(state, options=replace(state.options, random_events=False))
    dice = ScriptedDice([1, 2, 3])  # snow; defenders: leader stress; raiders: nothing
    new, _events = random_events.resolve(state, dice)
    dice.assert_exhausted()
    assert (new.force("d3").cv, new.force("d2").cv) == (2, state.force("d2").cv)


def test_a_force_not_his_is_refused_and_nothing_is_saved(cast):
    _random_events_on(cast.campaign)
    before = _orders(cast.campaign, "defenders")
    response = cast.client("side_b").post(
        _url(cast.campaign, "orders-events"),
        {**_stamp(cast.campaign), "box": "events", "event_reroll": "yes", "leader-stress-1": "r1"},
        follow=True,
    )
    assert "only forces or holdings of yours" in response.content.decode()
    after = _orders(cast.campaign, "defenders")
    assert (after.data if after else None) == (before.data if before else None)


@pytest.mark.parametrize(("who", "status"), [("gm", 403), ("observer", 403), ("outsider", 404)])
def test_only_a_player_saves_event_choices(cast, who, status):
    before = _orders(cast.campaign, "defenders")
    response = cast.client(who).post(
        _url(cast.campaign, "orders-events"),
        {**_stamp(cast.campaign), "box": "events", "event_reroll": "no"},
    )
    assert response.status_code == status
    after = _orders(cast.campaign, "defenders")
    assert (after.data if after else None) == (before.data if before else None)


def test_the_event_choices_survive_export_and_import(cast):
    _random_events_on(cast.campaign)
    cast.client("side_b").post(
        _url(cast.campaign, "orders-events"),
        {**_stamp(cast.campaign), "box": "events", "event_reroll": "no", "blizzard-1": "d2"},
    )
    copy = campaign_import(data=campaign_export(campaign=cast.campaign), slug="copy").campaign
    row = _orders(copy, "defenders")
    assert row is not None
    po = adapters.orders_from_data("defenders", row.data)
    assert po.event_reroll is False and dict(po.event_targets) == {"blizzard": ("d2",)}
