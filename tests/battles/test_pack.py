"""The battle pack (`battles:pack`) and the print sheets of the turn (`battles:pack-print`).

On the demo campaign with fog of war on: the Southern March (d3) waits at (4, 8), on the Red
Riders' path, and turn 1 is resolved with seed 7: the raiders make contact, battle t1-b1.
The variants change the Southern March's status or the campaign's options before resolving,
to get the parts of a pack each option brings (ammunition rolls, scenery, scenarios).
"""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from battles.models import Battle
from battles.packs import battle_ledger_list
from campaign.adapters import state_current
from campaign.models import Campaign, Force, Membership, Turn, TurnResolution
from campaign.orders.services import orders_submit
from campaign.selectors import turn_current
from campaign.setup.invitations import membership_add
from campaign.setup.services import campaign_create
from campaign.text.labels import label
from campaign.text.ledger_values import SCENERY_ROW
from campaign.turns.services import turn_close, turn_resolve
from rules.codec import to_data
from rules.generate import generate_campaign, generate_orders
from rules.tables import WEATHER_BATTLE_EFFECTS
from rules.types import Weather

pytestmark = pytest.mark.django_db


def contact(campaign: Campaign, *, status: str | None = None, **options) -> Battle:
    """Put the Southern March on the Red Riders' path and resolve turn 1 (seed 7)."""
    fields = {"x": 4, "y": 8} | ({"status": status} if status else {})
    Force.objects.filter(campaign=campaign, key="d3").update(**fields)
    if options:
        campaign.options = {**campaign.options, **options}
        campaign.save(update_fields=["options"])
    call_command("resolve_turn", campaign.slug, "--seed", "7", stdout=StringIO())
    return Battle.objects.get(campaign=campaign)


def pack_url(key: str = "t1-b1", slug: str = "incursion") -> str:
    return reverse("battles:pack", args=[slug, key])


def print_url(slug: str = "incursion") -> str:
    return reverse("battles:pack-print", args=[slug])


def html_of(client, url: str, status: int = 200) -> str:
    response = client.get(url)
    assert response.status_code == status, response.status_code
    return response.content.decode()


