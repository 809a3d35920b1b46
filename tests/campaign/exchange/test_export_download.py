"""The export download (`campaign:export-download`, written by the export job): the whole
campaign for the GM, and for anyone else only what his side may see: no hidden force, no
other player's orders, no seed of a turn that is not resolved."""

from __future__ import annotations

import json
import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from campaign.adapters import state_current
from campaign.exchange.export import FORMAT, campaign_export, export_json
from campaign.models import Force
from campaign.selectors import turn_current
from campaign.turns.services import turn_close
from tests.campaign.exchange.exports import download_url, export_made
from tests.campaign.reports.test_report import (
    DEFENDER_IDS,
    HIDDEN_DEFENDERS,
    HIDDEN_RAIDERS,
    RAIDER_IDS,
    absent,
)
from tests.conftest import CAST

pytestmark = pytest.mark.django_db

URL = reverse("campaign:export", args=["incursion"])  # the export page


def resolve() -> None:
    call_command("resolve_turn", "incursion", "--seed", "7", stdout=StringIO())


def download(cast, who: str) -> tuple[str, dict]:
    job = export_made(cast.campaign, cast.users[who])
    response = cast.client(who).get(download_url(cast.campaign, job))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    assert response["Content-Disposition"].startswith("attachment; filename=")
    text = response.content.decode()
    return text, json.loads(text)


@pytest.mark.parametrize("who, status", zip(CAST, (200, 200, 200, 200, 404, 404, 302), strict=True))
def test_the_cast_on_the_export(cast, who, status):
    assert cast.client(who).get(URL).status_code == status


def test_game_master_downloads_the_whole_campaign(cast):
    resolve()
    text, data = download(cast, "gm")
    assert data["format"] == FORMAT
    cast.campaign.refresh_from_db()  # the export reads the campaign row's turn and day
    assert text == export_json(campaign_export(campaign=cast.campaign))
    assert {f["id"] for f in data["state"]["forces"]} == {"r1", "r2", "r3", "d1", "d2", "d3"}
    assert set(data["turns"][0]["orders"]) == {"raiders", "defenders"}


def test_raider_downloads_only_what_his_side_saw(cast):
    resolve()
    text, data = download(cast, "side_a")
    assert data["format"] == "fwcampaign-view"
    assert data["viewer"] == {
        "role": "player",
        "player": "raiders",
        "side": "raiders",
        "everything": False,
    }
    absent(text, HIDDEN_DEFENDERS, DEFENDER_IDS)
    assert {f["id"] for f in data["state"]["forces"]} == {"r1", "r2", "r3"}
    turn = data["turns"][0]
    assert turn["seed"] == 7  # resolved: the seed is public
    assert set(turn["orders"]) == {"raiders"}
    assert "carry" not in turn
    first = turn["resolutions"][0]
    assert set(first["inputs"]) == {"raiders"}
    assert [e["purpose"] for e in first["ledger"]] == [
        "movement:initiative-r1",
        "movement:initiative-r2",
        "movement:initiative-r3",
        "movement:force-r3",
        "movement:force-r1",
        "movement:force-r2",
    ]
    assert [e["seq"] for e in first["ledger"]] == [1, 2, 3, 4, 5, 6]  # no gap counts the enemy
    assert "stored_seq" not in text
    assert first["events"][0]["order"] == ["r3", "r1", "r2"]
    assert {f["id"] for f in first["state_before"]["forces"]} == {"r1", "r2", "r3"}
    assert "users" not in data and "memberships" not in data
    assert data["battles"] == []


def test_defender_and_observer_downloads(cast):
    resolve()
    text, data = download(cast, "side_b")
    absent(text, HIDDEN_RAIDERS, RAIDER_IDS)
    assert set(data["turns"][0]["orders"]) == {"defenders"}
    text, data = download(cast, "observer")
    absent(text, HIDDEN_DEFENDERS + HIDDEN_RAIDERS, DEFENDER_IDS)
    assert not RAIDER_IDS.search(text)
    assert data["state"]["forces"] == [] and data["turns"][0]["orders"] == {}
    assert [e["type"] for e in data["turns"][0]["resolutions"][1]["events"]] == ["DayAdvanced"]


