"""The campaign's records beyond its rules state and turns, in the full export and back:
each battle's result entry (who entered and confirmed it, the dispute, the report), its
photos and its audit log; the sides' sightings of enemy forces (the ghosts of fog of war);
the invitations.

A photo is exported by reference: its file's SHA-256, type and size, its caption, who
uploaded it and when. The files themselves travel in the archive
(`campaign.exchange.archive`, member `photos/<sha256>.<ext>`), which the import checks
against these references. The audit log names a photo by its place among its battle's
photos (1, 2 …), never by a database id.

An invitation's token is the secret of a join link on one site: the export leaves it out,
and the import gives each invitation a new one (the GM shares the new link).
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Any

from django.core.files.base import ContentFile

from battles.models import PHOTO_TYPES, Battle, BattleAudit, BattlePhoto
from campaign.errors import ServiceError
from campaign.exchange.parts import (
    choice,
    moment,
    moments,
    moments_restore,
    user_of,
    username,
)
from campaign.models import Campaign, Invitation, Membership, Player, Side, Sighting

PHOTO_ACTION = "photo-added"  # the audit action whose data names a photo
TOKEN_BYTES = 24  # as campaign.setup.invitations makes them

# the bytes of a photo file named in the archive (None: the import was given no files)
PhotoFiles = Callable[[str], bytes] | None


def photo_member(sha256: str, ext: str) -> str:
    """The photo's file in the archive."""
    return f"photos/{sha256}.{ext}"


def photo_members(data: Mapping[str, Any]) -> set[str]:
    """Every photo file a document references."""
    return {
        photo_member(p["sha256"], p["ext"])
        for b in data.get("battles", [])
        for p in b.get("photos", [])
        if p.get("sha256")
    }


# --- battles: the entry, photos and audit log --------------------------------------------


def battles_extend(campaign: Campaign, battles: list[dict[str, Any]], times: bool) -> set[str]:
    """Add to each exported battle (`campaign.exchange.export`) its result entry, photos and
    audit log. Returns the usernames they name."""
    rows = {
        b.key: b
        for b in Battle.objects.filter(campaign=campaign).select_related(
            "entered_by", "confirmed_by"
        )
    }
    photos: dict[int, list[BattlePhoto]] = defaultdict(list)
    for p in (
        BattlePhoto.objects.filter(battle__campaign=campaign)
        .select_related("uploaded_by")
        .order_by("uploaded_at", "pk")
    ):
        photos[p.battle_id].append(p)
    audit: dict[int, list[BattleAudit]] = defaultdict(list)
    for a in BattleAudit.objects.filter(battle__campaign=campaign).select_related("user"):
        audit[a.battle_id].append(a)  # the model's order: oldest first
    users: set[str] = set()
    for out in battles:
        b = rows[out["key"]]
        places = {p.pk: i for i, p in enumerate(photos[b.pk], start=1)}
        out.update(
            {
                "entry": b.entry,
                "entered_by": username(b.entered_by),
                "confirmed_by": username(b.confirmed_by),
                "dispute_note": b.dispute_note,
                "report_text": b.report_text,
                "photos": [_photo_out(p, times) for p in photos[b.pk]],
                "audit": [_audit_out(a, places, times) for a in audit[b.pk]],
                **moments(times, resolved_at=b.resolved_at, entered_at=b.entered_at),
            }
        )
        users |= {u for u in (out["entered_by"], out["confirmed_by"]) if u}
        users |= {p["uploaded_by"] for p in out["photos"] if p["uploaded_by"]}
        users |= {a["user"] for a in out["audit"] if a["user"]}
    return users


def photo_ext(photo: BattlePhoto) -> str:
    name = photo.file.name or ""
    return name.rsplit(".", 1)[-1].lower() if "." in name else ""


