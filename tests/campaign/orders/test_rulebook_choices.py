"""Decisions the rulebook gives a player, made on the orders page (issue 13): the winner of
the initiative by army chooses when he moves (R6.1.2), only the Raiders are offered a sack
(§11.6), and a force asking for Defend keeps a conditional path (R5.2, R6.4.4)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaign.models import Campaign, Orders
from campaign.selectors import turn_current
from campaign.text.names import Names
from campaign.text.sentences import event_sentence
from campaign.turns.services import turn_close
from tests.campaign.orders.test_orders_page import _force_data, _stamp

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
ARMY = "If you win the initiative by army (R6.1.2)"


def _url(campaign: Campaign, name: str, *args: str) -> str:
    return reverse(f"campaign:{name}", args=[campaign.slug, *args])


def _orders(campaign: Campaign, player: str) -> Orders | None:
    return Orders.objects.filter(turn=turn_current(campaign=campaign), player__key=player).first()


def _by_army(campaign: Campaign) -> None:
    campaign.options = {**campaign.options, "initiative_method": "by-army"}
    campaign.save(update_fields=["options"])


# --- R6.1.2: the winner of the initiative by army chooses when he moves ------------------------


def test_the_army_choice_is_offered_only_with_initiative_by_army(cast):
    client = cast.client("side_a")
    assert ARMY not in client.get(_url(cast.campaign, "orders")).content.decode()
    _by_army(cast.campaign)
    html = client.get(_url(cast.campaign, "orders")).content.decode()
    assert ARMY in html
    assert 'value="first" id="army-initiative-first" checked' in html  # the default
    assert "Make the other players move all their forces first" in html


def test_a_player_saves_his_army_choice_and_keeps_his_forces_orders(cast):
    _by_army(cast.campaign)
    client = cast.client("side_a")
    before = _orders(cast.campaign, "raiders").data
    response = client.post(
        _url(cast.campaign, "orders-army"), {"army_initiative": "last", **_stamp(cast.campaign)}
    )
    assert response.status_code == 302
    assert response["Location"].endswith("#orders-army")
    after = _orders(cast.campaign, "raiders").data
    assert after["army_initiative"] == "last"
    assert after["forces"] == before["forces"]
    html = client.get(response["Location"]).content.decode()
    assert "Choice saved." in html
    assert 'value="last" id="army-initiative-last" checked' in html


def test_a_bad_army_choice_changes_nothing_and_says_why(cast):
    _by_army(cast.campaign)
    client = cast.client("side_a")
    before = _orders(cast.campaign, "raiders").data
    response = client.post(
        _url(cast.campaign, "orders-army"),
        {"army_initiative": "whenever", **_stamp(cast.campaign)},
        follow=True,
    )
    assert "Choose one of the two answers, then save." in response.content.decode()
    assert _orders(cast.campaign, "raiders").data == before


def test_the_army_choice_after_the_turn_closed_is_refused(cast):
    _by_army(cast.campaign)
    before = _orders(cast.campaign, "raiders").data
    turn_close(turn=turn_current(campaign=cast.campaign), seed=7)
    response = cast.client("side_a").post(
        _url(cast.campaign, "orders-army"),
        {"army_initiative": "last", **_stamp(cast.campaign)},
        follow=True,
    )
    assert "The turn is no longer open: your choice was not saved." in response.content.decode()
    assert _orders(cast.campaign, "raiders").data == before


@pytest.mark.parametrize(
    ("who", "status"), [("gm", 403), ("observer", 403), ("outsider", 404), ("anonymous", 302)]
)
def test_only_a_player_saves_an_army_choice(cast, who, status):
    _by_army(cast.campaign)
    before = _orders(cast.campaign, "raiders").data
    response = cast.client(who).post(
        _url(cast.campaign, "orders-army"), {"army_initiative": "last"}
    )
    assert response.status_code == status
    assert _orders(cast.campaign, "raiders").data == before


def test_the_report_names_the_winners_choice():
    names = Names([], sides={}, everything=True)
    text = event_sentence(
        {"type": "ArmyInitiativeChosen", "player_id": "raiders", "choice": "last"}, names
    )
    assert "won the initiative by army and made the others move all their forces" in text
    assert "(R6.1.2)" in text


# --- §11.6: only the Raiders carry off loot -----------------------------------------------------


def test_only_the_raiders_are_offered_a_sack(cast):
    raider = cast.client("side_a").get(_url(cast.campaign, "orders-force", "r2"), headers=HTMX)
    assert "Sack the captured holding it stands on" in raider.content.decode()
    defender = cast.client("side_b").get(_url(cast.campaign, "orders-force", "d2"), headers=HTMX)
    assert "Sack the captured holding it stands on" not in defender.content.decode()


def test_a_defender_sack_is_refused_in_plain_words(cast):
    client = cast.client("side_b")
    before = _orders(cast.campaign, "defenders")
    response = client.post(
        _url(cast.campaign, "orders-force", "d2"),
        {**_force_data(sack="on"), **_stamp(cast.campaign, "d2")},
        headers=HTMX,
    )
    assert "Only the Raiders carry off loot (§11.6)." in response.content.decode()
    after = _orders(cast.campaign, "defenders")
    assert (after.data if after else None) == (before.data if before else None)


# --- R5.2 / R6.4.4: a force asking for Defend keeps a conditional path --------------------------


def test_a_force_asking_for_defend_may_draw_a_conditional_path(cast):
    client = cast.client("side_a")  # r2, Hakon's Warband, on Probe at (2, 4)
    html = client.post(
        _url(cast.campaign, "orders-path", "r2"),
        {**_force_data(change_to="defend", x="3", y="4"), **_stamp(cast.campaign, "r2")},
        headers=HTMX,
    ).content.decode()
    assert 'name="path" value="3,4"' in html
    assert "followed only if the force test fails and leaves it under a reaction" in html
    response = client.post(
        _url(cast.campaign, "orders-force", "r2"),
        {
            **_force_data(change_to="defend", path="3,4", countermarch="always"),
            **_stamp(cast.campaign, "r2"),
        },
        headers=HTMX,
    )
    assert "Forces on Defend or Shattered cannot countermarch" not in response.content.decode()
    saved = _orders(cast.campaign, "raiders").data["forces"]["r2"]
    assert saved["change_to"] == "defend"
    assert saved["path"] == [[3, 4]] and saved["countermarch"] == "always"


# --- R4.4.3: a force's Wizard shifts the weather of its own march --------------------------------

SPELL = "weather spell, for its own movement (R4.4.3)"


def _wizard_campaign(campaign: Campaign) -> None:
    """The demo without its Incursion (which has no weather, R3.1), with the weather phase on.
    Old Hrothgar is the Red Riders' (r1) Wizard; r3 has none."""
    campaign.scenario = ""
    campaign.options = {**campaign.options, "weather_phase": True}
    campaign.save(update_fields=["scenario", "options"])


