"""A scenario campaign created on the web opens in set-up: the players review the sample
rosters and mark them ready; the GM sees who has, and starts."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaign.models import Campaign, Force, Membership, Turn
from campaign.setup.invitations import membership_add, user_get_or_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(client, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    gm = user_get_or_create(username="gina", password="gina-pass-1")
    client.force_login(gm)
    response = client.post(
        reverse("campaign:new"),
        {"name": "Wend", "slug": "wend", "source": "incursion", "width": 16, "height": 12},
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("campaign:invite", args=["wend"])
    campaign = Campaign.objects.get(slug="wend")
    raider = user_get_or_create(username="ulf", password="ulf-pass-1")
    membership_add(
        campaign=campaign,
        user=raider,
        role=Membership.Role.PLAYER,
        player=campaign.players.get(role="raiders"),
    )
    return campaign, gm, raider


def test_a_scenario_campaign_opens_in_set_up_with_its_armies(world):
    campaign, _, _ = world
    assert campaign.setup_open and not campaign.turns.exists()
    assert campaign.forces.count() >= 6


def test_the_player_marks_his_roster_ready_and_the_gm_sees_it(world, client):
    campaign, gm, raider = world
    client.force_login(raider)
    assert "Write the roster of" in client.get("/").content.decode()
    page = client.get(reverse("campaign:roster", args=["wend"])).content.decode()
    assert "My roster is ready" in page

    response = client.post(
        reverse("campaign:roster-ready", args=["wend"]), {"ready": "1"}, follow=True
    )
    assert "Your roster is marked ready" in response.content.decode()
    assert campaign.players.get(role="raiders").roster_ready
    assert "Write the roster of" not in client.get("/").content.decode()

    client.force_login(gm)
    start = client.get(reverse("campaign:start", args=["wend"])).content.decode()
    assert "roster ready" in start and "1 army has not marked its roster ready" in start
    assert "1 army&#x27;s roster is not ready yet" in client.get("/").content.decode()

    response = client.post(reverse("campaign:start", args=["wend"]))
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert not campaign.setup_open
    assert campaign.turns.get().status == Turn.Status.OPEN


def test_a_roster_with_problems_cannot_be_marked_ready(world, client):
    campaign, _, raider = world
    Force.objects.filter(campaign=campaign, owner__role="raiders").delete()
    client.force_login(raider)
    response = client.post(
        reverse("campaign:roster-ready", args=["wend"]), {"ready": "1"}, follow=True
    )
    assert "Your army has no force yet" in response.content.decode()
    assert not campaign.players.get(role="raiders").roster_ready


def test_the_gm_cannot_mark_a_roster_ready(world, client):
    client.force_login(world[1])
    assert (
        client.post(reverse("campaign:roster-ready", args=["wend"]), {"ready": "1"}).status_code
        == 403
    )
