"""Export → import → export of a campaign mid-game loses nothing (issue 12, defect 7).

The campaign (a generated one, two players, fog of war): turn 1 resolved after a battle whose
result was entered, disputed and settled by the GM, with a photo; turn 2 waiting for a
battle whose entered result is disputed, with a report and a photo; sightings of enemy
forces (ghosts), an invitation, the notification log with a notice read.

"Byte-identical" under the same slug: the import into a database where the campaign, its
photo files and its users are gone exports the same bytes (the .zip too). Under another
slug the document is the same but for `campaign.slug`, the one thing the import was given:
every link it holds is relative to the campaign and the seed hashes are salted with the
campaign's `seed_salt`, which travels. The replay check passes after either.
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
import zlib
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.files.uploadedfile import SimpleUploadedFile

from battles.models import Battle, BattleAudit, BattlePhoto
from battles.services import (
    battle_photo_add,
    battle_result_dispute,
    battle_result_enter,
    battle_result_override,
)
from campaign.errors import ServiceError
from campaign.exchange import archive
from campaign.exchange.archive import archive_read, archive_write
from campaign.exchange.export import campaign_export, export_json
from campaign.exchange.importing import campaign_import
from campaign.exchange.replay import turn_replay
from campaign.models import Campaign, Invitation, Membership, Sighting, Turn
from campaign.selectors import turn_current
from campaign.setup.invitations import invitation_create, membership_add
from campaign.setup.services import campaign_delete
from campaign.turns.services import turn_close, turn_resolve, turn_resolve_after_battles
from notifications.models import Notification
from notifications.services import notification_read, notify_battle, notify_turn_resolved
from tests.battles.conftest import version

pytestmark = pytest.mark.django_db

STALEMATE = {"outcomes": {"a": "stalemate", "b": "stalemate"}, "units": [], "individuals": []}


def png(colour: int) -> bytes:
    """A real 1×1 PNG of one grey level."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body)
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    pixels = zlib.compress(bytes([0, colour]))
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9"


def _players_of(battle: Battle, by_side: dict[str, Any]) -> tuple[Any, Any]:
    """The users who fought the battle: side "a"'s, then side "b"'s."""
    a, b = (s["side"] for s in battle.pack["sides"])
    return by_side[a], by_side[b]


@pytest.fixture
def mid_game(settings, tmp_path, make_campaign, submit_orders) -> Campaign:
    settings.MEDIA_ROOT = tmp_path / "media"
    campaign = make_campaign(forces=8, players=2, width=6, height=6, seed=1, slug="mid")
    campaign.fog_of_war = True
    campaign.save()
    User = get_user_model()
    gm = User.objects.create_user("gail", email="gail@example.com", first_name="Gail")
    membership_add(campaign=campaign, user=gm, role=Membership.Role.GM)
    by_side = {}
    for name, player in zip(("ann", "bob"), campaign.players.order_by("position"), strict=True):
        user = User.objects.create_user(name, email=f"{name}@example.com", first_name=name.title())
        membership_add(campaign=campaign, user=user, role=Membership.Role.PLAYER, player=player)
        by_side[player.side.key] = user
    invitation_create(campaign=campaign, role=Membership.Role.OBSERVER, created_by=gm, max_uses=3)

    # turn 1: a result entered, disputed, settled by the GM; Phases 4–8
    submit_orders(campaign, seed=1, user=by_side[campaign.players.first().side.key])
    turn = turn_close(turn=turn_current(campaign=campaign), seed=1)
    turn_resolve(turn_id=turn.pk)
    battle = Battle.objects.get(campaign=campaign, turn=turn)
    side_a, side_b = _players_of(battle, by_side)
    battle_result_enter(
        campaign=campaign, battle=battle, version=version(battle), user=side_a, data=STALEMATE
    )
    battle_photo_add(
        campaign=campaign,
        battle=battle,
        user=side_a,
        file=SimpleUploadedFile("table.png", png(40), content_type="image/png"),
        caption="the ford at dawn",
    )
    battle_result_dispute(
        campaign=campaign,
        battle=battle,
        version=version(battle),
        user=side_b,
        note="we held the ford",
    )
    battle_result_override(
        campaign=campaign,
        battle=battle,
        version=version(battle),
        user=gm,
        note="a stalemate, as agreed",
        data=STALEMATE,
    )
    turn_resolve_after_battles(turn_id=turn.pk)
    notify_turn_resolved(turn_id=turn.pk)

    # turn 2: its battle's result disputed, the turn waits
    submit_orders(campaign, seed=101)
    turn = turn_close(turn=turn_current(campaign=campaign), seed=1)
    turn_resolve(turn_id=turn.pk)
    battle = Battle.objects.get(campaign=campaign, turn=turn)
    side_a, side_b = _players_of(battle, by_side)
    battle_result_enter(
        campaign=campaign,
        battle=battle,
        version=version(battle),
        user=side_a,
        data=STALEMATE,
        report_text="Rain all day; neither side would cross.",
    )
    for caption, content in (("from the hill", JPEG), ("", png(200))):
        battle_photo_add(
            campaign=campaign,
            battle=battle,
            user=side_b,
            file=SimpleUploadedFile("p", content, content_type="image/jpeg"),
            caption=caption,
        )
    battle_result_dispute(
        campaign=campaign,
        battle=battle,
        version=version(battle),
        user=side_b,
        note="two units missing",
    )
    notify_battle(battle_id=battle.pk)
    notification_read(notification=Notification.objects.filter(user=side_a).first())

    turn.refresh_from_db()
    assert turn.status == Turn.Status.BATTLES
    assert Sighting.objects.filter(campaign=campaign).exists()
    assert Notification.objects.filter(campaign=campaign, read_at__isnull=False).count() == 1
    assert mail.outbox  # the notices went out
    return Campaign.objects.get(pk=campaign.pk)  # its rules fields as the turns left them