def photo_digest(photo: BattlePhoto) -> tuple[str, int] | None:
    """The SHA-256 and size of a photo's file; None when the file is gone."""
    if not photo.file.name:
        return None
    digest = hashlib.sha256()
    size = 0
    try:
        with photo.file.storage.open(photo.file.name, "rb") as f:
            while chunk := f.read(1 << 20):
                digest.update(chunk)
                size += len(chunk)
    except OSError:
        return None
    return digest.hexdigest(), size


def _photo_out(photo: BattlePhoto, times: bool) -> dict[str, Any]:
    found = photo_digest(photo)
    sha256, size = found if found is not None else (None, None)
    return {
        "sha256": sha256,  # None: the file was missing when the campaign was exported
        "ext": photo_ext(photo),
        "size": size,
        "caption": photo.caption,
        "uploaded_by": username(photo.uploaded_by),
        **moments(times, uploaded_at=photo.uploaded_at),
    }


def _audit_out(a: BattleAudit, places: Mapping[int, int], times: bool) -> dict[str, Any]:
    data = a.data
    if a.action == PHOTO_ACTION and isinstance(data, dict) and "photo" in data:
        data = {**data, "photo": places.get(data["photo"])}  # its place, not its id
    return {
        "user": username(a.user),
        "action": a.action,
        "note": a.note,
        "data": data,
        **moments(times, created_at=a.created_at),
    }


def battle_entry_fields(b: Mapping[str, Any], users: Mapping[str, Any]) -> dict[str, Any]:
    """The Battle fields of an exported battle's result entry."""
    what = f"battle {b['key']}"
    return {
        "entry": choice(Battle.Entry, b.get("entry", Battle.Entry.NONE), "result entry"),
        "entered_by": user_of(users, b.get("entered_by"), what),
        "confirmed_by": user_of(users, b.get("confirmed_by"), what),
        "dispute_note": str(b.get("dispute_note", "")),
        "report_text": str(b.get("report_text", "")),
    }


def battles_records_restore(
    battles: Mapping[str, Battle],
    data: Mapping[str, Any],
    users: Mapping[str, Any],
    files: PhotoFiles,
    saved: list[str],
) -> list[str]:
    """Restore each battle's photos (their files from `files`, through the storage; the
    names written are added to `saved`) and audit log. Returns what could not be restored."""
    notes = []
    audits: list[BattleAudit] = []
    audit_rows: list[Any] = []
    for b in data.get("battles", []):
        battle = battles[b["key"]]
        places, skipped = _photos_restore(battle, b.get("photos", []), users, files, saved)
        if skipped:
            notes.append(
                f"battle {b['key']}: {skipped} photo(s) not restored ({skipped_why(files)})"
            )
        for a in b.get("audit", []):
            audits.append(_audit_in(battle, a, places, users))
            audit_rows.append(a)
    BattleAudit.objects.bulk_create(audits)
    moments_restore(BattleAudit, audits, audit_rows, "created_at")
    return notes


def skipped_why(files: PhotoFiles) -> str:
    if files is None:
        return "import the .zip export to restore photo files"
    return "their files were missing when the campaign was exported"


def _photos_restore(
    battle: Battle, rows: list[Any], users: Mapping[str, Any], files: PhotoFiles, saved: list[str]
) -> tuple[dict[int, int | None], int]:
    """The photos of one battle, in order; their places → the new photos' ids."""
    places: dict[int, int | None] = {}
    made: list[BattlePhoto] = []
    made_rows: list[Any] = []
    for i, p in enumerate(rows, start=1):
        places[i] = None
        if files is None or not p.get("sha256"):
            continue
        if p.get("ext") not in PHOTO_TYPES:
            raise ServiceError(
                f"Malformed export: battle {battle.key}: a photo of type {p.get('ext')!r}."
            )
        photo = BattlePhoto(
            battle=battle,
            caption=str(p.get("caption", ""))[:200],
            uploaded_by=user_of(users, p.get("uploaded_by"), f"a photo of battle {battle.key}"),
        )
        content = files(photo_member(p["sha256"], p["ext"]))
        photo.file.save(f"{uuid.uuid4().hex}.{p['ext']}", ContentFile(content), save=False)
        saved.append(str(photo.file.name))
        made.append(photo)
        made_rows.append(p)
        places[i] = len(made)  # for now its place among those made
    BattlePhoto.objects.bulk_create(made)  # in order: their ids follow it
    moments_restore(BattlePhoto, made, made_rows, "uploaded_at")
    ids = [p.pk for p in made]
    return {i: ids[n - 1] if n else None for i, n in places.items()}, len(rows) - len(made)


