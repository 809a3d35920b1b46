"""`export_campaign` and `import_campaign`: a whole campaign as deterministic JSON, and back."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from django.contrib.auth import get_user_model
from django.core.management.base import CommandError

from battles.models import Battle
from campaign.errors import ServiceError
from campaign.exchange.export import FORMAT, campaign_export, export_json
from campaign.exchange.importing import campaign_import
from campaign.models import Campaign, Membership, Orders, Side, Turn, TurnResolution

pytestmark = pytest.mark.django_db


def _export(run, slug: str, *options: str) -> str:
    return run("export_campaign", slug, *options).out


def _import(run, tmp_path, text: str) -> str:
    path = tmp_path / "export.json"
    path.write_text(text, encoding="utf-8")
    return run("import_campaign", str(path)).out.strip()


def test_export_holds_the_whole_campaign(run, battle_campaign):
    text = _export(run, "skirmish")
    assert text == export_json(campaign_export(campaign=battle_campaign)) + "\n"
    data = json.loads(text)
    assert (data["format"], data["version"]) == (FORMAT, 3)
    created = data["campaign"].pop("created_at")
    assert created == battle_campaign.created_at.astimezone(UTC).isoformat()
    assert data["campaign"] == {
        "slug": "skirmish",
        "name": "Generated campaign 6",
        "description": "",
        "fog_of_war": False,
        "auto_close": False,
        "setup_open": False,
        "missing_orders_policy": "hold",
        "seed_salt": "skirmish",
    }
    assert data["colours"] == {"p1": "#888888", "p2": "#888888"}
    assert data["sides"] == {"s1": "S1", "s2": "S2"}
    assert [f["id"] for f in data["state"]["forces"]] == [f"f{n}" for n in range(1, 11)]
    (turn,) = data["turns"]
    assert turn["number"] == 1 and turn["status"] == "battles" and turn["seed"] == 1
    assert turn["carry"]["phase"] == "battles"
    assert sorted(turn["orders"]) == ["p1", "p2"]
    assert turn["orders"]["p1"]["status"] == "saved"
    assert [r["stage"] for r in turn["resolutions"]] == ["turn"]
    assert turn["resolutions"][0]["ledger"][0]["seq"] == 1
    (battle,) = data["battles"]
    assert battle["key"] == "t1-b1" and battle["square"] == [2, 2] and battle["turn"] == 1
    assert battle["status"] == "pending" and battle["result"] is None


def test_export_has_no_ids_and_its_moments_only_when_asked(run, demo):
    turn = demo.turns.get()
    turn.deadline = datetime(2030, 1, 1, 18, 0, tzinfo=UTC)
    turn.save()
    data = json.loads(_export(run, "incursion"))
    assert data["turns"][0]["deadline"] == "2030-01-01T18:00:00+00:00"
    assert data["turns"][0]["opened_at"] == turn.opened_at.astimezone(UTC).isoformat()
    timeless = json.loads(_export(run, "incursion", "--without-times"))
    assert timeless["turns"][0]["deadline"] == "2030-01-01T18:00:00+00:00"
    for name in ('"pk"', '"campaign_id"', '"user_id"', '"token"'):
        assert name not in json.dumps(data)
    for name in ('"created_at"', '"saved_at"', '"opened_at"', '"sent_at"', '"uploaded_at"'):
        assert name not in json.dumps(timeless)
    assert data["memberships"] == [
        {"username": "defender", "role": "player", "player": "defenders"},
        {"username": "gm", "role": "gm", "player": None},
        {"username": "raider", "role": "player", "player": "raiders"},
    ]
    assert data["users"][1] == {"username": "gm", "first_name": "The Game Master", "last_name": ""}


def test_the_same_campaign_exports_the_same_bytes_after_other_rows(
    run, battle_campaign, wipe, skirmish
):
    first = _export(run, "skirmish", "--without-times")  # made again: at other moments
    wipe()
    run("generate_campaign", "--seed", "99", "--slug", "noise")  # moves every id sequence on
    skirmish()
    assert _export(run, "skirmish", "--without-times") == first


def test_import_into_an_empty_database_gives_the_same_export(run, battle_campaign, wipe, tmp_path):
    battle_campaign.memberships.create(
        user=get_user_model().objects.create_user("ann", first_name="Ann"), role="gm"
    )
    first = _export(run, "skirmish")
    wipe()
    assert _import(run, tmp_path, first) == "skirmish"
    assert _export(run, "skirmish") == first
    ann = get_user_model().objects.get(username="ann")
    assert ann.first_name == "Ann" and not ann.has_usable_password()
    assert Membership.objects.get().role == "gm"


def test_an_imported_campaign_plays_on_exactly_like_the_original(
    run, battle_campaign, wipe, tmp_path, results_file
):
    """Mid-turn (battles pending, state carried): finishing the turn after an import gives
    what finishing it in the original database gives."""
    exported = _export(run, "skirmish")
    results = results_file(list(Battle.objects.filter(status="pending")))
    run("resolve_turn", "skirmish", "--battle-results", results)
    run("resolve_turn", "skirmish", "--seed", "3")
    original = _export(run, "skirmish", "--without-times")  # played on at other moments
    wipe()
    _import(run, tmp_path, exported)
    run("resolve_turn", "skirmish", "--battle-results", results)
    run("resolve_turn", "skirmish", "--seed", "3")
    assert _export(run, "skirmish", "--without-times") == original
    assert "OK" in run("replay_turn", "skirmish", "1").out


def test_an_existing_slug_is_refused(run, battle_campaign, tmp_path):
    with pytest.raises(CommandError, match="A campaign with the slug 'skirmish' already exists"):
        _import(run, tmp_path, _export(run, "skirmish"))
    assert Campaign.objects.count() == 1


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format="other"), "This is not a campaign export"),
        (lambda d: d.update(version=7), "Unsupported export version 7"),
        (lambda d: d.pop("turns"), "Malformed export: missing 'turns'"),
        (lambda d: d["state"].update(forces=7), r"Malformed export: state.forces: expected a"),
        (lambda d: d["turns"][0].update(status="lost"), "'lost' is not a turn status"),
        (
            lambda d: d["memberships"].append({"username": "x", "role": "gm", "player": "zz"}),
            "unknown player 'zz'",
        ),
        (
            lambda d: d["battles"][0].update(turn=9),
            "battle t1-b1 belongs to turn 9, which the export does not have",
        ),
        (lambda d: d.update(turns=[]), "the campaign has no turn"),
        (lambda d: d["campaign"].update(slug="a b"), "'a b' is not a valid slug"),
    ],
)
def test_malformed_exports_are_refused_and_nothing_is_created(
    battle_campaign, wipe, change, message
):
    data = campaign_export(campaign=battle_campaign)
    wipe()
    change(data)
    with pytest.raises(ServiceError, match=message):
        campaign_import(data=data)
    assert not Campaign.objects.exists() and not Side.objects.exists()
    assert not Turn.objects.exists() and not Orders.objects.exists()
    assert not TurnResolution.objects.exists() and not Battle.objects.exists()
    assert not get_user_model().objects.exists()


def test_unreadable_files(run, db, tmp_path):
    with pytest.raises(CommandError, match="Cannot read the export file"):
        run("import_campaign", str(tmp_path / "nothing.json"))
    (tmp_path / "x.json").write_text("[1", encoding="utf-8")
    with pytest.raises(CommandError, match="The export file .* is not valid JSON"):
        run("import_campaign", str(tmp_path / "x.json"))
    (tmp_path / "x.json").write_text("[1]", encoding="utf-8")
    with pytest.raises(CommandError, match="This is not a campaign export"):
        run("import_campaign", str(tmp_path / "x.json"))


def test_export_of_an_unknown_campaign(run, db):
    with pytest.raises(CommandError, match="Unknown campaign 'nope'."):
        run("export_campaign", "nope")