def _zip(campaign: Campaign) -> bytes:
    out = io.BytesIO()
    archive_write(campaign=campaign, out=out)
    return out.getvalue()


def _import_zip(content: bytes, **kwargs: Any):
    data, photos = archive_read(io.BytesIO(content))
    return campaign_import(data=data, photos=photos, **kwargs)


def _replays(campaign: Campaign) -> None:
    for turn in campaign.turns.order_by("number"):
        report = turn_replay(turn=turn)
        assert report.ok, report.differences
        assert report.stages  # something was replayed


def _wipe(campaign: Campaign, django_capture_on_commit_callbacks) -> None:
    """The campaign, its photo files and its users gone: a fresh database for it."""
    names = set(campaign.memberships.values_list("user__username", flat=True))
    with django_capture_on_commit_callbacks(execute=True):
        campaign_delete(campaign=campaign)
    get_user_model().objects.filter(username__in=names).delete()


def test_the_export_holds_what_the_campaign_holds(mid_game):
    data = campaign_export(campaign=mid_game)
    first, second = sorted(data["battles"], key=lambda b: b["turn"])
    assert (first["entry"], first["dispute_note"]) == ("overridden", "we held the ford")
    assert (second["entry"], second["dispute_note"]) == ("disputed", "two units missing")
    assert second["report_text"] == "Rain all day; neither side would cross."
    assert second["entered_by"] in {"ann", "bob"} and second["entered_at"]
    assert [a["action"] for a in first["audit"]] == [
        "entered",
        "photo-added",
        "disputed",
        "overridden",
    ]
    assert first["audit"][1]["data"] == {"photo": 1, "caption": "the ford at dawn"}
    assert [a["data"]["photo"] for a in second["audit"] if a["action"] == "photo-added"] == [1, 2]
    assert [p["ext"] for p in second["photos"]] == ["jpg", "png"]
    assert all(len(p["sha256"]) == 64 for p in first["photos"] + second["photos"])
    assert data["sightings"] and data["invitations"][0]["max_uses"] == 3
    assert "token" not in data["invitations"][0]
    notices = data["notifications"]
    assert {n["kind"] for n in notices} == {"turn-resolved", "battle"}
    assert all("path" in n and "url" not in n for n in notices)  # links within the campaign
    assert sum(n["read_at"] is not None for n in notices) == 1
    assert {u["username"] for u in data["users"]} == {"ann", "bob", "gail"}
    assert data["campaign"]["seed_salt"] == "mid"