def text(html: str) -> str:
    """The page's words, one space apart (tags dropped)."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


# --- both sides open the pack -------------------------------------------------------------------


@pytest.mark.parametrize("who", ["side_a", "side_b", "gm"])
def test_both_sides_and_the_gm_open_the_whole_pack(cast, who):
    """Under fog of war each player sees the enemy's strength in the pack: the battle exists,
    and the tabletop shows every figure."""
    contact(cast.campaign)
    page = text(html_of(cast.client(who), pack_url()))
    assert "Battle pack 1 of turn 1: Raiders against Defenders" in page
    assert "Square (4, 8)" in page and "Contact order 1 (R6.7.5)" in page
    assert "The Red Riders made the contact (R6.7)." in page
    # both forces, their strength and every unit
    assert "The Red Riders (The Grey Fell Clans)" in page
    assert "The Southern March (The March of Ashbury)" in page
    assert "56 figures, 1134 points" in page and "40 figures, 507 points" in page
    for unit in ("Wolf riders", "Mounted bowmen", "Men-at-arms", "Archers", "Light horse"):
        assert unit in page
    assert "Sigrid the Red" in page and "Lady Margaret Fenwick" in page


def test_pack_holds_scouting_start_states_works_and_retreat_modifiers(cast):
    contact(cast.campaign)
    page = text(html_of(cast.client("side_a"), pack_url()))
    # §7.5: raiders on Full Speed in their own third, the March on Defend in enemy territory
    assert "On friendly territory. Scouting (§7.5): partial scouting, modifier +2." in page
    assert "On enemy territory. Scouting (§7.5): doubled scouting, modifier −1." in page
    # R7.8.4: a force on Defend gets its field-works quota, one point per figure
    assert "Status: Defend" in page and "Field-works quota: 40 points (R7.8.4)" in page
    assert page.count("in good order") == 7  # no Confused or Unsteady force
    # R7.8.3: six tokens without a roll for a force on Full Speed or Defend
    assert page.count("6 tokens") == 2 and "rolled" not in page
    # R7.9.12 and R7.2.2
    assert re.search(r"Command test −3 −2 −1 \+0", page)
    assert "The battle lasts at most 12 turns (R7.2.2)." in page
    # §7.6 terrain of the square, no scenario, fine weather
    assert "Road" in page and "Plain (§7.6)" in page
    assert "No special scenario" in page and "No effect on the battle." in page


def test_ammunition_rolls_and_scenery_come_from_the_ledger(cast):
    """A Confused force rolls 1D6 for each missile unit (R7.8.3); with random scenery the five
    §7.7 rolls come first. Every one is in the Phases 0–2 ledger and on the pack."""
    battle = contact(cast.campaign, status="confused", random_scenery=True)
    rolls = {e["purpose"]: e for e in battle_ledger_list(battle=battle, stage="turn")}
    ammo = rolls["battle:t1-b1:ammo-d3u2"]
    assert ammo["rule"] == "R7.8.3" and len(ammo["natural"]) == 1
    unit = next(
        u
        for s in battle.pack["sides"]
        for f in s["forces"]
        for u in f["units"]
        if u["unit_id"] == "d3u2"
    )
    assert unit["ammo"] == ammo["natural"][0]  # Confused: the die itself (R7.8.3)
    scenery = [p for p in rolls if ":scenery-" in p]
    assert len(scenery) == 5

    html = html_of(cast.client("side_a"), pack_url())
    page = text(html)
    row = text(re.search(r'<tr data-unit="d3u2">.*?</tr>', html, re.S)[0])
    assert f"{ammo['natural'][0]} token" in row and f"rolled 1D6: {ammo['natural'][0]}" in row
    assert page.count("disorganised") == 3  # every unit of the Confused force (R7.8.1)
    assert "Random scenery (§7.7)" in page
    for purpose in scenery:
        name = purpose.rsplit("scenery-", 1)[1]
        assert label(SCENERY_ROW, battle.pack["scenery"][name]) in page  # in words
        assert f'data-purpose="{purpose}"' in html
    assert 'data-purpose="battle:t1-b1:ammo-d3u2"' in html
    # the stored ledger numbers are not shown: under fog their gaps count the enemy's rolls
    assert "ledger #" not in page


def test_chance_encounter_when_both_forces_are_on_full_speed(cast):
    """§7.10.3: with special scenarios on, two forces on Full Speed meet by chance; the pack
    carries its deployment rules and scouting is suppressed."""
    battle = contact(cast.campaign, status="full-speed", special_scenarios=True)
    assert battle.pack["scenario"] == "chance-encounter"
    page = text(html_of(cast.client("side_b"), pack_url()))
    assert "Chance Encounter (§7.10.3)" in page
    assert "Roll 1D6 for who deploys the first command" in page
    assert page.count("Scouting (§7.5): no scouting, modifier +0.") == 2


def test_weather_effects_on_the_battle(cast):
    """R4.2: the pack carries the weather's battle effects (the demo has no weather phase, so
    the stored pack is given the heavy-rain effects of the rules table)."""
    battle = contact(cast.campaign)
    effects = dict(WEATHER_BATTLE_EFFECTS[Weather.HEAVY_RAIN])
    battle.pack = {**battle.pack, "weather": "heavy-rain", "weather_effects": effects}
    battle.save(update_fields=["pack"])
    page = text(html_of(cast.client("side_a"), pack_url()))
    assert "Heavy rain" in page
    assert "Missile fire: −2 to hit." in page and "Melee: −2 to hit." in page
    assert "Unit movement reduced by 1/4." in page and "Light signals cannot be used." in page
    assert "Command zones: −5 cm." in page and "Change-orders tests: −1." in page


def test_a_storm_that_ends_the_battle(cast):
    battle = contact(cast.campaign)
    effects = {"battle_ends_as_stalemate": True}
    battle.pack = {**battle.pack, "weather": "storm", "weather_effects": effects}
    battle.save(update_fields=["pack"])
    page = text(html_of(cast.client("side_b"), pack_url()))
    assert "A storm" in page
    assert "The storm ends the battle at once as a stalemate (A-60)." in page


def test_htmx_request_gets_the_sheet_alone(cast):
    contact(cast.campaign)
    response = cast.client("side_a").get(pack_url(), headers={"HX-Request": "true"})
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<article class="battle-sheet"')
    assert "<html" not in html and "campaign-nav" not in html


def test_the_page_links_the_report_and_the_print_sheets(cast):
    contact(cast.campaign)
    html = html_of(cast.client("side_b"), pack_url())
    assert reverse("battles:detail", args=["incursion", "t1-b1"]) in html
    assert print_url() in html
    assert reverse("battles:history", args=["incursion"]) in html
    assert 'href="/static/css/battles.css"' in html or "css/battles.css" in html


def test_unknown_battle_is_404(cast):
    contact(cast.campaign)
    assert cast.client("gm").get(pack_url("t9-b9")).status_code == 404


def test_observer_sees_the_pack_of_the_side_he_follows(cast):
    contact(cast.campaign)
    observer = cast.users["observer"]
    client = cast.client("observer")
    assert client.get(pack_url()).status_code == 404
    Membership.objects.filter(campaign=cast.campaign, user=observer).update(
        player=cast.campaign.players.get(key="raiders")
    )
    assert client.get(pack_url()).status_code == 200


# --- the print sheets -------------------------------------------------------------------------


def test_print_page_holds_every_pending_battle_once(cast):
    contact(cast.campaign)
    html = html_of(cast.client("gm"), print_url())
    assert html.count('class="battle-sheet"') == 1 and 'id="pack-t1-b1"' in html
    assert "1 battle waits to be fought this turn." in text(html)


def test_print_page_leaves_out_resolved_battles(cast):
    battle = contact(cast.campaign)
    Battle.objects.filter(pk=battle.pk).update(status=Battle.Status.RESOLVED)
    page = text(html_of(cast.client("side_a"), print_url()))
    assert "No battle of yours is waiting to be fought this turn." in page


def test_print_page_for_an_observer_under_fog_is_empty(cast):
    contact(cast.campaign)
    html = html_of(cast.client("observer"), print_url())
    assert 'class="battle-sheet"' not in html and "Red Riders" not in html


@pytest.fixture
def three_sides(db, django_user_model):
    """A generated campaign of three sides, one player each, fog of war on; turn 1 (seed 6)
    ends in t1-b1 (sides s1 and s2) and t1-b2 (sides s2 and s3). Users p1…p3 play them."""
    state = generate_campaign(
        width=9, height=6, players=3, forces=9, units_per_force=2, seed=6, sides=3
    )
    campaign = campaign_create(slug="three", name="Three sides", state=state)
    Campaign.objects.filter(pk=campaign.pk).update(fog_of_war=True)
    campaign.refresh_from_db()
    turn = turn_current(campaign=campaign)
    orders = generate_orders(state_current(campaign=campaign), seed=6)
    for player in campaign.players.order_by("position"):
        data = to_data(orders[player.key])
        data.pop("player_id")
        orders_submit(player=player, turn=turn, data=data, confirm=True)
        user = django_user_model.objects.create_user(player.key, password="x")
        membership_add(campaign=campaign, user=user, role=Membership.Role.PLAYER, player=player)
    gm = django_user_model.objects.create_user("three-gm", password="x")
    membership_add(campaign=campaign, user=gm, role=Membership.Role.GM)
    turn = turn_close(turn=turn, seed=6)
    turn_resolve(turn_id=turn.pk)
    sides = {
        b.key: [s["side"] for s in b.pack["sides"]]
        for b in Battle.objects.filter(campaign=campaign)
    }
    assert sides == {"t1-b1": ["s1", "s2"], "t1-b2": ["s2", "s3"]}, sides
    assert Turn.objects.get(pk=turn.pk).status == Turn.Status.BATTLES
    return campaign


def login(client, django_user_model, username: str):
    client.force_login(django_user_model.objects.get(username=username))
    return client


@pytest.mark.parametrize(
    "who, sheets",
    [
        ("three-gm", ["t1-b1", "t1-b2"]),
        ("p1", ["t1-b1"]),
        ("p2", ["t1-b1", "t1-b2"]),
        ("p3", ["t1-b2"]),
    ],
)
def test_print_page_puts_each_of_the_viewers_battles_on_a_sheet(
    three_sides, client, django_user_model, who, sheets
):
    html = html_of(login(client, django_user_model, who), print_url("three"))
    assert re.findall(r'<article class="battle-sheet" id="pack-([^"]+)"', html) == sheets
    # one sheet per battle on paper: the stylesheet breaks the page after each one
    assert "css/battles.css" in html


def test_a_player_whose_side_is_not_in_the_battle_gets_404(three_sides, client, django_user_model):
    login(client, django_user_model, "p1")
    assert client.get(pack_url("t1-b1", "three")).status_code == 200
    assert client.get(pack_url("t1-b2", "three")).status_code == 404


def test_the_print_stylesheet_gives_one_a4_sheet_per_battle():
    """The print rules the browser test checks with Chromium's PDF output."""
    from django.contrib.staticfiles import finders

    with open(finders.find("css/battles.css"), encoding="utf-8") as f:
        css = f.read()
    assert re.search(r"@page\s*{[^}]*size:\s*A4", css)
    media = css[css.index("@media print") :]
    assert re.search(r"\.battle-sheet\s*{[^}]*break-after:\s*page", media)
    assert re.search(r"\.site-header,\s*\.campaign-nav,\s*\.no-print", media)