def test_the_seed_of_an_unresolved_turn_is_for_the_gm_only(cast):
    turn = turn_close(turn=turn_current(campaign=cast.campaign), seed=7)
    resolve()  # Phases 0–2 only would need a battle; with none the turn resolves: use turn 2
    turn2 = turn_close(turn=turn_current(campaign=cast.campaign), seed=99)
    assert turn.seed_hash
    for who in ("side_a", "side_b", "observer"):
        _, data = download(cast, who)
        assert data["turns"][0]["seed"] == 7
        assert data["turns"][1]["seed"] is None
        assert data["turns"][1]["seed_hash"] == turn2.seed_hash
    _, data = download(cast, "gm")
    assert data["turns"][1]["seed"] == 99


def test_waiting_for_battles_the_seed_stays_hidden_and_the_contact_is_shared(cast):
    Force.objects.filter(campaign=cast.campaign, key="d3").update(x=4, y=8)
    resolve()  # the turn now waits for the result of battle t1-b1
    text, data = download(cast, "side_a")
    turn = data["turns"][0]
    assert turn["status"] == "battles"
    assert turn["seed"] is None and turn["resolutions"][0]["seed"] is None
    assert re.search(r'"seed": 7\b', text) is None
    assert [b["key"] for b in data["battles"]] == ["t1-b1"]
    assert "The Southern March" in text  # met in battle: his side sees it
    hidden = HIDDEN_DEFENDERS[:2] + HIDDEN_DEFENDERS[3:6] + HIDDEN_DEFENDERS[7:]
    absent(text, hidden, re.compile(r"\bd[12]\w*\b"))
    _, data = download(cast, "observer")
    assert data["battles"] == []
    _, data = download(cast, "gm")
    assert data["turns"][0]["seed"] == 7


def test_without_fog_a_player_sees_every_force_but_only_his_orders(cast):
    cast.campaign.fog_of_war = False
    cast.campaign.save(update_fields=["fog_of_war"])
    resolve()
    text, data = download(cast, "side_a")
    assert data["viewer"]["everything"] is True
    assert "Ashbury Garrison" in text
    assert set(data["turns"][0]["orders"]) == {"raiders"}
    assert set(data["turns"][0]["resolutions"][0]["inputs"]) == {"raiders"}


def test_an_enemy_path_in_the_export_keeps_only_watched_squares(cast):
    Force.objects.filter(campaign=cast.campaign, key="d3").update(x=6, y=10)
    resolve()
    _, data = download(cast, "side_b")
    moved = [e for e in data["turns"][0]["resolutions"][0]["events"] if e["type"] == "ForceMoved"]
    assert moved == [
        {
            "type": "ForceMoved",
            "force_id": "r3",
            "path": [[5, 9]],
            "reason": "movement",
            "rule": "R6.4",
        }
    ]
    _, data = download(cast, "gm")
    moved = [e for e in data["turns"][0]["resolutions"][0]["events"] if e["type"] == "ForceMoved"]
    assert moved[0]["path"] == [[3, 7], [4, 8], [5, 9]]


def test_an_enemy_force_in_sight_is_exported_as_the_map_shows_it(cast):
    """Issue 12 (3): the Red Riders stop next to the defenders; the defenders' export knows
    their name, square, status and figures, not their general, his CV, units or characters."""
    Force.objects.filter(campaign=cast.campaign, key="d3").update(x=6, y=10)
    resolve()
    riders = next(f for f in state_current(campaign=cast.campaign).forces if f.id == "r3")
    text, data = download(cast, "side_b")
    assert {f["id"] for f in data["state"]["forces"]} <= {"d1", "d2", "d3"}
    assert data["sighted"] == [
        {
            "id": "r3",
            "name": riders.name,
            "owner": riders.owner,
            "square": [5, 9],
            "status": riders.status.value,
            "figures": riders.figures,
        }
    ]
    roster = [g.name for g in riders.generals] + [i.name for i in riders.individuals]
    roster += [u.id for u in riders.units] + [g.id for g in riders.generals]
    for token in filter(None, roster):
        assert token not in text, token
    assert "movement:initiative-r3" not in text  # 1D6 + the riders' CV: their own roll
    assert "movement:initiative-d3" in text
    _, data = download(cast, "gm")
    assert "sighted" not in data and "r3" in {f["id"] for f in data["state"]["forces"]}
