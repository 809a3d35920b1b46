"""Set-up from scratch and from a scenario (spec §2): campaign creation, the map editor and
map import, territory thirds (R2.2), holdings (R2.3 with the race exceptions), options, the
sides-and-armies page and the start. Services first, then the pages with their forbidden
users.

`make_world` builds the set-up cast the three set-up test files share: a 9 × 6 campaign in
set-up run by gina, with Red Dwarves (played by rhea) in the west third and Blue Orcs (played
by bruno) in the east, an observer, an outsider and an anonymous visitor."""

from __future__ import annotations

import json
from dataclasses import dataclass, fields

import pytest
from django.test import Client
from django.urls import reverse

from campaign import adapters
from campaign.errors import ServiceError
from campaign.models import Campaign, Holding, Membership, Player, Square, Turn
from campaign.orders.services import orders_submit
from campaign.selectors import turn_current
from campaign.setup.base import SetupClosed
from campaign.setup.invitations import membership_add, user_get_or_create
from campaign.setup.map_import import MapFormatError, map_import
from campaign.setup.options import NOT_OFFERED, OPTION_SPECS, options_update
from campaign.setup.rosters import force_create
from campaign.setup.services import (
    campaign_create_blank,
    campaign_setup_problems,
    campaign_start,
    holding_place,
    holding_remove,
    player_create,
    player_delete,
    player_update,
    side_create,
    square_features_set,
    square_zone_set,
    territory_thirds_apply,
)
from rules.codec import to_data
from rules.types import Feature, Options

pytestmark = pytest.mark.django_db

GENERAL = {"general_name": "Thorin", "general_cv": 4, "general_points": 100}
UNIT = {
    "type": "Axemen",
    "speciality": "infantry",
    "quality": "veteran",
    "figures": 20,
    "points_per_figure": 8,
}


@dataclass
class World:
    campaign: Campaign
    red: Player
    blue: Player
    users: dict  # gm, red, blue, observer, outsider → user; anonymous → None

    def client(self, who: str) -> Client:
        c = Client()
        if self.users[who] is not None:
            c.force_login(self.users[who])
        return c

    def url(self, name: str, *args) -> str:
        return reverse(f"campaign:{name}", args=[self.campaign.slug, *args])

    def refresh(self) -> Campaign:
        self.campaign.refresh_from_db()
        return self.campaign


def make_world(*, holdings: bool = True, forces: bool = False) -> World:
    """The set-up cast (see the module docstring). With `holdings` each army has its capital
    (red at (1, 1), blue at (7, 4)); with `forces` each has one force on its capital."""
    user = user_get_or_create
    gm = user(username="gina", password="gina-pass-1")
    campaign = campaign_create_blank(gm=gm, slug="wend", name="Wend Valley", width=9, height=6)
    red_side = side_create(campaign=campaign, name="Red")
    blue_side = side_create(campaign=campaign, name="Blue")
    red = player_create(
        campaign=campaign,
        side=red_side,
        name="Red Dwarves",
        race="Dwarves",
        colour="#aa0000",
        initial_points=1000,
    )
    blue = player_create(
        campaign=campaign,
        side=blue_side,
        name="Blue Orcs",
        race="Orcs",
        colour="#0000aa",
        initial_points=1000,
    )
    territory_thirds_apply(campaign=campaign, axis="x", west_player=red, east_player=blue)
    if holdings:
        holding_place(campaign=campaign, player=red, x=1, y=1, name="Karak", capital=True)
        holding_place(campaign=campaign, player=blue, x=7, y=4, name="Grub", capital=True)
    if forces:
        force_create(
            player=red, name="Hammer", x=1, y=1, status="defend", general=GENERAL, unit=UNIT
        )
        force_create(player=blue, name="Claw", x=7, y=4, status="probe", general=GENERAL, unit=UNIT)
    users = {
        "gm": gm,
        "red": user(username="rhea", password="rhea-pass-1"),
        "blue": user(username="bruno", password="bruno-pass-1"),
        "observer": user(username="olive", password="olive-pass-1"),
        "outsider": user(username="oscar", password="oscar-pass-1"),
        "anonymous": None,
    }
    membership_add(campaign=campaign, user=users["red"], role="player", player=red)
    membership_add(campaign=campaign, user=users["blue"], role="player", player=blue)
    membership_add(campaign=campaign, user=users["observer"], role="observer")
    campaign.refresh_from_db()
    return World(campaign, red, blue, users)


@pytest.fixture
def world(settings) -> World:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    return make_world()


def _features(campaign: Campaign, x: int, y: int) -> list[str]:
    return Square.objects.get(campaign=campaign, x=x, y=y).features


# --- creating a campaign ---------------------------------------------------------------------


def test_a_blank_campaign_is_in_setup_with_every_square_and_no_turn(world):
    c = world.campaign
    assert c.setup_open and not c.turns.exists()
    assert Square.objects.filter(campaign=c).count() == 9 * 6
    assert Membership.objects.get(campaign=c, role="gm").user == world.users["gm"]
    assert c.options == to_data(Options())
    state = adapters.state_load(campaign=c)
    assert (state.map.width, state.map.height) == (9, 6)
    assert [p.id for p in state.players] == ["red-dwarves", "blue-orcs"]


