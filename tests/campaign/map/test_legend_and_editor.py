"""The map's legend names everything the map draws, the territory borders too (issue 11),
and the set-up editor draws rivers as the play map does: one continuous line through the
squares' centres, not a dash per square."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.campaign.setup.test_setup import make_world

pytestmark = pytest.mark.django_db


def _legend(html: str) -> str:
    return html.split('class="map-legend"', 1)[1].split("</section>", 1)[0]


def test_a_player_s_legend_has_the_borders_of_friendly_and_enemy_territory(cast):
    html = cast.client("side_a").get(reverse("campaign:map", args=[cast.campaign.slug]))
    legend = _legend(html.content.decode())
    assert "The border of the friendly territory" in legend
    assert "The border of the enemy territory" in legend
    assert 'class="territory terr-friendly territory-edge"' in legend


def test_the_gm_s_legend_has_each_army_s_territory_and_border(cast):
    html = cast.client("gm").get(reverse("campaign:map", args=[cast.campaign.slug]))
    legend = _legend(html.content.decode())
    assert legend.count('data-legend="border"') == 2
    assert "The territory of The Grey Fell Clans and its border" in legend
    assert "The territory of The March of Ashbury and its border" in legend


def _river(html: str) -> str:
    found = re.search(r'<path class="river" d="([^"]+)"/>', html)
    assert found, "no river drawn"
    return found.group(1)


def test_the_editor_draws_a_river_painted_square_by_square_as_one_line(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    world = make_world()
    gm = world.client("gm")
    for x, y in ((4, 0), (4, 1), (4, 2), (5, 3)):  # a brush, one click a square
        response = gm.post(
            world.url("setup-square"),
            {"x": x, "y": y, "brush": "feature:river"},
            headers={"hx-request": "true"},
        )
        assert response.status_code == 200
    editor = _river(response.content.decode())  # the map the last click swapped in
    assert editor == "M45 5l0 10M45 15l0 10M45 25l10 10"  # centre to centre, no lone dash
    assert _river(gm.get(world.url("setup-map")).content.decode()) == editor
    assert _river(gm.get(world.url("map")).content.decode()) == editor  # as the play map
