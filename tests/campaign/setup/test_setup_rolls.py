"""The set-up's dice rolled on the web (R4.1.1–2 climate and season, R2.2.3 choice of
territory, R2.3.1 order of placement): each is kept with its rule, seed and ledger, shown on
its page, made once, replayed exactly, and carried by the export."""

from __future__ import annotations

import re

import pytest

import rules as R
from accounts.models import Profile
from campaign import adapters
from campaign.errors import ServiceError
from campaign.exchange.export import campaign_export
from campaign.exchange.importing import campaign_import
from campaign.models import Holding, SetupRoll
from campaign.setup.options import options_update
from campaign.setup.rolls import setup_roll_make, setup_roll_replay
from campaign.setup.services import campaign_start
from tests.campaign.setup.test_setup import World, make_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(settings) -> World:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    return make_world()


def _weather_on(world: World) -> None:
    options_update(campaign=world.campaign, data={"weather_phase": True})


def test_climate_then_season_set_the_options_and_replay(world: World) -> None:
    _weather_on(world)
    gm = world.users["gm"]
    climate = setup_roll_make(campaign=world.campaign, kind="climate", user=gm)
    assert climate.rule == "R4.1.1"
    assert [e["rule"] for e in climate.ledger] == ["R4.1.1"]
    rolled = climate.ledger[0]["natural"][0]
    expected = {1: "cold", 2: "cold", 3: "temperate", 4: "temperate"}.get(rolled, "torrid")
    assert climate.result == expected
    options = adapters.options_of(world.refresh())
    assert options.climate.value == expected
    if options.climate is R.Climate.COLD:  # R4.1.2: always winter, no die
        assert options.season is R.Season.WINTER
        with pytest.raises(ServiceError, match="no season to roll"):
            setup_roll_make(campaign=world.campaign, kind="season", user=gm)
    else:
        season = setup_roll_make(campaign=world.campaign, kind="season", user=gm)
        assert [e["rule"] for e in season.ledger] == ["R4.1.2"]
        assert adapters.options_of(world.refresh()).season.value == season.result
        assert setup_roll_replay(season)
    assert setup_roll_replay(climate)


@pytest.mark.parametrize("seed", range(12))
def test_season_follows_the_climate_tables(seed: int) -> None:
    for climate, table in ((R.Climate.TEMPERATE, "temperate"), (R.Climate.TORRID, "torrid")):
        dice = R.SeededDice(seed)
        season = R.season_roll(dice, climate)
        n = dice.ledger[0].natural[0]
        if table == "temperate":
            want = {1: "spring", 2: "spring", 3: "summer", 4: "autumn", 5: "autumn"}.get(
                n, "winter"
            )
        else:
            want = "great-rains" if n <= 3 else "dry"  # 6 is missing in the book: dry [SR]
        assert season.value == want


def test_a_roll_is_made_once_and_needs_the_weather_phase(world: World) -> None:
    gm = world.users["gm"]
    with pytest.raises(ServiceError, match="weather phase"):
        setup_roll_make(campaign=world.campaign, kind="climate", user=gm)
    _weather_on(world)
    setup_roll_make(campaign=world.campaign, kind="climate", user=gm)
    with pytest.raises(ServiceError, match="made already"):
        setup_roll_make(campaign=world.campaign, kind="climate", user=gm)
    assert SetupRoll.objects.filter(campaign=world.campaign).count() == 1


def test_opposed_rolls_name_the_winner_and_re_roll_ties(world: World) -> None:
    gm = world.users["gm"]
    roll = setup_roll_make(
        campaign=world.campaign, kind="territory", user=gm, players=(world.red, world.blue)
    )
    assert roll.players == [world.red.key, world.blue.key]
    values = [e["natural"][0] for e in roll.ledger]
    assert len(values) % 2 == 0 and all(e["rule"] == "R2.2.3" for e in roll.ledger)
    assert all(a == b for a, b in zip(values[:-2:2], values[1:-2:2], strict=True))  # ties
    last_red, last_blue = values[-2], values[-1]
    assert last_red != last_blue
    assert roll.result == (world.red.key if last_red > last_blue else world.blue.key)
    assert setup_roll_replay(roll)
    with pytest.raises(ServiceError, match="opponents"):
        setup_roll_make(
            campaign=world.campaign, kind="placement", user=gm, players=(world.red, world.red)
        )


def test_scripted_tie_is_rolled_again() -> None:
    dice = R.ScriptedDice([3, 3, 2, 5])
    assert (
        R.opposed_roll(dice, rule="R2.3.1", purpose="setup:placement", first="a", second="b") == "b"
    )
    assert [r.purpose for r in dice.ledger] == [
        "setup:placement:a",
        "setup:placement:b",
        "setup:placement:a",
        "setup:placement:b",
    ]