def test_a_scenario_campaign_starts_at_once_from_the_incursion_fixture(db):
    gm = user_get_or_create(username="gina")
    c = campaign_create_blank(
        gm=gm, slug="my-incursion", name="My Incursion", width=5, height=5, scenario="incursion"
    )
    assert not c.setup_open
    assert (c.width, c.height, c.scenario) == (16, 12, "incursion")
    assert c.turns.get().status == Turn.Status.OPEN
    assert set(c.players.values_list("role", flat=True)) == {"raiders", "defenders"}
    assert c.players.get(key="raiders").colour == "#a8322d"
    assert Holding.objects.filter(campaign=c).count() == 6 and c.forces.count() >= 6
    assert Membership.objects.get(campaign=c).role == "gm"
    assert c.options["weather_phase"] is False  # the scenario's own options apply


@pytest.mark.parametrize(
    ("slug", "width", "message"),
    [
        ("new", 9, "reserved"),
        ("Not A Slug", 9, "lower-case"),
        ("wend", 9, "already exists"),
        ("fresh", 2, "From 3 to 60"),
        ("fresh", 61, "From 3 to 60"),
    ],
)
def test_campaign_creation_refusals(world, slug, width, message):
    with pytest.raises(ServiceError, match=message):
        campaign_create_blank(gm=world.users["gm"], slug=slug, name="X", width=width, height=6)


def test_an_unknown_scenario_is_refused(world):
    with pytest.raises(ServiceError, match="Unknown scenario 'conquest'"):
        campaign_create_blank(gm=world.users["gm"], slug="other", name="X", scenario="conquest")


# --- the map ---------------------------------------------------------------------------------


def test_square_features_are_stored_sorted_without_open(world):
    sq = square_features_set(
        campaign=world.campaign, x=4, y=2, features=["river", "open", Feature.FOREST]
    )
    assert sq.features == ["forest", "river"]
    square_features_set(campaign=world.campaign, x=4, y=2, features=["open"])
    assert _features(world.campaign, 4, 2) == []


def test_square_edits_refuse_unknown_features_and_squares_off_the_map(world):
    with pytest.raises(ServiceError, match="Unknown feature 'lava'") as e:
        square_features_set(campaign=world.campaign, x=0, y=0, features=["lava"])
    assert "features" in e.value.field_messages
    with pytest.raises(ServiceError, match=r"\(9, 0\) is off the 9×6 map"):
        square_features_set(campaign=world.campaign, x=9, y=0, features=[])


def test_terrain_under_a_holding_must_suit_its_owners_race(world):
    # Dwarves may hold a mountain (R2.3.4) …
    square_features_set(campaign=world.campaign, x=1, y=1, features=["mountain"])
    # … but not a forest: the change is refused and undone
    with pytest.raises(
        ServiceError, match=r"stands on forest, where Red Dwarves \(Dwarves\) may not build"
    ):
        square_features_set(campaign=world.campaign, x=1, y=1, features=["forest"])
    assert _features(world.campaign, 1, 1) == ["mountain"]
    with pytest.raises(ServiceError, match="friendly territory"):
        square_zone_set(campaign=world.campaign, x=1, y=1, zone="")


def test_square_zone_names_a_player(world):
    square_zone_set(campaign=world.campaign, x=4, y=0, zone="blue-orcs")
    assert Square.objects.get(campaign=world.campaign, x=4, y=0).zone == "blue-orcs"
    with pytest.raises(ServiceError, match="'nobody' is not a player"):
        square_zone_set(campaign=world.campaign, x=4, y=0, zone="nobody")


def test_map_import_json_replaces_size_features_and_zones(world):
    Holding.objects.filter(campaign=world.campaign).delete()
    doc = {
        "width": 4,
        "height": 3,
        "squares": [
            {"x": 0, "y": 0, "features": ["forest", "river"], "zone": "red-dwarves"},
            {"x": 3, "y": 2, "features": ["hill"], "zone": "blue-orcs"},
            {"x": 2, "y": 1, "features": ["mountain", "pass", "road"]},
        ],
    }
    map_import(campaign=world.campaign, data=json.dumps(doc))
    c = world.refresh()
    assert (c.width, c.height) == (4, 3)
    assert Square.objects.filter(campaign=c).count() == 12
    gmap = adapters.state_load(campaign=c).map
    assert gmap.features_at((0, 0)) == {Feature.FOREST, Feature.RIVER}
    assert gmap.features_at((2, 1)) == {Feature.MOUNTAIN, Feature.PASS, Feature.ROAD}
    assert dict(gmap.zones) == {(0, 0): "red-dwarves", (3, 2): "blue-orcs"}


