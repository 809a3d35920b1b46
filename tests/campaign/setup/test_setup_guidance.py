"""Set-up pages that guide a new GM (issue 11): problems named by the names people gave
(not "h1" or "red-dwarves"), holdings placed by clicking the map, the start page's warning
about rosters under their agreed points, and the steps in the order their prerequisites
need. The cast is test_setup's `make_world`: Red Dwarves (west third, capital Karak at
(1, 1)) and Blue Orcs (east third, capital Grub at (7, 4)) on a 9 × 6 map."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from campaign.models import Holding
from campaign.setup.invitations import user_get_or_create
from campaign.setup.services import campaign_create_blank, player_create, side_create
from rules import Feature, GameMap, validate_holding_placement
from rules import Holding as RHolding
from rules import Player as RPlayer
from tests.campaign.setup.test_setup import World, make_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(settings) -> World:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    return make_world()


# --- holdings: names, not ids ----------------------------------------------------------------


def test_the_rules_give_each_holding_problem_its_facts():
    game_map = GameMap(
        width=6, height=3, zones={(0, 0): "red"}, features={(0, 0): {Feature.FOREST}}
    )
    found = validate_holding_placement(
        game_map=game_map,
        players=[RPlayer(id="red", side="a", race="Men")],
        holdings=[
            RHolding(id="h1", square=(0, 0), owner="red", original_owner="red"),
            RHolding(id="h2", square=(1, 1), owner="red", original_owner="red"),
        ],
    ).problems
    facts = {p.code: dict(p.facts) for p in found}
    assert facts["forbidden-terrain"] == {
        "holding": "h1",
        "square": (0, 0),
        "owner": "red",
        "terrain": ("forest",),
        "race": "Men",
    }
    assert facts["outside-territory"] == {"holding": "h2", "square": (1, 1), "owner": "red"}
    assert facts["too-close"] == {"holding": "h2", "other": "h1", "owner": "red", "distance": 1}
    assert facts["capital-count"] == {"player": "red", "capitals": 0}


def test_a_refused_holding_is_named_with_its_army(world):
    response = world.client("gm").post(
        world.url("setup-holdings"), {"player": "red-dwarves", "name": "Outpost", "x": 4, "y": 4}
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert (
        "The holding Outpost at (4, 4) is not in the friendly territory of Red Dwarves (R2.3.2)."
        in html
    )
    assert "red-dwarves&#x27;s" not in html and "red-dwarves's" not in html


def test_the_start_page_names_the_armies_without_a_capital(world):
    Holding.objects.filter(campaign=world.campaign, owner=world.blue).delete()
    html = world.client("gm").get(world.url("start")).content.decode()
    assert "Blue Orcs has 0 capitals; each army has exactly one (R2.3.5)." in html
    assert "blue-orcs" not in html.split('class="problems"', 1)[1].split("</ul>", 1)[0]


def test_holdings_too_close_name_both(world):
    response = world.client("gm").post(
        world.url("setup-holdings"), {"player": "red-dwarves", "name": "Hut", "x": 2, "y": 2}
    )
    assert (
        "The holdings Karak at (1, 1) and Hut at (2, 2) of Red Dwarves are 1 square apart; the "
        "holdings of one army stand at least 3 squares apart (R2.3.3)."
    ) in response.content.decode()


# --- holdings: placed by clicking the map ----------------------------------------------------


def test_each_square_of_the_holdings_map_picks_the_form_s_square(world):
    html = world.client("gm").get(world.url("setup-holdings")).content.decode()
    assert html.count('data-pick="holding-form"') == 9 * 6
    assert 'href="?x=4&amp;y=2#holding-form"' in html  # without JavaScript: a link
    assert 'id="holding-form"' in html


def test_a_picked_square_fills_the_holding_form(world):
    html = world.client("gm").get(world.url("setup-holdings"), {"x": 2, "y": 5}).content.decode()
    form = html.split('id="holding-form"', 1)[1].split("</form>", 1)[0]
    assert 'name="x" value="2"' in form and 'name="y" value="5"' in form


# --- the start: rosters under their agreed points ---------------------------------------------


def test_the_start_page_warns_of_rosters_under_their_points(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    world = make_world(forces=True)  # one force each: 100 + 20 × 8 = 260 of 1000 points
    html = world.client("gm").get(world.url("start")).content.decode()
    assert "Everything is in order." not in html
    assert "Check before you start" in html
    assert "The roster of Red Dwarves totals 260 points, below the 1000 agreed." in html
    assert "The roster of Blue Orcs totals 260 points, below the 1000 agreed." in html
    assert "260 of 1000 points" in html
    assert 'type="submit"' in html.split("<main", 1)[1]  # it may still start


def test_the_start_page_is_in_order_when_the_rosters_make_their_points(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    world = make_world(forces=True)
    for army in (world.red, world.blue):
        army.initial_points = 260
        army.roster_ready = True  # and its player says it is done
        army.save(update_fields=["initial_points", "roster_ready"])
    html = world.client("gm").get(world.url("start")).content.decode()
    assert "Everything is in order." in html and "Check before you start" not in html


# --- the steps in the order their prerequisites need ------------------------------------------


def _blank(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    gm = user_get_or_create(username="gina", password="gina-pass-1")
    campaign = campaign_create_blank(gm=gm, slug="blank", name="Blank Vale", width=9, height=6)
    client = Client()
    client.force_login(gm)
    return campaign, client


def _url(campaign, name):
    return reverse(f"campaign:{name}", args=[campaign.slug])


def test_the_set_up_steps_come_after_what_they_need(world):
    html = world.client("gm").get(world.url("setup-holdings")).content.decode()
    nav = html.split('class="campaign-nav"', 1)[1].split("</nav>", 1)[0]
    steps = [
        "Sides and armies",
        "Map editor",
        "Territory",
        "Holdings",
        "Options",
        "Invitations",
        "Roster",
        "Start",
    ]
    at = [nav.index(f">{step}</a>") for step in steps]
    assert at == sorted(at), dict(zip(steps, at, strict=True))
    # a campaign in set-up has no turn yet: no orders, no turn report to open
    assert ">Turn report</a>" not in nav and ">Orders</a>" not in nav


def test_holdings_before_armies_say_to_create_them_first(settings):
    campaign, client = _blank(settings)
    html = client.get(_url(campaign, "setup-holdings")).content.decode()
    assert "Create the armies first: every holding belongs to one." in html
    assert f'<a href="{_url(campaign, "setup-players")}">Sides and armies</a></p>' in html
    assert 'id="holding-form"' not in html  # no form with an empty army select


def test_holdings_before_the_territory_say_to_divide_it_first(settings):
    campaign, client = _blank(settings)
    for name in ("Red", "Blue"):
        side = side_create(campaign=campaign, name=name)
        player_create(campaign=campaign, side=side, name=f"{name} army")
    html = client.get(_url(campaign, "setup-holdings")).content.decode()
    assert "Divide the territory first: holdings stand in their army&#x27;s friendly third." in html
    assert f'<a href="{_url(campaign, "setup-territory")}">Territory</a>' in html


def test_territory_needs_two_opposing_armies(settings):
    campaign, client = _blank(settings)
    side = side_create(campaign=campaign, name="Red")
    for name in ("One", "Two"):  # two armies, but allies
        player_create(campaign=campaign, side=side, name=name)
    html = client.get(_url(campaign, "setup-territory")).content.decode()
    assert "Create at least two armies on opposing sides first" in html
    assert "Apply the thirds" not in html


def test_invitations_before_sides_say_to_create_them(settings):
    campaign, client = _blank(settings)
    html = client.get(_url(campaign, "invite")).content.decode()
    assert "create the sides first." in html
    assert f'<a href="{_url(campaign, "setup-players")}">Sides and armies</a>' in html


def test_a_new_campaign_opens_on_its_first_step(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    client = Client()
    client.force_login(user_get_or_create(username="gina", password="gina-pass-1"))
    response = client.post(
        reverse("campaign:new"), {"name": "Ashen", "slug": "ashen", "width": 9, "height": 6}
    )
    assert response["Location"] == reverse("campaign:setup-players", args=["ashen"])
