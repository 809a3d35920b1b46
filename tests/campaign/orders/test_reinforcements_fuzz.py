"""Hostile input for the reinforcements page (issue 13): no example ends in a server error,
each refusal says why, and a refused request leaves the saved orders as they were."""

from __future__ import annotations

import pytest
from django.urls import reverse
from hypothesis import given

from tests.campaign.test_fuzz_forms import _orders, _post_checked
from tests.fuzzing import FUZZ, posted

pytestmark = pytest.mark.django_db

FIGURES = ["", "0", "5", "10", "-1", "1001", "1e3", "٣"]
REQUEST_FIELDS = {
    "figures_t1": FIGURES,
    "figures_t5": FIGURES,
    "figures_t99": FIGURES,
    "general": ["", "g1", "g2", "g99"],
    "general_name": ["", "Sir Hugh"],
    "count_i1": ["", "0", "1", "3"],
    "join": ["", "d1", "d2", "r1"],
    "name": ["", "Fresh levy"],
    "status": ["defend", "probe", "full-speed", "shattered", ""],
}


@FUZZ
@given(data=posted(REQUEST_FIELDS))
def test_adding_a_request(cast, data):
    url = reverse("campaign:reinforcements", args=["incursion"])
    _post_checked(cast, "side_b", url, data, lambda: _orders(cast.campaign))


@FUZZ
@given(data=posted({"index": ["0", "1", "-1", "99", ""], "direction": ["up", "down", "left"]}))
def test_moving_and_removing_a_request(cast, data):
    for name in ("reinforcements-move", "reinforcements-remove"):
        url = reverse(f"campaign:{name}", args=["incursion"])
        _post_checked(cast, "side_b", url, data, lambda: _orders(cast.campaign))