def test_map_import_json_takes_a_whole_state_document(world):
    Holding.objects.filter(campaign=world.campaign).delete()
    doc = {
        "turn": 1,
        "map": {"width": 3, "height": 3, "squares": [{"x": 1, "y": 1, "features": ["swamp"]}]},
    }
    map_import(campaign=world.campaign, data=json.dumps(doc), format="json")
    assert _features(world.refresh(), 1, 1) == ["swamp"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"width": 4,\n "height": 3,,}', "Line 2, column 14: Not valid JSON"),
        (
            '{"width": 4, "height": 3, "squares": [{"x": 1, "y": 1, "features": ["lava"]}]}',
            "square #1 (1, 1): Unknown feature 'lava'",
        ),
        (
            '{"width": 4, "height": 3, "squares": [{"x": 9, "y": 1}]}',
            "square #1 (9, 1) lies outside the 4×3 map",
        ),
        (
            '{"width": 4, "height": 3, "squares": [{"x": 1, "y": 1, "zone": "green"}]}',
            'zone "green" is not a player of this campaign (players: blue-orcs, red-dwarves)',
        ),
        ('{"width": 400, "height": 3}', "The map width must be a whole number from 3 to 60"),
        ('{"width": 4, "height": 3, "colour": "red"}', "Unknown field: colour"),
        ("[1, 2]", "must be an object"),
    ],
)
def test_map_import_json_errors_say_where(world, text, message):
    with pytest.raises(MapFormatError) as e:
        map_import(campaign=world.campaign, data=text)
    assert any(message in m for m in e.value.messages), e.value.messages
    assert world.refresh().width == 9  # nothing changed


def test_map_import_csv_one_row_per_line(world):
    Holding.objects.filter(campaign=world.campaign).delete()
    text = (
        "# the Wend valley, west to east\n"
        "forest,forest+river,open,hill@blue-orcs\n"
        " , river + bridge + road ,CULTIVATED,\n"
        "mountain+pass@red-dwarves,,swamp,\n"
        "\n"
    )
    parsed = map_import(campaign=world.campaign, data=text)
    assert (parsed.width, parsed.height) == (4, 3)
    c = world.refresh()
    assert _features(c, 1, 0) == ["forest", "river"]
    assert _features(c, 1, 1) == ["bridge", "river", "road"]
    assert _features(c, 2, 1) == ["cultivated"]
    assert _features(c, 0, 2) == ["mountain", "pass"]
    assert Square.objects.get(campaign=c, x=3, y=0).zone == "blue-orcs"
    assert Square.objects.get(campaign=c, x=0, y=2).zone == "red-dwarves"


def test_map_import_csv_with_semicolons(world):
    Holding.objects.filter(campaign=world.campaign).delete()
    map_import(campaign=world.campaign, data="hill;;\n;forest;\n;;swamp\n", format="csv")
    assert _features(world.refresh(), 1, 1) == ["forest"]


@pytest.mark.parametrize(
    ("text", "messages"),
    [
        (
            "open,open,open\nopen,open,lava\nopen,open,open\n",
            ['Line 2, column 3: unknown feature "lava"'],
        ),
        (
            "open,open,open\nopen,open\nopen,open,open,open\n",
            [
                "Line 2: this row has 2 cells but the first row has 3",
                "Line 3: this row has 4 cells but the first row has 3",
            ],
        ),
        (
            "open,open,open\nopen,hill@green,open\nopen,open,open\n",
            ['Line 2, column 2: zone: zone "green" is not a player'],
        ),
        (
            "open,open\nopen,open\n",
            [
                "The map width must be a whole number from 3 to 60, not 2",
                "The map height must be a whole number from 3 to 60, not 2",
            ],
        ),
        ("\n\n", ["The CSV file has no rows."]),
    ],
)
def test_map_import_csv_errors_give_line_and_column(world, text, messages):
    with pytest.raises(MapFormatError) as e:
        map_import(campaign=world.campaign, data=text, format="csv")
    for message in messages:
        assert any(message in m for m in e.value.messages), e.value.messages
    assert world.refresh().width == 9


def test_map_import_keeps_placed_holdings_on_the_map(world):
    with pytest.raises(ServiceError, match="does not fit") as e:
        map_import(campaign=world.campaign, data="open,open,open\n" * 3)
    assert any("off the map" in m for m in e.value.messages)
    c = world.refresh()
    assert (c.width, c.height) == (9, 6)
    assert Square.objects.filter(campaign=c).count() == 54


# --- territory (R2.2) ------------------------------------------------------------------------


def test_thirds_split_columns_between_the_two_opponents(world):
    zones = dict(
        ((x, y), z)
        for x, y, z in Square.objects.filter(campaign=world.campaign).values_list("x", "y", "zone")
    )
    for y in range(6):
        assert [zones[(x, y)] for x in range(9)] == ["red-dwarves"] * 3 + [""] * 3 + [
            "blue-orcs"
        ] * 3


def test_thirds_along_rows(world):
    Holding.objects.filter(campaign=world.campaign).delete()
    territory_thirds_apply(
        campaign=world.campaign, axis="y", west_player=world.blue, east_player=world.red
    )
    zone = {
        (x, y): z
        for x, y, z in Square.objects.filter(campaign=world.campaign).values_list("x", "y", "zone")
    }
    assert zone[(0, 0)] == zone[(8, 1)] == "blue-orcs"
    assert zone[(4, 2)] == zone[(4, 3)] == ""
    assert zone[(0, 5)] == zone[(8, 4)] == "red-dwarves"


