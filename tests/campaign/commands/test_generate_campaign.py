"""`generate_campaign`: a synthetic campaign (and its orders) from a seed."""

from __future__ import annotations

import pytest
from django.core.management.base import CommandError

from campaign.exchange.export import campaign_export
from campaign.models import Campaign, Orders

pytestmark = pytest.mark.django_db

ARGS = (
    "--width",
    "10",
    "--height",
    "8",
    "--players",
    "3",
    "--forces",
    "7",
    "--units-per-force",
    "2",
    "--seed",
    "11",
)


def test_creates_the_campaign(run):
    out = run("generate_campaign", *ARGS, "--slug", "gen").out
    assert "Created campaign gen: 10×8 map, 3 players, 7 forces." in out
    campaign = Campaign.objects.get(slug="gen")
    assert (campaign.width, campaign.height) == (10, 8)
    assert campaign.name == "Generated campaign 11"
    assert campaign.players.count() == 3 and campaign.forces.count() == 7
    assert campaign.squares.count() == 80
    assert campaign.holdings.count() == 9
    assert not Orders.objects.exists()
    assert campaign.turns.get().number == 1


def test_orders_are_saved_for_every_player(run):
    out = run("generate_campaign", *ARGS, "--slug", "gen", "--orders", "--name", "Load").out
    assert "orders saved for 3 player(s)" in out
    orders = Orders.objects.filter(turn__campaign__slug="gen")
    assert sorted(o.player.key for o in orders) == ["p1", "p2", "p3"]
    assert all(o.status == Orders.Status.SAVED for o in orders)
    assert sum(len(o.data["forces"]) for o in orders) == 7
    assert Campaign.objects.get(slug="gen").name == "Load"


def test_the_same_seed_gives_the_same_campaign(run):
    run("generate_campaign", *ARGS, "--slug", "one")
    run("generate_campaign", *ARGS, "--slug", "two")
    one, two = (campaign_export(campaign=c) for c in Campaign.objects.order_by("slug"))
    assert one["state"] == two["state"]
    run("generate_campaign", *ARGS[:-1], "12", "--slug", "three")
    three = campaign_export(campaign=Campaign.objects.get(slug="three"))
    assert three["state"] != one["state"]


def test_default_slug(run):
    run("generate_campaign", "--seed", "5")
    assert Campaign.objects.get().slug == "generated-5"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--players", "1"), "a campaign needs at least two players"),
        (("--width", "2"), r"the map must be at least 3×3"),
        (("--forces", "1"), "give every player at least one force"),
        (("--units-per-force", "0"), r"a force needs at least one unit \(R2.5.2\)"),
    ],
)
def test_bad_parameters(run, args, message):
    with pytest.raises(CommandError, match=f"Cannot generate this campaign: {message}"):
        run("generate_campaign", *args)
    assert not Campaign.objects.exists()


def test_an_existing_slug_is_refused(run):
    run("generate_campaign", "--slug", "gen")
    with pytest.raises(CommandError, match="A campaign with the slug 'gen' already exists."):
        run("generate_campaign", "--slug", "gen", "--seed", "2")


def test_a_bad_slug_is_refused(run):
    with pytest.raises(CommandError, match=r"'No Good!' is not a valid slug"):
        run("generate_campaign", "--slug", "No Good!")
    assert not Campaign.objects.exists()