def _audit_in(
    battle: Battle, a: Mapping[str, Any], places: Mapping[int, int | None], users: Mapping[str, Any]
) -> BattleAudit:
    data = a.get("data")
    action = str(a["action"])
    if action == PHOTO_ACTION and isinstance(data, dict) and "photo" in data:
        data = {**data, "photo": places.get(data["photo"])}
    return BattleAudit(
        battle=battle,
        user=user_of(users, a.get("user"), f"the audit log of battle {battle.key}"),
        action=action,
        note=str(a.get("note", "")),
        data=data,
    )


# --- sightings and invitations ---------------------------------------------------------------


def sightings_write(campaign: Campaign) -> list[dict[str, Any]]:
    return [
        {
            "side": s.side_key,
            "force": s.force_key,
            "square": [s.x, s.y],
            "turn": s.turn_number,
            "status": s.status,
            "figures": s.figures,
        }
        for s in Sighting.objects.filter(campaign=campaign).order_by("side_key", "force_key")
    ]


def sightings_restore(campaign: Campaign, rows: list[Any]) -> None:
    Sighting.objects.bulk_create(
        Sighting(
            campaign=campaign,
            side_key=str(s["side"]),
            force_key=str(s["force"]),
            x=int(s["square"][0]),
            y=int(s["square"][1]),
            turn_number=int(s["turn"]),
            status=str(s.get("status", "")),
            figures=int(s.get("figures", 0)),
        )
        for s in rows
    )


def invitations_write(campaign: Campaign, times: bool) -> tuple[list[dict[str, Any]], set[str]]:
    invitations = list(
        Invitation.objects.filter(campaign=campaign)
        .select_related("player", "side", "created_by")
        .order_by("created_at", "pk")
    )
    rows = [
        {
            "role": i.role,
            "player": i.player.key if i.player else None,
            "side": i.side.key if i.side else None,
            "created_by": username(i.created_by),
            "expires_at": moment(i.expires_at),  # a setting, not a record: always there
            "max_uses": i.max_uses,
            "uses": i.uses,
            "revoked": i.revoked,
            **moments(times, created_at=i.created_at),
        }
        for i in invitations
    ]
    return rows, {i.created_by.get_username() for i in invitations if i.created_by}


def invitations_restore(
    campaign: Campaign,
    rows: list[Any],
    users: Mapping[str, Any],
    players: Mapping[str, Player],
    read: Callable[[Any, str], Any],
) -> None:
    sides = {s.key: s for s in Side.objects.filter(campaign=campaign)}
    made = [
        Invitation(
            campaign=campaign,
            token=secrets.token_urlsafe(TOKEN_BYTES),
            role=choice(Membership.Role, i["role"], "membership role"),
            player=_keyed(players, i.get("player"), "player"),
            side=_keyed(sides, i.get("side"), "side"),
            created_by=user_of(users, i.get("created_by"), "an invitation"),
            expires_at=read(i.get("expires_at"), "an invitation's expiry"),
            max_uses=int(i.get("max_uses", 1)),
            uses=int(i.get("uses", 0)),
            revoked=bool(i.get("revoked", False)),
        )
        for i in rows
    ]
    Invitation.objects.bulk_create(made)
    moments_restore(Invitation, made, rows, "created_at")


def _keyed(rows: Mapping[str, Any], key: Any, what: str) -> Any:
    if key is None:
        return None
    if key not in rows:
        raise ServiceError(f"Malformed export: an invitation names the unknown {what} {key!r}.")
    return rows[key]