def test_pack_rolls_are_those_of_the_turn_resolution(cast):
    battle = contact(cast.campaign, status="confused")
    stored = TurnResolution.objects.get(turn=battle.turn, stage="turn").ledger
    mine = battle_ledger_list(battle=battle, stage="turn")
    assert mine == [e for e in stored if e["purpose"].startswith("battle:t1-b1:")]
    assert [e["purpose"] for e in mine] == ["battle:t1-b1:ammo-d3u2"]


def test_the_battle_record_holds_the_whole_pack(cast):
    """What Phases 0–2 store for each pending battle (docs/state-format.md, "Output")."""
    battle = contact(cast.campaign, status="confused", random_scenery=True)
    assert (battle.x, battle.y, battle.contact_order, battle.status) == (4, 8, 1, "pending")
    pack = battle.pack
    for key in (
        "features",
        "setup_rule",
        "scenery",
        "scenario",
        "scenario_rules",
        "weather",
        "weather_effects",
        "gr_modifiers",
        "max_turns",
        "contact_order",
    ):
        assert key in pack, key
    assert pack["gr_modifiers"] == {"1": -3, "2": -2, "3": -1, "4": 0}
    assert [s["side"] for s in pack["sides"]] == ["raiders", "defenders"]
    for side in pack["sides"]:
        assert {"territory", "scouting", "scouting_modifier", "role", "players"} <= set(side)
        for force in side["forces"]:
            assert {"status", "figures", "points", "works_quota"} <= set(force)
            for unit in force["units"]:
                assert {"disorganised", "demoralised", "ammo"} <= set(unit)