def test_thirds_go_to_two_opponents(world):
    ally = player_create(campaign=world.campaign, side=world.red.side, name="Red Elves")
    with pytest.raises(ServiceError, match="opponents"):
        territory_thirds_apply(
            campaign=world.campaign, axis="x", west_player=world.red, east_player=ally
        )
    with pytest.raises(ServiceError, match="different player"):
        territory_thirds_apply(
            campaign=world.campaign, axis="x", west_player=world.red, east_player=world.red
        )
    with pytest.raises(ServiceError, match="axis must be 'x' or 'y'"):
        territory_thirds_apply(
            campaign=world.campaign, axis="z", west_player=world.red, east_player=world.blue
        )


def test_thirds_that_would_strand_a_holding_are_refused(world):
    with pytest.raises(ServiceError, match="friendly territory"):
        territory_thirds_apply(
            campaign=world.campaign, axis="x", west_player=world.blue, east_player=world.red
        )
    assert Square.objects.get(campaign=world.campaign, x=0, y=0).zone == "red-dwarves"


# --- holdings (R2.3) -------------------------------------------------------------------------


def test_holdings_get_fresh_keys_from_the_campaign_counter(world):
    keys = list(Holding.objects.filter(campaign=world.campaign).values_list("key", flat=True))
    assert len(keys) == 2 and all(k.startswith("h") for k in keys) and keys[0] != keys[1]
    state = adapters.state_load(campaign=world.refresh())
    assert state.next_id > max(int(k[1:]) for k in keys)


def test_a_holding_stands_in_its_owners_third(world):
    match = r"The holding at \(4, 4\) is not in the friendly territory of Red Dwarves \(R2.3.2\)."
    with pytest.raises(ServiceError, match=match) as e:
        holding_place(campaign=world.campaign, player=world.red, x=4, y=4)
    assert "x" in e.value.field_messages


@pytest.mark.parametrize(
    ("x", "y", "ok"), [(2, 3, False), (0, 3, False), (1, 4, True), (2, 5, True)]
)
def test_holdings_of_one_owner_are_three_squares_apart(world, x, y, ok):
    # red's capital is at (1, 1): Chebyshev distance 2 is too close, 3 is enough (R2.3.3)
    if ok:
        holding_place(campaign=world.campaign, player=world.red, x=x, y=y)
    else:
        with pytest.raises(ServiceError, match="stand at least 3 squares apart"):
            holding_place(campaign=world.campaign, player=world.red, x=x, y=y)


@pytest.mark.parametrize(
    ("who", "feature", "allowed"),
    [
        ("red", "mountain", True),  # Dwarves build on mountains
        ("red", "forest", False),
        ("red", "swamp", False),
        ("blue", "swamp", True),  # Orcs build in swamps
        ("blue", "forest", False),
        ("blue", "mountain", False),
    ],
)
def test_holding_terrain_and_the_race_exceptions(world, who, feature, allowed):
    player = getattr(world, who)
    x, y = (1, 5) if who == "red" else (7, 1)  # three squares from the capital
    square_features_set(campaign=world.campaign, x=x, y=y, features=[feature])
    if allowed:
        h = holding_place(campaign=world.campaign, player=player, x=x, y=y)
        assert (h.x, h.y, h.capital) == (x, y, False)
    else:
        with pytest.raises(ServiceError, match=f"stands on {feature}, where .* may not build"):
            holding_place(campaign=world.campaign, player=player, x=x, y=y)


def test_wood_elves_and_goblins_build_in_forests(world):
    for race in ("Wood Elves", "goblin"):
        player_update(player=world.blue, race=race)
        square_features_set(campaign=world.campaign, x=7, y=0, features=["forest"])
        h = holding_place(campaign=world.campaign, player=world.blue, x=7, y=0)
        holding_remove(holding=h)


def test_one_capital_per_army(world):
    with pytest.raises(ServiceError, match="has a capital already") as e:
        holding_place(campaign=world.campaign, player=world.red, x=1, y=4, capital=True)
    assert "capital" in e.value.field_messages


def test_a_race_change_keeps_holdings_legal(world):
    square_features_set(campaign=world.campaign, x=1, y=1, features=["mountain"])
    with pytest.raises(
        ServiceError, match=r"stands on mountain, where Red Dwarves \(Men\) may not build"
    ):
        player_update(player=world.red, race="Men")
    assert Player.objects.get(pk=world.red.pk).race == "Dwarves"


def test_holding_features_need_the_option(world):
    with pytest.raises(ServiceError, match="not in use"):
        holding_place(campaign=world.campaign, player=world.red, x=1, y=4, feature="village")
    options_update(campaign=world.campaign, data={"holding_features": True})
    h = holding_place(campaign=world.campaign, player=world.red, x=1, y=4, feature="village")
    assert (
        adapters.state_load(campaign=world.refresh()).holdings[-1].feature == h.feature == "village"
    )
    with pytest.raises(ServiceError, match="Unknown holding feature"):
        holding_place(campaign=world.campaign, player=world.red, x=2, y=5, feature="castle")


