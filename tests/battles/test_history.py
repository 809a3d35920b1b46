"""The campaign's battle history (`battles:history`) and each battle's report
(`battles:detail`): the pack, the entered result, the recovery dice and the consequences.

On the demo campaign with fog of war on, battle t1-b1 (the Red Riders against the Southern
March, see test_pack.py). `fight` enters a result (the raiders win; every unit loses a third
of its figures killed and two fled) and resolves Phases 4–8.
"""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django_htmx.http import HTMX_STOP_POLLING

from battles.models import Battle, BattlePhoto
from battles.services import battle_result_record
from campaign.models import Campaign, Turn, TurnResolution, Unit
from campaign.turns.services import turn_resolve_after_battles
from tests.battles.test_pack import contact, html_of, login, text, three_sides  # noqa: F401
from tests.conftest import CAST

pytestmark = pytest.mark.django_db

HISTORY = reverse("battles:history", args=["incursion"])
REPORT = reverse("battles:detail", args=["incursion", "t1-b1"])


def result_data(battle: Battle, *, winner: str = "a") -> dict:
    """Every unit loses a third of its figures killed and two fled."""
    figures = dict(Unit.objects.filter(campaign=battle.campaign_id).values_list("key", "figures"))
    units = [
        {"unit_id": u["unit_id"], "killed": figures[u["unit_id"]] // 3, "fled": 2}
        for s in battle.pack["sides"]
        for f in s["forces"]
        for u in f["units"]
    ]
    loser = "b" if winner == "a" else "a"
    return {"outcomes": {winner: "won", loser: "lost"}, "units": units}


def enter(cast, battle: Battle, **kwargs) -> Battle:
    battle = battle_result_record(battle=battle, data=result_data(battle, **kwargs))
    Battle.objects.filter(pk=battle.pk).update(
        entry=Battle.Entry.CONFIRMED,
        entered_by=cast.users["side_b"],
        confirmed_by=cast.users["side_a"],
    )
    return Battle.objects.get(pk=battle.pk)


@pytest.fixture
def fought(cast):
    """Battle t1-b1 entered and confirmed, and Phases 4–8 resolved."""
    battle = enter(cast, contact(cast.campaign))
    turn_resolve_after_battles(turn_id=battle.turn_id)
    return cast


def after_ledger(campaign: Campaign) -> list[dict]:
    return TurnResolution.objects.get(turn__campaign=campaign, stage="after-battles").ledger


def after_events(campaign: Campaign) -> list[dict]:
    return TurnResolution.objects.get(turn__campaign=campaign, stage="after-battles").events


# --- the history list ----------------------------------------------------------------------------


@pytest.mark.parametrize("who, status", zip(CAST, (200, 200, 200, 200, 404, 404, 302), strict=True))
def test_the_cast_on_the_history(cast, who, status):
    contact(cast.campaign)
    response = cast.client(who).get(HISTORY)
    assert response.status_code == status
    if who == "anonymous":
        assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("who", ["gm", "side_a", "side_b"])
def test_both_sides_and_the_gm_list_the_battle(cast, who):
    contact(cast.campaign)
    html = html_of(cast.client(who), HISTORY)
    assert re.findall(r'<tr data-battle="([^"]+)"', html) == ["t1-b1"]
    row = text(re.search(r'<tr data-battle="t1-b1">.*?</tr>', html, re.S)[0])
    assert "(4, 8)" in row and "Raiders" in row and "Defenders" in row
    assert "The Grey Fell Clans" in row and "The March of Ashbury" in row
    assert "Pending" in row
    assert reverse("battles:pack", args=["incursion", "t1-b1"]) in html
    assert REPORT in html


def test_observer_under_fog_lists_no_battle_and_is_told_why(cast):
    contact(cast.campaign)
    html = html_of(cast.client("observer"), HISTORY)
    assert "data-battle=" not in html and "Raiders" not in text(html).split("Battles", 2)[-1]
    assert "an observer who follows no army sees no battle" in text(html)


def test_without_fog_everyone_lists_every_battle(cast):
    contact(cast.campaign)
    Campaign.objects.filter(pk=cast.campaign.pk).update(fog_of_war=False)
    html = html_of(cast.client("observer"), HISTORY)
    assert re.findall(r'<tr data-battle="([^"]+)"', html) == ["t1-b1"]
    assert "Every battle of the campaign." in text(html)


@pytest.mark.parametrize(
    "who, keys",
    [
        ("three-gm", ["t1-b1", "t1-b2"]),
        ("p1", ["t1-b1"]),
        ("p2", ["t1-b1", "t1-b2"]),
        ("p3", ["t1-b2"]),
    ],
)
@pytest.mark.usefixtures("three_sides")
def test_under_fog_a_player_lists_only_his_sides_battles(client, django_user_model, who, keys):
    html = html_of(
        login(client, django_user_model, who), reverse("battles:history", args=["three"])
    )
    assert re.findall(r'<tr data-battle="([^"]+)"', html) == keys


@pytest.mark.usefixtures("three_sides")
def test_turn_filter_and_htmx_fragment(client, django_user_model):
    login(client, django_user_model, "three-gm")
    url = reverse("battles:history", args=["three"])
    response = client.get(url, {"turn": 1}, headers={"HX-Request": "true"})
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<div id="battle-list">') and "<html" not in html
    assert len(re.findall(r"<tr data-battle=", html)) == 2
    empty = html_of(client, f"{url}?turn=2")
    assert "No battle to show for turn 2." in text(empty)
    full = html_of(client, url)
    assert f'hx-get="{url}?turn=1"' in full and f'href="{url}?turn=1"' in full


def test_a_row_shows_outcome_and_figures_lost_once_entered(cast):
    enter(cast, contact(cast.campaign))
    row = text(
        re.search(
            r'<tr data-battle="t1-b1">.*?</tr>', html_of(cast.client("side_a"), HISTORY), re.S
        )[0]
    )
    assert "Raiders: Won" in row and "Defenders: Lost" in row
    # a third killed and two fled per unit: raiders 16/10/10/20 figures, the March 16/14/10
    assert "Raiders: 25 of 56" in row and "Defenders: 18 of 40" in row
    assert "Resolved" in row


def test_the_nav_links_the_history(cast):
    contact(cast.campaign)
    html = html_of(cast.client("side_b"), reverse("campaign:detail", args=["incursion"]))
    assert f'href="{HISTORY}"' in html


# --- the report -------------------------------------------------------------------------------


def test_report_before_a_result(cast):
    contact(cast.campaign)
    html = html_of(cast.client("side_a"), REPORT)
    page = text(html)
    assert "Battle 1 of turn 1: Raiders against Defenders" in page
    assert "No result has been entered yet." in page
    assert "when the game master resolves Phases 4–8" in page
    # the pack is part of the report
    assert 'id="pack-t1-b1"' in html and "The Southern March" in page


def test_report_with_a_result_waiting_for_phases_4_to_8(cast):
    enter(cast, contact(cast.campaign))
    html = html_of(cast.client("side_b"), REPORT)
    page = text(html)
    assert "Raiders : Won" in page and "Defenders : Lost" in page
    row = text(re.search(r'<tr data-unit="d3u1">.*?</tr>', html, re.S)[0])
    assert row.split() == ["Men-at-arms", "The", "Southern", "March", "5", "2", "0", "0"]
    assert "Recovered (R8.1)" not in page  # nothing is rolled before Phases 4–8
    # people by their display names, not their user names
    assert "Entered by Sir Edmund of Ashbury." in page
    assert "Confirmed by Ulfrik of Wolfstead." in page


def test_recovery_dice_match_the_ledger(fought):
    """Every wounded and deserter check on the report is the ledger's roll: the same dice,
    and the figures that came back are those the dice give (R8.1/R8.2: a natural 1 is lost, a
    natural 6 comes back, otherwise 4+ with the modifiers)."""
    ledger = {e["purpose"]: e for e in after_ledger(fought.campaign)}
    html = html_of(fought.client("side_a"), REPORT)
    rows = re.findall(
        r'<tr class="check" data-kind="(\w+)" data-unit="([^"]+)" data-kept="(\d+)" '
        r'data-purpose="([^"]+)" data-natural="([^"]*)">',
        html,
    )
    checks = [e for e in ledger if re.match(r"after:t1-b1:(wounded|deserters)-", e)]
    assert sorted(r[3] for r in rows) == sorted(checks) and len(rows) == 11
    for kind, unit, kept, purpose, natural in rows:
        entry = ledger[purpose]
        assert purpose == f"after:t1-b1:{kind}-{unit}"
        assert [int(n) for n in natural.split(", ")] == entry["natural"]
        net = sum(m["value"] for m in entry["modifiers"])
        by_dice = sum(1 for n in entry["natural"] if n == 6 or (n != 1 and n + net >= 4))
        assert int(kept) == by_dice, purpose
    # the loss table adds them up per unit, as the events applied them
    recovered = {
        e["unit_id"]: e["recovered"]
        for e in after_events(fought.campaign)
        if e["type"] == "WoundedChecked"
    }
    for uid, n in recovered.items():
        row = re.search(rf'<tr data-unit="{uid}">.*?</tr>', html, re.S)[0]
        assert re.search(rf'<td class="recovered">{n}</td>', row), uid
    # the loser's killed figures are all dead (R8.1.1): no wounded check for the March
    assert not any(p.startswith("after:t1-b1:wounded-d3") for p in ledger)


def test_lost_for_good_counts_the_dead_and_the_deserted(fought):
    events = after_events(fought.campaign)
    html = html_of(fought.client("gm"), REPORT)
    for uid, killed in (("r3u2", 3), ("d3u1", 5)):
        wounded = next(
            (e for e in events if e["type"] == "WoundedChecked" and e["unit_id"] == uid), None
        )
        dead = wounded["dead"] if wounded else killed
        deserted = sum(
            e["deserted"] for e in events if e["type"] == "DesertersChecked" and e["unit_id"] == uid
        )
        row = re.search(rf'<tr data-unit="{uid}">.*?</tr>', html, re.S)[0]
        assert f'<td class="lost">{dead + deserted}</td>' in row


def test_consequences_for_the_loser(fought):
    page = text(html_of(fought.client("side_b"), REPORT))
    assert "Battle 1 of turn 1 at (4, 8) was fought: Raiders won, Defenders lost." in page
    assert "Moves (R8.4)" in page and "The Southern March moved to" in page
    assert (
        "The Southern March suffered a reaction: its status goes from Defend to Confused." in page
    )
    assert "The Southern March lost its field works." in page
    assert "The March of Ashbury tested its will to fight" in page


def test_the_winner_does_not_see_the_enemys_will_to_fight(fought):
    page = text(html_of(fought.client("side_a"), REPORT))
    assert "The Southern March suffered a reaction" in page  # seen at the table
    assert "The March of Ashbury tested its will to fight" not in page
    assert "No will-to-fight test of this battle's players that your side may see." in page
    gm = text(html_of(fought.client("gm"), REPORT))
    assert "The March of Ashbury tested its will to fight" in gm


def test_retreat_choices_are_shown_to_their_side_only(cast):
    battle = enter(cast, contact(cast.campaign))
    Battle.objects.filter(pk=battle.pk).update(
        result={**battle.result, "retreat_choices": {"d3": [5, 7]}}
    )
    assert "The Southern March to (5, 7)" in text(html_of(cast.client("side_b"), REPORT))
    assert "Retreat choices" not in text(html_of(cast.client("side_a"), REPORT))
    assert "The Southern March to (5, 7)" in text(html_of(cast.client("gm"), REPORT))


def test_report_text_and_photos(cast, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    battle = enter(cast, contact(cast.campaign))
    Battle.objects.filter(pk=battle.pk).update(report_text="The riders <b>charged</b> at dawn.")
    BattlePhoto.objects.create(
        battle=battle,
        file=SimpleUploadedFile("table.jpg", b"\xff\xd8\xff\xd9", content_type="image/jpeg"),
        caption="The ford at dawn",
    )
    html = html_of(cast.client("side_a"), REPORT)
    assert "The riders &lt;b&gt;charged&lt;/b&gt; at dawn." in html  # escaped
    assert 'alt="The ford at dawn"' in html and "table" in html


def test_report_polls_while_phases_4_to_8_run(cast):
    battle = enter(cast, contact(cast.campaign))
    Turn.objects.filter(pk=battle.turn_id).update(status=Turn.Status.RESOLVING_AFTER)
    client = cast.client("side_a")
    response = client.get(REPORT, headers={"HX-Request": "true"})
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<section class="card report-section" id="after-battle"')
    assert 'hx-trigger="every 3s"' in html and "<html" not in html
    Turn.objects.filter(pk=battle.turn_id).update(status=Turn.Status.BATTLES)
    turn_resolve_after_battles(turn_id=battle.turn_id)
    response = client.get(REPORT, headers={"HX-Request": "true"})
    assert response.status_code == HTMX_STOP_POLLING
    assert "hx-trigger" not in response.content.decode()
    assert "Recovery dice" in unescape(response.content.decode())


def test_the_gm_inbox_links_the_battle_report(cast):
    contact(cast.campaign)
    html = html_of(cast.client("gm"), reverse("campaign:inbox", args=["incursion"]))
    assert f'href="{REPORT}"' in html


def test_outcome_decided_by_the_victory_method(cast):
    """A result may leave the outcomes to the victory method (§7.3): the history shows the
    outcome Phase 4 decided once it has run."""
    battle = contact(cast.campaign)
    figures = dict(Unit.objects.filter(campaign=cast.campaign).values_list("key", "figures"))
    units = [
        {"unit_id": u["unit_id"], "killed": figures[u["unit_id"]]}
        for u in battle.pack["sides"][1]["forces"][0]["units"]
    ]
    battle_result_record(battle=battle, data={"wiped": "b", "units": units})
    row = lambda: text(  # noqa: E731
        re.search(r'<tr data-battle="t1-b1">.*?</tr>', html_of(cast.client("gm"), HISTORY), re.S)[0]
    )
    assert "Raiders: —" in row()
    turn_resolve_after_battles(turn_id=battle.turn_id)
    assert "Raiders: Won" in row() and "Defenders: Lost" in row()


def test_the_report_hides_every_force_outside_the_battle(fought):
    for who, hidden, ids in (
        ("side_a", ("Ashbury Garrison", "The Northern March", "Sir Roger Hale"), r"d[12]"),
        ("side_b", ("The Jarl", "Hakon", "Thane Bjorn"), r"r[12]"),
    ):
        html = html_of(fought.client(who), REPORT) + html_of(fought.client(who), HISTORY)
        for name in hidden:
            assert name not in html, (who, name)
        assert not re.search(rf"\b{ids}(?:[cgiu]\d+)?\b", html), who


def copies(battle: Battle, n: int) -> None:
    """n more battles like `battle` in its turn (to count queries, not to play)."""
    Battle.objects.bulk_create(
        Battle(
            campaign=battle.campaign,
            turn=battle.turn,
            key=f"t1-b{i}",
            x=battle.x,
            y=battle.y,
            contact_order=i,
            pack={**battle.pack, "battle_id": f"t1-b{i}", "contact_order": i},
            result=battle.result,
            status=battle.status,
        )
        for i in range(2, n + 2)
    )


@pytest.mark.parametrize("name", ["battles:history", "battles:pack-print"])
def test_list_pages_take_as_many_queries_for_twenty_battles_as_for_one(
    cast, name, django_assert_num_queries
):
    battle = enter(cast, contact(cast.campaign))
    Battle.objects.filter(pk=battle.pk).update(status=Battle.Status.PENDING)
    battle.refresh_from_db()
    client = cast.client("side_a")
    url = reverse(name, args=["incursion"])
    with CaptureQueriesContext(connection) as one:
        assert client.get(url).status_code == 200
    copies(battle, 20)
    with django_assert_num_queries(len(one.captured_queries)):
        html = client.get(url).content.decode()
    assert html.count("data-battle=") >= 21


def test_a_battle_page_reads_its_own_rolls_alone(fought, monkeypatch):
    """One battle's pages read that battle's rolls of the turn, not every roll (issue 14):
    picked out by the database on PostgreSQL, here elsewhere; both give the same rolls, in
    order, as reading the whole ledger and keeping the battle's."""
    from battles import packs

    battle = Battle.objects.get(campaign=fought.campaign, key="t1-b1")
    whole = packs.resolutions_get(battle.turn)
    own = packs.resolutions_get(battle.turn, battle.key)
    prefixes = ("battle:t1-b1:", "after:t1-b1:")
    for stage, row in whole.items():
        expected = [e for e in row.ledger if e["purpose"].startswith(prefixes)]
        assert own[stage].ledger == expected
    assert own["after-battles"].ledger  # the recovery dice are there
    assert own["after-battles"].events == whole["after-battles"].events
    assert own["turn"].events == []  # no battle page reads the moves of the turn
    monkeypatch.setattr(connections["default"], "vendor", "elsewhere")
    assert {s: r.ledger for s, r in packs.resolutions_get(battle.turn, battle.key).items()} == {
        s: r.ledger for s, r in own.items()
    }