def test_same_slug_into_a_fresh_database_exports_the_same_bytes(
    mid_game, django_capture_on_commit_callbacks
):
    document = export_json(campaign_export(campaign=mid_game))
    content = _zip(mid_game)
    photo_files = {p.file.name for p in BattlePhoto.objects.filter(battle__campaign=mid_game)}
    _wipe(mid_game, django_capture_on_commit_callbacks)
    storage = BattlePhoto._meta.get_field("file").storage
    assert not any(storage.exists(name) for name in photo_files)
    sent = len(mail.outbox)

    done = _import_zip(content)

    assert len(mail.outbox) == sent  # importing sends nothing
    assert done.users_created == ["ann", "bob", "gail"] and done.notes == []
    campaign = done.campaign
    assert export_json(campaign_export(campaign=campaign)) == document
    assert _zip(campaign) == content
    _replays(campaign)
    disputed = Battle.objects.get(campaign=campaign, entry=Battle.Entry.DISPUTED)
    assert disputed.entered_by.username in {"ann", "bob"}
    assert disputed.dispute_note == "two units missing"
    assert [p.file.read() for p in BattlePhoto.objects.filter(battle=disputed).order_by("pk")] == [
        JPEG,
        png(200),
    ]
    assert BattleAudit.objects.filter(battle__campaign=campaign).count() == 8
    assert Invitation.objects.get(campaign=campaign).token  # a new link


def test_another_slug_beside_the_original(mid_game):
    document = campaign_export(campaign=mid_game)
    done = _import_zip(_zip(mid_game), slug="mid-copy")
    copy = done.campaign
    assert done.users_created == []  # the same database: its users are there
    again = campaign_export(campaign=copy)
    assert again["campaign"]["slug"] == "mid-copy"
    again["campaign"]["slug"] = document["campaign"]["slug"]
    assert export_json(again) == export_json(document)
    _replays(copy)
    _replays(mid_game)
    # the links of the copy's notices lead to the copy
    assert all(
        "/c/mid-copy/" in n.url for n in Notification.objects.filter(campaign=copy).exclude(url="")
    )
    # the original's photo files are untouched, the copy has its own
    originals = {p.file.name for p in BattlePhoto.objects.filter(battle__campaign=mid_game)}
    copies = {p.file.name for p in BattlePhoto.objects.filter(battle__campaign=copy)}
    assert len(copies) == len(originals) == 3 and not originals & copies


def test_another_slug_and_name_in_a_fresh_database(mid_game, django_capture_on_commit_callbacks):
    document = campaign_export(campaign=mid_game)
    content = _zip(mid_game)
    _wipe(mid_game, django_capture_on_commit_callbacks)
    copy = _import_zip(content, slug="elsewhere", name="Elsewhere").campaign
    again = campaign_export(campaign=copy)
    assert (again["campaign"]["slug"], again["campaign"]["name"]) == ("elsewhere", "Elsewhere")
    again["campaign"].update(slug="mid", name=document["campaign"]["name"])
    assert export_json(again) == export_json(document)
    _replays(copy)


def test_the_json_alone_restores_all_but_the_photo_files(mid_game):
    document = campaign_export(campaign=mid_game)
    done = campaign_import(data=json.loads(export_json(document)), slug="no-photos")
    assert len(done.notes) == 2 and "import the .zip export" in done.notes[0]
    assert not BattlePhoto.objects.filter(battle__campaign=done.campaign).exists()
    again = campaign_export(campaign=done.campaign)
    for battle in again["battles"] + document["battles"]:
        battle.pop("photos")
        for a in battle["audit"]:
            if a["action"] == "photo-added":
                a["data"].pop("photo")  # no photo to point to
    again["campaign"]["slug"] = "mid"
    assert export_json(again) == export_json(document)
    _replays(done.campaign)


def test_a_version_1_export_replays_under_another_slug(mid_game):
    """Before version 2 the salt was the slug the export carries."""
    data = campaign_export(campaign=mid_game)
    data["version"] = 1
    del data["campaign"]["seed_salt"]
    copy = campaign_import(data=data, slug="old-copy").campaign
    assert copy.seed_salt == "mid"
    _replays(copy)


