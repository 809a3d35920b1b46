"""Naval movement on the web (§6.11 [NARAN], option `naval_movement`): the orders page shows
each force's ships and what it needs; a path across the sea is accepted only for a force its
ships carry (R6.11.3), refused in words otherwise; the set-up's holding form marks ports."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

import rules as R
from campaign import adapters
from campaign.exchange.replay import turn_replay
from campaign.models import Force, Holding, Orders, Square, Turn, TurnResolution, Unit
from campaign.selectors import turn_current
from campaign.setup.options import options_update
from tests.campaign.orders.test_orders_page import _force_data, _stamp
from tests.campaign.setup.test_setup import make_world

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def _r2(cast, **changes: str) -> dict[str, str]:
    """The raiders' r2 editor posted as a page drawn now would (its turn and base)."""
    return {**_force_data(**changes), **_stamp(cast.campaign, "r2")}


def _naval(campaign) -> int:
    """Naval movement on, the sea east of the Wolf Riders (r2 at (2, 4)); r2's ships needed."""
    campaign.options = {**campaign.options, "naval_movement": True}
    campaign.save(update_fields=["options"])
    Square.objects.filter(campaign=campaign, x=3, y=4).update(features=["sea"])
    state = adapters.state_load(campaign=campaign)
    return R.ships_needed(state.force("r2"))


def test_the_orders_page_shows_the_ships_a_force_has_and_needs(cast):
    needed = _naval(cast.campaign)
    html = cast.client("side_a").get(reverse("campaign:orders", args=[cast.campaign.slug]))
    text = html.content.decode()
    assert "Ships (§6.11)" in text and f"0; it needs {needed} to sail" in text


def test_a_path_across_the_sea_needs_ships_enough(cast):
    needed = _naval(cast.campaign)
    url = reverse("campaign:orders-force", args=[cast.campaign.slug, "r2"])
    client = cast.client("side_a")
    refused = client.post(url, _r2(cast, path="3,4"), headers=HTMX).content.decode()
    assert "is water: a force sails only with naval movement in use and ships enough" in refused
    Force.objects.filter(campaign=cast.campaign, key="r2").update(ships=needed)
    client.post(url, _r2(cast, path="3,4"), headers=HTMX)
    row = Orders.objects.get(turn=turn_current(campaign=cast.campaign), player__key="raiders")
    assert row.data["forces"]["r2"]["path"] == [[3, 4]]


