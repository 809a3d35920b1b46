"""The orders page's "Regrouping" box (R8.3.2 [NARAN]): a force with points in a pool is
offered its units of that speciality; the figures asked for are saved as standing orders,
checked against the pool, and join before the next turn's force tests."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from campaign.models import Force, Orders, Unit
from campaign.selectors import turn_current

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
        {"box": "regroup", "regroup-0": str(too_many)},
        follow=True,
    )
    assert "does not hold enough points (R8.3.2)" in r.content.decode()
    r = client.post(
        _url(cast.campaign, "orders-regroup"), {"box": "regroup", "regroup-0": "abc"}, follow=True
    )
    assert "give a whole number of figures" in r.content.decode()
    r = client.post(
        _url(cast.campaign, "orders-regroup"), {"box": "regroup", "regroup-0": "2"}, follow=True
    )
    assert "Regrouping saved" in r.content.decode()
    row = Orders.objects.get(turn=turn_current(campaign=cast.campaign), player__key="raiders")
    assert row.data["regroup"] == [{"force_id": "r1", "unit_id": unit.key, "figures": 2}]
    call_command("resolve_turn", cast.campaign.slug, "--seed", "7", stdout=StringIO())
    unit.refresh_from_db()
    assert unit.figures == had + 2
    r1 = Force.objects.get(campaign=cast.campaign, key="r1")
    assert r1.regroup_pool == {"infantry": 40 - 2 * ppf}