def test_the_archive_download_is_the_gms(mid_game, client):
    from django.urls import reverse

    url = reverse("campaign:export-archive", args=[mid_game.slug])
    client.force_login(get_user_model().objects.get(username="ann"))
    assert client.get(url).status_code == 403
    client.force_login(get_user_model().objects.get(username="gail"))
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="mid-full.zip"'
    assert b"".join(response.streaming_content) == _zip(mid_game)


# --- a bad archive is refused, and leaves nothing behind -------------------------------------


def _rebuilt(content: bytes, change) -> bytes:
    """The archive with its members changed: `change(members)` on name → bytes."""
    with zipfile.ZipFile(io.BytesIO(content)) as z:
        members = {i.filename: z.read(i) for i in z.infolist()}
    change(members)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return out.getvalue()


def _photo(members: dict[str, bytes]) -> str:
    return next(n for n in sorted(members) if n.startswith("photos/"))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda m: m.update({"../escape.png": b"x"}), "which a campaign export never has"),
        (lambda m: m.update({"photos/../../x.png": b"x"}), "which a campaign export never has"),
        (lambda m: m.update({"notes.txt": b"x"}), "which a campaign export never has"),
        (lambda m: m.update({"photos/" + "0" * 64 + ".png": png(1)}), "does not reference"),
        (lambda m: m.pop(_photo(m)), "lacks the photo file"),
        (lambda m: m.update({_photo(m): m[_photo(m)] + b"!"}), "does not match its checksum"),
        (lambda m: m.pop("export.json"), "holds no export.json"),
        (lambda m: m.update({"export.json": b"{"}), "is not valid JSON"),
    ],
)
def test_a_bad_archive_is_refused(
    mid_game, django_capture_on_commit_callbacks, tmp_path, change, message
):
    content = _rebuilt(_zip(mid_game), change)
    _wipe(mid_game, django_capture_on_commit_callbacks)
    assert not _files(tmp_path)
    with pytest.raises(ServiceError, match=message):
        _import_zip(content)
    assert not Campaign.objects.exists() and not BattlePhoto.objects.exists()
    assert not _files(tmp_path)


def _files(tmp_path) -> list:
    return [p for p in (tmp_path / "media").rglob("*") if p.is_file()]


def test_an_oversized_photo_and_not_a_zip_are_refused(mid_game, monkeypatch):
    content = _zip(mid_game)
    monkeypatch.setattr(archive, "MAX_PHOTO_BYTES", 50)
    with pytest.raises(ServiceError, match=r"photos/.*\.(jpg|png) is larger than 50 bytes"):
        _import_zip(content, slug="big")
    with pytest.raises(ServiceError, match="not a .zip file"):
        _import_zip(b"PK\x03\x04 but no archive")
    assert Campaign.objects.count() == 1


def test_a_failed_import_removes_the_photo_files_it_wrote(mid_game, tmp_path):
    """The photos are restored before the notification log: a bad notice fails the import,
    and the files already written go."""
    data, photos = archive_read(io.BytesIO(_zip(mid_game)))
    data["notifications"][-1]["kind"] = "telegram"
    with pytest.raises(ServiceError, match="'telegram' is not a notification kind"):
        campaign_import(data=data, photos=photos, slug="broken")
    assert not Campaign.objects.filter(slug="broken").exists()
    assert len(_files(tmp_path)) == 3  # the original's
    assert not any("broken" in str(p) for p in _files(tmp_path))


def test_a_campaign_in_set_up_keeps_its_empty_side_and_ready_rosters(make_campaign):
    campaign = make_campaign(forces=4, players=2, slug="early")
    campaign.setup_open = True
    campaign.save()
    campaign.sides.create(key="late", name="The Latecomers")
    campaign.players.filter(position=0).update(roster_ready=True)
    document = export_json(campaign_export(campaign=campaign))
    assert '"roster_ready": [\n  "p1"\n ]' in document
    campaign_delete(campaign=campaign)
    copy = campaign_import(data=json.loads(document)).campaign
    assert copy.sides.get(key="late").name == "The Latecomers" and copy.setup_open
    assert export_json(campaign_export(campaign=copy)) == document
