"""The orders page's odds against a visible enemy force (`campaign:orders-odds`): the tactical
engine fights the player's force against the enemy as his side sees it (figures and status,
never its hidden roster), through a Celery task whose result is cached per input; a hidden or
unknown enemy gets the same refusal; the panel polls until the odds are in."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils.html import escape

from battles.models import WhatIfOdds
from battles.selectors import what_if_hash, what_if_input_get
from campaign import adapters
from campaign.models import Campaign, Force, Turn, Unit
from rules.tactical.inputs import seen_force
from rules.types import Quality, Speciality, Status

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
SOUTH = ("The Southern March", "Lady Margaret Fenwick")  # d3, defenders
HIDDEN = {"d1": ("Ashbury Garrison", "Sir Edmund Ashby"), "d2": ("The Northern March", "")}


def _url(campaign: Campaign, force: str = "r1") -> str:
    return reverse("campaign:orders-odds", args=[campaign.slug, force])


def _show_d3(campaign: Campaign) -> None:
    """The Southern March next to the Jarl's Host (3, 5): in the raiders' sight."""
    Force.objects.filter(campaign=campaign, key="d3").update(x=4, y=4)


def _state(campaign: Campaign):
    return adapters.state_load(campaign=Campaign.objects.get(pk=campaign.pk))


def test_the_orders_page_offers_the_visible_enemy_only(cast):
    url = reverse("campaign:orders", args=[cast.campaign.slug])
    html = cast.client("side_a").get(url).content.decode()
    assert "No enemy force is in sight of your side" in html
    assert 'name="enemy"' not in html

    _show_d3(cast.campaign)
    html = cast.client("side_a").get(url).content.decode()
    assert f'action="{_url(cast.campaign)}"' in html
    assert '<option value="d3"' in html
    assert "The Southern March: " in html and "at (4, 4) (distance 1)" in html
    for key, (name, _general) in HIDDEN.items():
        assert name not in html and f'value="{key}"' not in html


def test_a_player_gets_the_odds_against_a_visible_enemy(cast):
    _show_d3(cast.campaign)
    response = cast.client("side_a").get(_url(cast.campaign), {"enemy": "d3"}, headers=HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="engage-odds-r1"' in html and "hx-trigger" not in html  # in at once (eager)
    assert "From 1000 battles fought by the tactical engine" in html
    assert escape("The Jarl's Host") in html and SOUTH[0] in html
    assert SOUTH[1] not in html  # its general is not known to the raiders
    assert "Average troops in the usual proportions" in html
    percents = [float(p) for p in re.findall(r"<td>([\d.]+)%</td>", html)]
    assert len(percents) == 6
    assert abs(sum(percents[:3]) - 100) < 0.5 and abs(sum(percents[3:]) - 100) < 0.5
    row = WhatIfOdds.objects.get(campaign=cast.campaign)
    assert row.odds["runs"] == 1000

    # asked again: the cached odds, no second row
    again = cast.client("side_a").get(_url(cast.campaign), {"enemy": "d3"}, headers=HTMX)
    assert again.content.decode() == html
    assert WhatIfOdds.objects.filter(campaign=cast.campaign).count() == 1


def test_the_estimate_does_not_depend_on_the_hidden_roster(cast):
    """Two enemies that look alike on the map give the same odds, whatever their units."""
    _show_d3(cast.campaign)
    state = _state(cast.campaign)
    mine, enemy = state.force("r1"), state.force("d3")
    before = what_if_hash(inp=what_if_input_get(state=state, force=mine, enemy=enemy))
    Unit.objects.filter(campaign=cast.campaign, command__force__key="d3").update(
        quality=Quality.ELITE.value, speciality=Speciality.CAVALRY.value
    )
    state = _state(cast.campaign)
    after = what_if_hash(
        inp=what_if_input_get(state=state, force=state.force("r1"), enemy=state.force("d3"))
    )
    assert after == before
    # what the side sees does count: the figures and the status
    seen = what_if_input_get(state=state, force=mine, enemy=enemy)
    assert [f.figures for f in seen.forces] == [mine.figures, enemy.figures]
    assert seen.forces[1].status is enemy.status


def test_the_order_tried_changes_the_battle(cast):
    _show_d3(cast.campaign)
    state = _state(cast.campaign)
    mine, enemy = state.force("r1"), state.force("d3")
    hashes = {
        what_if_hash(inp=what_if_input_get(state=state, force=mine, enemy=enemy, status=s))
        for s in (None, Status.PROBE, Status.DEFEND)  # r1 stands at Full Speed
    }
    assert len(hashes) == 3
    client = cast.client("side_a")
    html = client.get(
        _url(cast.campaign), {"enemy": "d3", "status": "defend"}, headers=HTMX
    ).content.decode()
    assert escape("The Jarl's Host (Defend) against The Southern March") in html
    # a status that is not an order is the force as it stands
    html = client.get(
        _url(cast.campaign), {"enemy": "d3", "status": "shattered"}, headers=HTMX
    ).content.decode()
    assert "Shattered" not in html.split('id="engage-odds-r1"')[1].split("From 1000")[0]


@pytest.mark.parametrize("enemy", ["d1", "nobody", "", "r2"])
def test_a_hidden_unknown_or_friendly_force_gets_the_same_refusal(cast, enemy):
    _show_d3(cast.campaign)
    client = cast.client("side_a")
    response = client.get(_url(cast.campaign), {"enemy": enemy})
    assert response.status_code == 400
    html = response.content.decode()
    assert "Choose an enemy force your side can see." in html
    for name, general in HIDDEN.values():
        assert name not in html and (not general or general not in html)
    htmx = client.get(_url(cast.campaign), {"enemy": enemy}, headers=HTMX)
    assert htmx.status_code == 200 and 'role="alert"' in htmx.content.decode()
    assert not WhatIfOdds.objects.exists()


def test_only_the_force_owner_asks(cast):
    _show_d3(cast.campaign)
    assert cast.client("side_b").get(_url(cast.campaign), {"enemy": "d3"}).status_code == 404
    for who in ("gm", "observer"):
        assert cast.client(who).get(_url(cast.campaign), {"enemy": "d3"}).status_code == 403
    assert not WhatIfOdds.objects.exists()


def test_the_panel_polls_until_the_odds_are_in(cast, monkeypatch):
    from battles import tasks

    queued: list[tuple] = []
    monkeypatch.setattr(tasks.what_if_odds_task, "delay", lambda *a: queued.append(a))
    _show_d3(cast.campaign)
    client = cast.client("side_a")
    html = client.get(_url(cast.campaign), {"enemy": "d3"}, headers=HTMX).content.decode()
    assert "The tactical engine is computing the odds" in html
    assert 'hx-trigger="load delay:1s"' in html and "poll=1" in html
    assert len(queued) == 1
    client.get(_url(cast.campaign), {"enemy": "d3", "poll": "1"}, headers=HTMX)
    assert len(queued) == 1  # a poll does not queue it again …
    client.get(_url(cast.campaign), {"enemy": "d3", "poll": "15"}, headers=HTMX)
    assert len(queued) == 2  # … except now and then, in case it was lost
    html = client.get(
        _url(cast.campaign), {"enemy": "d3", "poll": "60"}, headers=HTMX
    ).content.decode()
    assert "The odds are taking longer than usual." in html and "hx-trigger" not in html

    # the worker's side: the task computes from the data it was given, under the page's key
    turn_id, key, data = queued[0]
    assert tasks.what_if_odds_task.run(turn_id, key, data) == "computed"
    html = client.get(
        _url(cast.campaign), {"enemy": "d3", "poll": "2"}, headers=HTMX
    ).content.decode()
    assert "From 1000 battles" in html


def test_odds_of_earlier_turns_are_dropped(cast):
    _show_d3(cast.campaign)
    cast.client("side_a").get(_url(cast.campaign), {"enemy": "d3"}, headers=HTMX)
    assert WhatIfOdds.objects.count() == 1
    turn = Turn.objects.get(campaign=cast.campaign, number=1)
    later = Turn.objects.create(campaign=cast.campaign, number=2, status=Turn.Status.OPEN)
    from battles import services

    state = _state(cast.campaign)
    inp = what_if_input_get(
        state=state, force=state.force("r2"), enemy=state.force("d3"), status=Status.DEFEND
    )
    services.what_if_odds_compute(
        campaign=cast.campaign, turn=later, input_hash=what_if_hash(inp=inp), data=inp.to_data()
    )
    assert list(WhatIfOdds.objects.values_list("turn", flat=True)) == [later.pk]
    assert turn.pk != later.pk


def test_the_page_without_htmx(cast):
    _show_d3(cast.campaign)
    response = cast.client("side_a").get(_url(cast.campaign), {"enemy": "d3"})
    assert response.status_code == 200
    html = response.content.decode()
    assert escape("Odds for The Jarl's Host") in html and "From 1000 battles" in html
    assert "Back to your orders" in html


def test_seen_force_spreads_the_figures():
    for figures in (1, 4, 6, 7, 100):
        f = seen_force("x", "p", figures=figures, status=Status.PROBE)
        sizes = [u.figures for u in f.units]
        assert sum(sizes) == figures and min(sizes) >= 1 and max(sizes) - min(sizes) <= 1
        assert {u.quality for u in f.units} == {Quality.AVERAGE}