# --- options ---------------------------------------------------------------------------------


def test_every_option_has_a_rule_and_an_explanation():
    offered = [f.name for f in fields(Options) if f.name not in NOT_OFFERED]
    assert [s.name for s in OPTION_SPECS] == offered
    for spec in OPTION_SPECS:
        assert spec.rule and str(spec.help), spec.name


def test_every_naran_option_is_off_by_default_except_naran_terrain():
    for spec in OPTION_SPECS:
        if spec.naran and isinstance(spec.default, bool):
            assert spec.default is (spec.name == "naran_terrain"), spec.name


def test_options_update_sets_every_field(world):
    data = {
        "weather_phase": True,
        "climate": "cold",
        "season": "winter",
        "force_test_reaction_mode": "no_improvement",
        "initiative_method": "by-army",
        "attrition_formula": "d6_div2",
        "battle_result_method": "italian",
        "battle_max_turns": 10,
        "reinforcement_interval_days": 1,
        "unit_orders_max_points": 500,
        "naran_terrain": False,
    }
    options = options_update(campaign=world.campaign, data=data)
    assert options.climate.value == "cold" and options.battle_max_turns == 10
    loaded = adapters.state_load(campaign=world.refresh()).options
    assert loaded == options and loaded.unit_orders_max_points == 500 and not loaded.naran_terrain
    options_update(campaign=world.campaign, data={"unit_orders_max_points": None})
    assert world.refresh().options["unit_orders_max_points"] is None
    assert world.campaign.options["battle_result_method"] == "italian"  # the rest kept


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"battle_result_method": "dutch"}, "battle_result_method", "is not one of core, italian"),
        ({"climate": "arctic"}, "climate", "is not one of cold"),
        ({"battle_max_turns": 0}, "battle_max_turns", "at least 1"),
        ({"no_such_option": True}, "__all__", "Unknown option: no_such_option"),
        ({"weather_phase": "yes"}, "__all__", "expected true or false"),
    ],
)
def test_options_update_refusals(world, data, field, message):
    with pytest.raises(ServiceError) as e:
        options_update(campaign=world.campaign, data=data)
    assert any(message in m for m in e.value.field_messages[field]), e.value.field_messages


# --- the start -------------------------------------------------------------------------------


def test_the_start_needs_capitals_and_valid_forces(world):
    Holding.objects.filter(campaign=world.campaign, owner=world.blue).delete()
    problems = campaign_setup_problems(campaign=world.campaign)
    assert "Blue Orcs has 0 capitals; each army has exactly one (R2.3.5)." in problems
    assert any("Red Dwarves has no force" in p for p in problems)
    with pytest.raises(ServiceError):
        campaign_start(campaign=world.campaign)
    assert world.refresh().setup_open and not world.campaign.turns.exists()


def test_the_start_needs_two_sides(world):
    Holding.objects.filter(campaign=world.campaign, owner=world.blue).delete()
    Membership.objects.filter(player=world.blue).delete()
    player_delete(player=world.blue)
    assert "A campaign needs armies on at least two sides (§1.1)." in campaign_setup_problems(
        campaign=world.campaign
    )


def test_the_start_opens_turn_one_and_closes_setup(settings):
    w = make_world(forces=True)
    assert campaign_setup_problems(campaign=w.campaign) == []
    turn = campaign_start(campaign=w.campaign)
    assert (turn.number, turn.status) == (1, Turn.Status.OPEN) and turn.opened_at
    c = w.refresh()
    assert not c.setup_open
    assert turn_current(campaign=c) == turn
    with pytest.raises(SetupClosed, match="closed"):
        square_features_set(campaign=c, x=0, y=0, features=["hill"])
    with pytest.raises(SetupClosed):
        options_update(campaign=c, data={"weather_phase": True})
    with pytest.raises(SetupClosed):
        campaign_start(campaign=c)
    # the started campaign plays: orders for turn 1 are accepted
    orders_submit(player=w.red, turn=turn, data={"forces": {}})


# --- pages: creating a campaign --------------------------------------------------------------