def test_a_wizards_force_is_offered_the_weather_spell_and_saves_it(cast):
    client = cast.client("side_a")
    editor = _url(cast.campaign, "orders-force", "r1")
    assert SPELL not in client.get(editor, headers=HTMX).content.decode()  # Incursion: none
    _wizard_campaign(cast.campaign)
    assert SPELL in client.get(editor, headers=HTMX).content.decode()
    assert (
        SPELL
        not in client.get(_url(cast.campaign, "orders-force", "r3"), headers=HTMX).content.decode()
    )
    data = {**_force_data(weather_shift="-1"), **_stamp(cast.campaign, "r1")}
    response = client.post(editor, data, headers=HTMX)
    assert response.status_code == 200
    saved = _orders(cast.campaign, "raiders").data["forces"]["r1"]
    assert saved["weather_shift"] == -1
    assert (
        "its Wizard betters its weather"
        in client.get(_url(cast.campaign, "orders")).content.decode()
    )


def test_a_force_without_a_wizard_is_refused_the_spell_in_words(cast):
    _wizard_campaign(cast.campaign)
    client = cast.client("side_a")
    response = client.post(
        _url(cast.campaign, "orders-force", "r3"),
        {**_force_data(weather_shift="1"), **_stamp(cast.campaign, "r3")},
        headers=HTMX,
    )
    html = response.content.decode()
    assert "Only a force with a Wizard may change its weather" in html
    assert "weather-shift-no-wizard" not in html
    saved = (_orders(cast.campaign, "raiders").data or {}).get("forces", {}).get("r3", {})
    assert saved.get("weather_shift", 0) == 0