def test_pages_show_the_rolls_and_the_buttons(world: World) -> None:
    gm = world.client("gm")
    page = gm.get(world.url("setup-territory")).content.decode()
    assert "Roll for the choice of territory" in page
    r = gm.post(
        world.url("setup-roll", "territory"),
        {"first": world.red.key, "second": world.blue.key},
        follow=True,
    )
    text = r.content.decode()
    assert "rolled higher and chooses his outer third" in text
    assert "Red Dwarves rolled" in text and "Blue Orcs rolled" in text
    assert "Roll for the choice of territory" not in text  # made once
    options = gm.get(world.url("setup-options")).content.decode()
    assert "Turn on the weather phase above and save" in options
    _weather_on(world)
    options = gm.get(world.url("setup-options")).content.decode()
    assert "Roll the climate zone" in options
    assert '<a href="#setup-rolls">or roll it</a>' in options  # beside the climate field
    r = gm.post(world.url("setup-roll", "climate"), follow=True)
    assert "Climate zone (R4.1.1): rolled" in r.content.decode()
    # a player reads the options page and its rolls, without the buttons
    red = world.client("red").get(world.url("setup-options")).content.decode()
    assert "Climate zone (R4.1.1)" in red and "Roll the season" not in red
    assert world.client("red").post(world.url("setup-roll", "season")).status_code == 403


def test_export_carries_the_rolls(world: World) -> None:
    _weather_on(world)
    setup_roll_make(campaign=world.campaign, kind="climate", user=world.users["gm"])
    rows = campaign_export(campaign=world.campaign)["setup_rolls"]
    assert [r["kind"] for r in rows] == ["climate"]
    assert rows[0]["rule"] == "R4.1.1" and rows[0]["made_by"] == "gina"


def test_import_restores_the_rolls(settings) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    world = make_world(forces=True)
    _weather_on(world)
    made = setup_roll_make(campaign=world.campaign, kind="climate", user=world.users["gm"])
    campaign_start(campaign=world.campaign)
    data = campaign_export(campaign=world.campaign)
    copy = campaign_import(data=data, slug="wend-copy").campaign
    (roll,) = SetupRoll.objects.filter(campaign=copy)
    assert (roll.kind, roll.seed, roll.result, roll.ledger) == (
        made.kind,
        made.seed,
        made.result,
        made.ledger,
    )
    assert roll.made_by == world.users["gm"] and roll.made_at == made.made_at
    assert setup_roll_replay(roll)


def test_holding_feature_roll_sets_the_feature_once(world: World) -> None:
    gm = world.users["gm"]
    karak = Holding.objects.get(campaign=world.campaign, name="Karak")
    with pytest.raises(ServiceError, match="holding features"):
        setup_roll_make(campaign=world.campaign, kind="feature", user=gm, holding=karak)
    options_update(campaign=world.campaign, data={"holding_features": True})
    page = world.client("gm").get(world.url("setup-holdings")).content.decode()
    assert "Roll the feature of Karak (2D6, R2.4)" in page
    r = world.client("gm").post(
        world.url("setup-roll", "feature"), {"holding": karak.key}, follow=True
    )
    text = r.content.decode()
    roll = SetupRoll.objects.get(campaign=world.campaign, kind="feature")
    karak.refresh_from_db()
    assert karak.feature == roll.result and roll.target == karak.key
    total = sum(roll.ledger[0]["natural"])
    assert roll.ledger[0]["rule"] == "R2.4" and len(roll.ledger[0]["natural"]) == 2
    assert total in range(2, 13)
    if roll.result == "burial-mound":
        assert roll.detail in R.BURIAL_MOUND_RELICS.values() and len(roll.ledger) == 2
    assert "Karak: " in text and "Roll the feature of Karak" not in text
    assert setup_roll_replay(roll)
    with pytest.raises(ServiceError, match="has its feature already"):
        setup_roll_make(campaign=world.campaign, kind="feature", user=gm, holding=karak)


@pytest.mark.parametrize("seed", range(40))
def test_feature_table_and_relic(seed: int) -> None:
    dice = R.SeededDice(seed)
    feature, relic = R.holding_feature_roll(dice, "h1")
    total = sum(dice.ledger[0].natural)
    want = {2: "sacred-wood", 9: "burial-mound", 10: "village", 11: "city", 12: "mine"}
    want |= {3: "tower-of-magic", 4: "tower-of-magic", 5: "stonehenge-temple"}
    want |= {6: "stonehenge-temple", 7: "sanctuary", 8: "sanctuary"}
    assert feature == want[total]
    assert (relic is not None) == (feature == "burial-mound")
    if relic:
        assert relic == R.BURIAL_MOUND_RELICS[dice.ledger[1].natural[0]]


def test_a_roll_names_its_roller_by_display_name_on_the_readers_clock(world: World) -> None:
    """Issue 29: "12/07/2026 6:40 p.m." by "gina" becomes the display name and the reader's
    own date format and zone."""
    gm = world.users["gm"]
    gm.first_name = "Gina the Fair"
    gm.save(update_fields=["first_name"])
    Profile.objects.update_or_create(
        user=gm, defaults={"language": "it", "time_zone": "Europe/Rome"}
    )
    client = world.client("gm")
    client.post(
        world.url("setup-roll", "territory"), {"first": world.red.key, "second": world.blue.key}
    )
    html = client.get(world.url("setup-territory")).content.decode()
    row = html.split("Gina the Fair · ", 1)[1].split("</td>", 1)[0]
    assert re.search(r"\d\d/\d\d/\d{4} \d\d:\d\d CES?T</time>$", row), row
    assert "gina ·" not in html and "p.m." not in html and "a.m." not in html