def test_the_holding_form_marks_a_port_with_naval_movement(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    world = make_world(holdings=False)
    gm = world.client("gm")
    assert "Port:" not in gm.get(world.url("setup-holdings")).content.decode()
    options_update(campaign=world.campaign, data={"naval_movement": True})
    assert "Port:" in gm.get(world.url("setup-holdings")).content.decode()
    r = gm.post(
        world.url("setup-holdings"),
        {"player": world.red.key, "name": "Karak", "x": 1, "y": 1, "capital": "on", "port": "on"},
    )
    assert r.status_code == 302
    assert Holding.objects.get(campaign=world.campaign, name="Karak").port


def test_a_fleet_carries_the_force_out_to_sea_when_the_turn_resolves(cast):
    needed = _naval(cast.campaign)
    Force.objects.filter(campaign=cast.campaign, key="r2").update(ships=needed)
    url = reverse("campaign:orders-force", args=[cast.campaign.slug, "r2"])
    cast.client("side_a").post(url, _r2(cast, path="3,4"), headers=HTMX)
    call_command("resolve_turn", cast.campaign.slug, "--seed", "7", stdout=StringIO())
    r2 = Force.objects.get(campaign=cast.campaign, key="r2")
    assert (r2.x, r2.y) == (3, 4)  # afloat on the sea square
    events = TurnResolution.objects.get(
        turn__campaign=cast.campaign, turn__number=1, stage="turn"
    ).events
    rolled = [e for e in events if e["type"] == "MovementRolled" and e["force_id"] == "r2"]
    assert rolled and rolled[0]["rule"] == "§6.11"
    ledger = TurnResolution.objects.get(
        turn__campaign=cast.campaign, turn__number=1, stage="turn"
    ).ledger
    assert any(e["purpose"] == "movement:force-r2:wind" for e in ledger)  # the wind test


def test_a_pirate_force_sails_without_ships_of_its_own(cast):
    """R6.11.6: a pirate force "gets all needed ships free": its path may take to the sea with
    no ship in its roster, and the orders card says so."""
    _naval(cast.campaign)
    Force.objects.filter(campaign=cast.campaign, key="r2").update(sea_folk=True)
    client = cast.client("side_a")
    page = client.get(reverse("campaign:orders", args=[cast.campaign.slug])).content.decode()
    assert "a pirate force: every ship it needs is free (R6.11.6)" in page
    url = reverse("campaign:orders-force", args=[cast.campaign.slug, "r2"])
    client.post(url, _r2(cast, path="3,4"), headers=HTMX)
    row = Orders.objects.get(turn=turn_current(campaign=cast.campaign), player__key="raiders")
    assert row.data["forces"]["r2"]["path"] == [[3, 4]]


def test_the_roster_marks_a_pirate_force_and_checks_it(settings):
    """R6.11.6 on the roster: with naval movement, a force may be marked a pirate force; it
    must then be wholly of mercenaries (the sea folk), and may be so without a regular
    command (R2.5.7 does not apply)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    world = make_world(forces=True)
    red = world.client("red")
    force = Force.objects.get(campaign=world.campaign, owner=world.red)
    page = red.get(world.url("roster-force", force.key)).content.decode()
    assert "Pirate force (R6.11.6)" not in page  # only with naval movement
    options_update(campaign=world.campaign, data={"naval_movement": True})
    assert (
        "Pirate force (R6.11.6)" in red.get(world.url("roster-force", force.key)).content.decode()
    )
    save = {"x": force.x, "y": force.y, "status": force.status, "name": force.name}
    r = red.post(world.url("roster-force-save", force.key), {**save, "sea_folk": "on"}, follow=True)
    assert "are not sea-folk mercenaries" in r.content.decode()
    force.refresh_from_db()
    assert not force.sea_folk  # refused: nothing saved
    Unit.objects.filter(command__force=force).update(mercenary=True)
    r = red.post(world.url("roster-force-save", force.key), {**save, "sea_folk": "on"}, follow=True)
    force.refresh_from_db()
    assert force.sea_folk and "pirate force (R6.11.6)" in r.content.decode()
    assert "must support a regular command" not in r.content.decode()


def _river(campaign) -> tuple[int, int]:
    """Naval movement on, a navigable river from the Wolf Riders' square (2, 4) east to its
    mouth at (5, 4); r2's boats and rafts needed."""
    campaign.options = {**campaign.options, "naval_movement": True}
    campaign.save(update_fields=["options"])
    for x in range(2, 6):
        feats = ["river", "navigable"] + (["river-mouth"] if x == 5 else [])
        Square.objects.update_or_create(campaign=campaign, x=x, y=4, defaults={"features": feats})
    state = adapters.state_load(campaign=campaign)
    return R.craft_needed(state.force("r2"))


def test_a_force_goes_by_boat_along_a_navigable_river(cast):
    """§6.11 on rivers: the card offers the voyage on a navigable river and tells the craft
    it has and needs (R6.11.4); without craft enough the voyage is refused in words; with
    them it is saved, and the turn moves the force by the naval table (no wind test)."""
    boats, rafts = _river(cast.campaign)
    client = cast.client("side_a")
    page = client.get(reverse("campaign:orders", args=[cast.campaign.slug])).content.decode()
    assert f"0 boats, 0 rafts; to go by river it needs {boats} boats and {rafts} rafts" in page
    map_page = client.get(reverse("campaign:map", args=[cast.campaign.slug])).content.decode()
    assert '<path class="navigable"' in map_page and '<path class="river-mouth"' in map_page
    assert "River mouth (the river flows out here)" in map_page  # the legend
    url = reverse("campaign:orders-force", args=[cast.campaign.slug, "r2"])
    editor = client.get(url, headers=HTMX).content.decode()
    assert "Follow the path by boat along the navigable river" in editor
    voyage = _r2(cast, path="3,4;4,4", by_river="on")
    refused = client.post(url, voyage, headers=HTMX).content.decode()
    assert f"0 boats and 0 rafts; to carry it all it needs {boats} boats and {rafts} rafts" in (
        refused
    )
    Force.objects.filter(campaign=cast.campaign, key="r2").update(boats=boats, rafts=rafts)
    off_river = client.post(url, _r2(cast, path="3,5", by_river="on"), headers=HTMX)
    assert "goes only along squares of a navigable river" in off_river.content.decode()
    client.post(url, voyage, headers=HTMX)
    row = Orders.objects.get(turn=turn_current(campaign=cast.campaign), player__key="raiders")
    assert row.data["forces"]["r2"]["by_river"] is True
    assert row.data["forces"]["r2"]["path"] == [[3, 4], [4, 4]]
    call_command("resolve_turn", cast.campaign.slug, "--seed", "7", stdout=StringIO())
    r2 = Force.objects.get(campaign=cast.campaign, key="r2")
    assert (r2.x, r2.y) in {(3, 4), (4, 4)} and r2.afloat == ((r2.x, r2.y) == (3, 4))
    stage = TurnResolution.objects.get(turn__campaign=cast.campaign, turn__number=1, stage="turn")
    rolled = [e for e in stage.events if e["type"] == "MovementRolled" and e["force_id"] == "r2"]
    assert rolled and rolled[0]["rule"] == "§6.11"
    assert not any(e["purpose"] == "movement:force-r2:wind" for e in stage.ledger)
    river = [e for e in stage.ledger if e["purpose"] == "movement:force-r2"]
    assert {"reason": "downstream", "value": 1} in river[0]["modifiers"]
    assert river[0]["rule"] == "§6.11"
    replay = turn_replay(turn=Turn.objects.get(campaign=cast.campaign, number=1))
    assert replay.ok, replay.differences  # the voyage replays exactly


def test_the_roster_gives_a_force_its_boats_and_rafts(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    world = make_world(forces=True)
    options_update(campaign=world.campaign, data={"naval_movement": True})
    red = world.client("red")
    force = Force.objects.get(campaign=world.campaign, owner=world.red)
    page = red.get(world.url("roster-force", force.key)).content.decode()
    assert "Boats (R6.11.4: 10 points each)" in page and "Rafts (R6.11.4: 20 points each)" in page
    save = {"x": force.x, "y": force.y, "status": force.status, "name": force.name}
    red.post(world.url("roster-force-save", force.key), {**save, "boats": "6", "rafts": "2"})
    force.refresh_from_db()
    assert (force.boats, force.rafts) == (6, 2)


def test_boats_and_rafts_take_a_force_onto_the_sea_by_the_shore(cast):
    """R6.11.4: minor craft sail "rivers, lakes, coastal sea": with boats and rafts enough and
    no ship, the card says where it may go, and a path onto the sea beside land is saved."""
    _naval(cast.campaign)
    state = adapters.state_load(campaign=cast.campaign)
    boats, rafts = R.craft_needed(state.force("r2"))
    Force.objects.filter(campaign=cast.campaign, key="r2").update(boats=boats, rafts=rafts)
    client = cast.client("side_a")
    page = client.get(reverse("campaign:orders", args=[cast.campaign.slug])).content.decode()
    assert "its path may cross a lake or the sea beside the shore" in page
    url = reverse("campaign:orders-force", args=[cast.campaign.slug, "r2"])
    client.post(url, _r2(cast, path="3,4"), headers=HTMX)
    row = Orders.objects.get(turn=turn_current(campaign=cast.campaign), player__key="raiders")
    assert row.data["forces"]["r2"]["path"] == [[3, 4]]