def test_new_campaign_page(world):
    client = world.client("outsider")
    html = client.get(reverse("campaign:new")).content.decode()
    assert 'name="slug"' in html and 'value="incursion"' in html
    response = client.post(
        reverse("campaign:new"),
        {"name": "Ashen Crown", "slug": "ashen", "source": "", "width": 12, "height": 8},
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("campaign:setup-players", args=["ashen"])
    c = Campaign.objects.get(slug="ashen")
    assert c.setup_open and (c.width, c.height) == (12, 8)
    assert c.memberships.get().user == world.users["outsider"]


def test_new_campaign_from_the_scenario_goes_to_the_invitations(world):
    response = world.client("red").post(
        reverse("campaign:new"),
        {
            "name": "Incursion II",
            "slug": "incursion-2",
            "source": "incursion",
            "width": 3,
            "height": 3,
        },
    )
    assert response["Location"] == reverse("campaign:invite", args=["incursion-2"])
    # in set-up: the players review the scenario's rosters before the GM starts
    campaign = Campaign.objects.get(slug="incursion-2")
    assert campaign.setup_open and campaign.turns.count() == 0


def test_new_campaign_errors_are_beside_the_fields(world):
    response = world.client("red").post(
        reverse("campaign:new"), {"name": "X", "slug": "wend", "width": 9, "height": 9}
    )
    assert response.status_code == 400
    assert "already exists" in str(response.context["form"].errors["slug"])


def test_new_campaign_needs_a_login(client):
    response = client.get(reverse("campaign:new"))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


def test_home_links_to_a_new_campaign(world):
    html = world.client("outsider").get(reverse("campaign:home")).content.decode()
    assert f'href="{reverse("campaign:new")}"' in html


# --- pages: the map editor -------------------------------------------------------------------


def test_map_editor_full_page(world):
    response = world.client("gm").get(world.url("setup-map"))
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" in html and 'id="brush-form"' in html and 'id="square-form"' in html
    assert html.count('<a class="click"') == 9 * 6  # every square of the 9 × 6 map
    assert html.count(f'hx-post="{world.url("setup-square")}"') == 9 * 6
    assert 'href="?x=4&amp;y=2#square-form"' in html  # the plain fallback beside each hx-post
    assert 'value="zone:red-dwarves"' in html and 'value="feature:forest"' in html
    assert world.url("setup-import") in html and world.url("setup-territory") in html


def test_map_editor_selects_a_square_for_the_plain_form(world):
    square_features_set(campaign=world.campaign, x=4, y=2, features=["hill", "road"])
    response = world.client("gm").get(world.url("setup-map") + "?x=4&y=2")
    form = response.context["square_form"]
    assert form.initial == {"x": 4, "y": 2, "features": ["hill", "road"], "zone": ""}


def test_map_editor_htmx_fragment(world):
    response = world.client("gm").get(world.url("setup-map"), headers={"hx-request": "true"})
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<div id="map-grid"') and "<html" not in html
    assert html.count('<a class="click"') == 54


def test_clicking_a_square_toggles_the_brush_feature(world):
    client = world.client("gm")
    hx = {"hx-request": "true"}
    url = world.url("setup-square")
    response = client.post(url, {"x": 4, "y": 2, "brush": "feature:forest"}, headers=hx)
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="map-grid"') and "<html" not in html
    assert 'class="terrain t-forest"' in html
    assert _features(world.campaign, 4, 2) == ["forest"]
    client.post(url, {"x": 4, "y": 2, "brush": "feature:river"}, headers=hx)
    assert _features(world.campaign, 4, 2) == ["forest", "river"]
    client.post(url, {"x": 4, "y": 2, "brush": "feature:forest"}, headers=hx)
    assert _features(world.campaign, 4, 2) == ["river"]
    client.post(url, {"x": 4, "y": 2, "brush": "clear"}, headers=hx)
    assert _features(world.campaign, 4, 2) == []
    client.post(url, {"x": 4, "y": 2, "brush": "zone:blue-orcs"}, headers=hx)
    assert Square.objects.get(campaign=world.campaign, x=4, y=2).zone == "blue-orcs"
    client.post(url, {"x": 4, "y": 2, "brush": "zone:blue-orcs"}, headers=hx)  # toggles back
    assert Square.objects.get(campaign=world.campaign, x=4, y=2).zone == ""


def test_a_refused_click_says_why_in_the_fragment(world):
    response = world.client("gm").post(
        world.url("setup-square"),
        {"x": 1, "y": 1, "brush": "feature:forest"},
        headers={"hx-request": "true"},
    )
    assert response.status_code == 200  # htmx swaps 2xx only: the message must arrive
    assert "where Red Dwarves (Dwarves) may not build" in response.content.decode()
    assert _features(world.campaign, 1, 1) == []


def test_the_plain_square_form_sets_features_and_territory(world):
    response = world.client("gm").post(
        world.url("setup-square"),
        {"x": 4, "y": 3, "features": ["hill", "road"], "zone": "red-dwarves"},
    )
    assert response.status_code == 302
    assert response["Location"] == world.url("setup-map") + "?x=4&y=3#square-form"
    sq = Square.objects.get(campaign=world.campaign, x=4, y=3)
    assert (sq.features, sq.zone) == (["hill", "road"], "red-dwarves")


@pytest.mark.parametrize(("who", "status"), [("red", 403), ("observer", 403), ("outsider", 404)])
def test_only_the_gm_edits_the_map(world, who, status):
    client = world.client(who)
    assert client.get(world.url("setup-map")).status_code == status
    assert (
        client.post(world.url("setup-square"), {"x": 0, "y": 0, "brush": "clear"}).status_code
        == status
    )
    assert client.get(world.url("setup-import")).status_code == status
    assert client.get(world.url("setup-territory")).status_code == status
    assert client.get(world.url("setup-players")).status_code == status
    assert client.get(world.url("start")).status_code == status
    assert _features(world.campaign, 0, 0) == []


@pytest.mark.parametrize(
    "name",
    [
        "setup-map",
        "setup-import",
        "setup-territory",
        "setup-holdings",
        "setup-options",
        "setup-players",
        "invite",
        "roster",
        "start",
    ],
)
def test_anonymous_visitors_are_sent_to_log_in(world, name):
    response = world.client("anonymous").get(world.url(name))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


def test_the_map_is_closed_once_the_campaign_started(settings):
    w = make_world(forces=True)
    campaign_start(campaign=w.campaign)
    assert w.client("gm").get(w.url("setup-map")).status_code == 403


# --- pages: import, territory, holdings, players, options, start ----------------------------


def test_import_page_takes_csv_text_and_shows_errors_with_line_and_column(world):
    Holding.objects.filter(campaign=world.campaign).delete()
    client = world.client("gm")
    html = client.get(world.url("setup-import")).content.decode()
    assert "forest+river" in html and 'enctype="multipart/form-data"' in html
    response = client.post(
        world.url("setup-import"), {"data": "hill,open,open\nopen,lava,open\nopen,open,open"}
    )
    assert response.status_code == 400
    assert "Line 2, column 2: unknown feature &quot;lava&quot;" in response.content.decode()
    response = client.post(
        world.url("setup-import"), {"data": "hill,open,open\n" * 3, "format": "csv"}
    )
    assert response.status_code == 302
    assert world.refresh().width == 3


def test_import_page_takes_a_file(world):
    from django.core.files.uploadedfile import SimpleUploadedFile

    Holding.objects.filter(campaign=world.campaign).delete()
    upload = SimpleUploadedFile("map.json", json.dumps({"width": 5, "height": 4}).encode())
    response = world.client("gm").post(world.url("setup-import"), {"file": upload})
    assert response.status_code == 302
    assert (world.refresh().width, world.campaign.height) == (5, 4)


def test_territory_page(world):
    client = world.client("gm")
    html = client.get(world.url("setup-territory")).content.decode()
    assert "west third 0–2, neutral centre 3–5, east third 6–8" in html
    Holding.objects.filter(campaign=world.campaign).delete()
    response = client.post(
        world.url("setup-territory"),
        {"axis": "y", "west_player": "red-dwarves", "east_player": "blue-orcs"},
    )
    assert response.status_code == 302
    assert Square.objects.get(campaign=world.campaign, x=8, y=0).zone == "red-dwarves"
    response = client.post(
        world.url("setup-territory"),
        {"axis": "y", "west_player": "red-dwarves", "east_player": "red-dwarves"},
    )
    assert response.status_code == 400
    assert "different player" in str(response.context["form"].errors["east_player"])


def test_holdings_page_gm_places_for_any_army(world):
    client = world.client("gm")
    html = client.get(world.url("setup-holdings")).content.decode()
    assert "Karak" in html and "Grub" in html
    response = client.post(
        world.url("setup-holdings"),
        {"player": "blue-orcs", "name": "Mud", "x": 7, "y": 0},
    )
    assert response.status_code == 302
    assert Holding.objects.get(campaign=world.campaign, name="Mud").owner == world.blue
    response = client.post(
        world.url("setup-holdings"),
        {"player": "blue-orcs", "name": "Too close", "x": 8, "y": 2},
    )
    assert response.status_code == 400
    assert "stand at least 3 squares apart" in str(response.context["form"].errors["x"])


def test_holdings_page_a_player_places_only_his_own(world):
    client = world.client("red")
    response = client.get(world.url("setup-holdings"))
    assert [h.name for h in response.context["holdings"]] == ["Karak"]
    assert "Grub" in response.content.decode()  # no fog of war: the map shows every holding
    world.campaign.fog_of_war = True
    world.campaign.save(update_fields=["fog_of_war"])
    # holdings are public (R2.3.1), fog or not: the map shows Grub, the list his own only
    response = client.get(world.url("setup-holdings"))
    assert "Grub" in response.content.decode()
    assert [h.name for h in response.context["holdings"]] == ["Karak"]
    response = client.post(
        world.url("setup-holdings"),
        {"player": "blue-orcs", "x": 7, "y": 0},
    )
    assert response.status_code == 400  # blue is not among his choices
    assert not Holding.objects.filter(campaign=world.campaign, x=7, y=0).exists()
    grub = Holding.objects.get(campaign=world.campaign, name="Grub")
    response = client.post(world.url("setup-holding-remove", grub.key))
    assert response.status_code == 403
    response = client.post(world.url("setup-holdings"), {"player": "red-dwarves", "x": 1, "y": 4})
    assert response.status_code == 302
    assert world.client("observer").get(world.url("setup-holdings")).status_code == 403
    assert world.client("outsider").get(world.url("setup-holdings")).status_code == 404


def test_players_page_creates_sides_and_armies(world):
    client = world.client("gm")
    html = client.get(world.url("setup-players")).content.decode()
    assert "Red Dwarves" in html and "rhea" in html and 'list="races"' in html
    assert client.post(world.url("setup-side-add"), {"side-name": "Green"}).status_code == 302
    response = client.post(
        world.url("setup-player-add"),
        {
            "name": "Goblin Horde",
            "side": "green",
            "race": "Goblins",
            "colour": "#00aa00",
            "initial_points": 800,
        },
    )
    assert response.status_code == 302
    p = Player.objects.get(campaign=world.campaign, key="goblin-horde")
    assert (p.side.key, p.race, p.initial_points, p.light) == ("green", "Goblins", 800, False)
    response = client.post(
        world.url("setup-player-save", p.key),
        {
            "name": "Goblin Horde",
            "side": "green",
            "race": "Goblins",
            "colour": "#00bb00",
            "initial_points": 900,
            "light": "on",
        },
    )
    assert response.status_code == 302
    p.refresh_from_db()
    assert (p.colour, p.initial_points, p.light) == ("#00bb00", 900, True)
    response = client.post(world.url("setup-player-delete", "red-dwarves"))
    assert response.status_code == 400 and "played by rhea" in response.content.decode()
    assert client.post(world.url("setup-player-delete", p.key)).status_code == 302


def test_options_page_shows_every_option_with_rule_and_default(world):
    response = world.client("gm").get(world.url("setup-options"))
    assert response.status_code == 200
    html = response.content.decode()
    for spec in OPTION_SPECS:
        assert f'<code class="option-name">{spec.name}</code>' in html and spec.rule in html
    assert 'name="battle_result_method"' in html and "Save the options" in html
    row = next(
        r for r in response.context["rows"] if r["spec"].name == "reinforcement_interval_days"
    )
    assert row["default"] == "7"


def test_options_page_saves(world):
    data = {s.name: s.default for s in OPTION_SPECS if s.default is not None}
    data = {k: v for k, v in data.items() if v is not False}  # unchecked boxes are not sent
    data.update({"random_events": "on", "battle_result_method": "english", "battle_max_turns": 9})
    response = world.client("gm").post(world.url("setup-options"), data)
    assert response.status_code == 302
    o = world.refresh().options
    assert (o["random_events"], o["battle_result_method"], o["battle_max_turns"]) == (
        True,
        "english",
        9,
    )
    assert o["naran_terrain"] is True and o["weather_phase"] is False
    data["battle_max_turns"] = 0
    response = world.client("gm").post(world.url("setup-options"), data)
    assert response.status_code == 400 and response.context["form"].errors["battle_max_turns"]


def test_players_read_the_options_but_cannot_change_them(world):
    client = world.client("red")
    response = client.get(world.url("setup-options"))
    assert response.status_code == 200
    html = response.content.decode()
    assert '<code class="option-name">naran_terrain</code>' in html
    assert "Save the options" not in html
    assert client.post(world.url("setup-options"), {"weather_phase": "on"}).status_code == 403
    assert world.refresh().options["weather_phase"] is False
    assert world.client("outsider").get(world.url("setup-options")).status_code == 404


def test_start_page_lists_what_is_missing_then_starts(settings):
    w = make_world(forces=False)
    client = w.client("gm")
    html = client.get(w.url("start")).content.decode()
    assert "Red Dwarves has no force" in html and "Start the campaign</button>" not in html
    assert client.post(w.url("start")).status_code == 400
    force_create(player=w.red, name="A", x=1, y=1, status="defend", general=GENERAL, unit=UNIT)
    force_create(player=w.blue, name="B", x=7, y=4, status="defend", general=GENERAL, unit=UNIT)
    assert "Start the campaign</button>" in client.get(w.url("start")).content.decode()
    assert w.client("red").post(w.url("start")).status_code == 403
    response = client.post(w.url("start"))
    assert response.status_code == 302 and not w.refresh().setup_open
    assert response["Location"] == reverse("campaign:detail", args=[w.campaign.slug])


def test_the_nav_shows_setup_links_to_the_gm_while_setup_is_open(world):
    gm_html = world.client("gm").get(world.url("setup-options")).content.decode()
    player_html = world.client("red").get(world.url("setup-options")).content.decode()
    assert world.url("setup-map") in gm_html and world.url("start") in gm_html
    assert world.url("setup-map") not in player_html and world.url("roster") in player_html


@pytest.mark.django_db
def test_turn_pages_of_a_campaign_in_setup_lead_to_its_setup_pages(client):
    world = make_world()
    client.force_login(world.campaign.memberships.get(role="gm").user)
    for name in ("campaign:detail", "campaign:orders"):
        response = client.get(reverse(name, args=[world.campaign.slug]))
        assert response.status_code == 302
        # the world has its armies: the GM goes to what is left before the start
        assert response["Location"] == reverse("campaign:start", args=[world.campaign.slug])


@pytest.mark.django_db
def test_a_campaign_name_is_one_line():
    gm = user_get_or_create(username="gina")
    with pytest.raises(ServiceError, match="remove the line breaks"):
        campaign_create_blank(gm=gm, slug="two", name="Two\nLines")
