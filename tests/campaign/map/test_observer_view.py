"""An observer who follows no army, under fog of war (issue 11: he saw "an empty map"): the
map's terrain, territory and holdings, which are public, and a sentence saying why no force
is shown and how to follow an army; the turn report says what he may read of it."""

from __future__ import annotations

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_the_observer_sees_the_public_map_and_why_no_force(cast):
    html = cast.client("observer").get(reverse("campaign:map", args=[cast.campaign.slug]))
    html = html.content.decode().replace("&#x27;", "'")
    assert "an observer sees what the army he follows sees, and you follow none" in html
    assert "ask the game master for an observer's invitation that names it" in html
    assert 'class="terrain t-forest"' in html and 'class="river"' in html  # the ground
    assert html.count('class="holding-frame') == 6  # every holding of the demo, public
    assert "territory-edge" in html
    assert "data-force=" not in html
    assert "where your side last saw it" not in html  # no ghost: he has no side


def test_the_observer_s_report_says_what_he_sees(cast):
    html = cast.client("observer").get(reverse("campaign:report", args=[cast.campaign.slug, 1]))
    assert "you see only what happened on the whole map" in html.content.decode()
    player = cast.client("side_a").get(reverse("campaign:report", args=[cast.campaign.slug, 1]))
    assert "Fog of war: you see what your side saw." in player.content.decode()
