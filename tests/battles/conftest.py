"""Fixtures for the battle result tests: a real pending battle on the demo campaign, built
the way play builds it (orders, then Phases 0–2), and helpers to fill in the result form.

The demo's turn-1 orders never collide, so `make_battle` first moves the defenders' Southern
March (d3) to (4, 8), on the path of the raiders' Red Riders (r3), whose standing orders
engage: resolving turn 1 with seed 7 then gives battle t1-b1 at (4, 8), the Red Riders
(raiders, side "a", in their friendly territory) against the Southern March (defenders,
side "b", in their enemy territory). `adjust` may change the campaign's rows before the
resolution (unit qualities, figures, a third command…), so the pack and the state agree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.urls import reverse

from battles.entry import person_field, points_field, unit_field
from battles.models import Battle
from battles.roster import COUNTS
from battles.views.result import ACTIONS
from campaign.models import Campaign, Force, Turn, Unit

RAIDER_UNITS = ("r3u1", "r3u2", "r3u3", "r3u4")  # the Red Riders: 16, 10, 10, 20 figures
DEFENDER_UNITS = ("d3u1", "d3u2", "d3u3")  # the Southern March: 16, 14, 10 figures


@pytest.fixture
def make_battle(cast) -> Callable[..., Battle]:
    def _make(adjust: Callable[[Campaign], None] | None = None) -> Battle:
        campaign = cast.campaign
        Force.objects.filter(campaign=campaign, key="d3").update(x=4, y=8)
        if adjust is not None:
            adjust(campaign)
        call_command("resolve_turn", campaign.slug, "--seed", "7", stdout=StringIO())
        battle = Battle.objects.select_related("turn").get(campaign=campaign, key="t1-b1")
        assert battle.turn.status == Turn.Status.BATTLES
        assert [s["side"] for s in battle.pack["sides"]] == ["raiders", "defenders"]
        return battle

    return _make


@pytest.fixture
def battle(make_battle) -> Battle:
    """Battle t1-b1 of the demo campaign, waiting for its result."""
    return make_battle()


def figures(campaign: Campaign, *keys: str) -> dict[str, int]:
    return dict(Unit.objects.filter(campaign=campaign, key__in=keys).values_list("key", "figures"))


def result_url(battle: Battle, action: str | None = None) -> str:
    """The battle's result page, or the URL of one of its actions (`battles.views.result`)."""
    name = "battles:result" if action is None else f"battles:result-{ACTIONS[action]}"
    return reverse(name, args=[battle.campaign.slug, battle.key])


def version(battle: Battle) -> int:
    """The version of the battle's result stored now: what its page, rendered now, posts
    (`battles.stale`)."""
    return Battle.objects.values_list("result_version", flat=True).get(pk=battle.pk)


def stamped(battle: Battle, data: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """`data` as a form of the battle's result page, rendered now, posts it: with the
    version of the result it was rendered from."""
    return {**(data or {}), "version": version(battle)}


def form_data(
    *,
    units: Mapping[str, Mapping[str, int]] | None = None,
    people: Mapping[str, str] | None = None,
    outcome: str | None = None,
    points: Mapping[str, int] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """The result form as a browser posts it: every count of the given units (others are
    left empty), fates, the outcome ("a", "b" or "stalemate") or the Italian points."""
    data: dict[str, Any] = {}
    for uid, counts in (units or {}).items():
        for what in COUNTS:
            data[unit_field(uid, what)] = counts.get(what, 0)
    for pid, fate in (people or {}).items():
        data[person_field(pid)] = fate
    if outcome is not None:
        data["outcome"] = outcome
    for side, n in (points or {}).items():
        data[points_field(side)] = n
    data.update(extra)
    return data


def raiders_wiped(campaign: Campaign, **overrides: Mapping[str, int]) -> dict[str, dict]:
    """Every Red Riders figure killed, except the units given with their own counts."""
    had = figures(campaign, *RAIDER_UNITS)
    return {uid: dict(overrides.get(uid, {"killed": had[uid]})) for uid in RAIDER_UNITS}
