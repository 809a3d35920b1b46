"""The orders page's "Regrouping" box (R8.3.2 [NARAN]): a force with points in a pool is
offered its units of that speciality; the figures asked for are saved as standing orders,
checked against the pool, and join before the next turn's force tests."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from campaign.exchange.replay import turn_replay
from campaign.models import Force, Orders, Turn, Unit
from campaign.selectors import turn_current
from tests.campaign.orders.test_orders_page import _stamp

pytestmark = pytest.mark.django_db

BOX = "Regrouping (R8.3)"


def _url(campaign, name: str) -> str:
    return reverse(f"campaign:{name}", args=[campaign.slug])


def _pool(campaign, points: int) -> Unit:
    campaign.options = {**campaign.options, "naran_regroup": True}
    campaign.save(update_fields=["options"])
    Force.objects.filter(campaign=campaign, key="r1").update(regroup_pool={"infantry": points})
    return Unit.objects.filter(
        campaign=campaign, command__force__key="r1", speciality="infantry"
    ).first()


def test_the_box_appears_only_with_a_pool(cast):
    client = cast.client("side_a")
    assert BOX not in client.get(_url(cast.campaign, "orders")).content.decode()
    unit = _pool(cast.campaign, 40)
    html = client.get(_url(cast.campaign, "orders")).content.decode()
    assert BOX in html and unit.type in html and "infantry pool: 40 points" in html.lower()


def test_the_figures_are_saved_checked_and_join_at_the_next_turn(cast):
    unit = _pool(cast.campaign, 40)
    ppf, had = unit.points_per_figure, unit.figures
    client = cast.client("side_a")
    too_many = 40 // ppf + 1
    r = client.post(
        _url(cast.campaign, "orders-regroup"),
        {**_stamp(cast.campaign), "box": "regroup", "regroup-0": str(too_many)},
        follow=True,
    )
    assert "does not hold enough points (R8.3.2)" in r.content.decode()
    r = client.post(
        _url(cast.campaign, "orders-regroup"),
        {**_stamp(cast.campaign), "box": "regroup", "regroup-0": "abc"},
        follow=True,
    )
    assert "give a whole number of figures" in r.content.decode()
    r = client.post(
        _url(cast.campaign, "orders-regroup"),
        {**_stamp(cast.campaign), "box": "regroup", "regroup-0": "2"},
        follow=True,
    )
    assert "Regrouping saved" in r.content.decode()
    row = Orders.objects.get(turn=turn_current(campaign=cast.campaign), player__key="raiders")
    assert row.data["regroup"] == [
        {"force_id": "r1", "unit_id": unit.key, "figures": 2, "new_unit": False}
    ]
    call_command("resolve_turn", cast.campaign.slug, "--seed", "7", stdout=StringIO())
    unit.refresh_from_db()
    assert unit.figures == had + 2
    r1 = Force.objects.get(campaign=cast.campaign, key="r1")
    assert r1.regroup_pool == {"infantry": 40 - 2 * ppf}


def test_a_pool_forms_a_new_unit_where_the_roster_gives_its_minimum(cast):
    """R8.3.3: the roster's minimum size and Leader's points make a "new unit" field; below
    the minimum is refused; a new unit joins its model's command at the next turn."""
    unit = _pool(cast.campaign, 200)
    client = cast.client("side_a")
    page = client.get(_url(cast.campaign, "orders")).content.decode()
    assert "regroup-0-new" not in page  # no minimum in the roster: no new unit offered
    Unit.objects.filter(pk=unit.pk).update(min_figures=3, leader_points=5)
    page = client.get(_url(cast.campaign, "orders")).content.decode()
    assert 'name="regroup-0-new"' in page and "at least 3" in page
    r = client.post(
        _url(cast.campaign, "orders-regroup"),
        {**_stamp(cast.campaign), "box": "regroup", "regroup-0-new": "2"},
        follow=True,
    )
    assert "at least the minimum size its roster gives (R8.3.3)" in r.content.decode()
    r = client.post(
        _url(cast.campaign, "orders-regroup"),
        {**_stamp(cast.campaign), "box": "regroup", "regroup-0-new": "3"},
        follow=True,
    )
    assert "Regrouping saved" in r.content.decode()
    call_command("resolve_turn", cast.campaign.slug, "--seed", "7", stdout=StringIO())
    new = Unit.objects.get(campaign=cast.campaign, key=f"{unit.key}-t1")
    assert (new.type, new.figures, new.command_id) == (unit.type, 3, unit.command_id)
    r1 = Force.objects.get(campaign=cast.campaign, key="r1")
    assert r1.regroup_pool == {"infantry": 200 - 3 * unit.points_per_figure - 5}
    report = client.get(reverse("campaign:report", args=[cast.campaign.slug, 1]))
    text = report.content.decode()
    assert f"formed a new unit of 3 figures, {unit.type}" in text
    assert f"{unit.key}-t1" not in text
    replay = turn_replay(turn=Turn.objects.get(campaign=cast.campaign, number=1))
    assert replay.ok, replay.differences