@pytest.mark.parametrize("url", [pack_url(), print_url()])
def test_fog_of_war_hides_every_force_outside_the_battle(cast, url):
    """The pack reveals the enemy it fights, nothing else: the raiders still see none of the
    other defender forces, their generals or characters."""
    contact(cast.campaign)
    html = html_of(cast.client("side_a"), url)
    for hidden in ("Ashbury Garrison", "The Northern March", "Sir Edmund Ashby", "Sir Roger Hale"):
        assert hidden not in html, hidden
    assert not re.search(r"\bd[12](?:[cgiu]\d+)?\b", html)
    html = html_of(cast.client("side_b"), url)
    for hidden in ("The Jarl's Host", "Hakon's Warband", "The Jarl"):
        assert hidden not in html and hidden.replace("'", "&#x27;") not in html, hidden
    assert not re.search(r"\br[12](?:[cgiu]\d+)?\b", html)


@pytest.mark.parametrize("who", ["gm", "side_a", "side_b"])
def test_the_players_of_the_battle_and_the_gm_get_the_result_link(cast, who):
    battle = contact(cast.campaign)
    url = reverse("battles:result", args=["incursion", "t1-b1"])
    assert url in html_of(cast.client(who), pack_url())
    Battle.objects.filter(pk=battle.pk).update(status=Battle.Status.RESOLVED)
    assert url not in html_of(cast.client(who), pack_url())  # nothing left to enter


def test_without_fog_an_observer_reads_the_pack_but_gets_no_result_link(cast):
    contact(cast.campaign)
    Campaign.objects.filter(pk=cast.campaign.pk).update(fog_of_war=False)
    html = html_of(cast.client("observer"), pack_url())
    assert "The Southern March" in html
    assert reverse("battles:result", args=["incursion", "t1-b1"]) not in html
