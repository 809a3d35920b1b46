"""The export with its photos: a .zip holding `export.json` (the full export, as the JSON
download has it) and each photo file it references as `photos/<sha256>.<ext>`.

Written the same way every time (members in name order, fixed dates and modes), so the same
campaign gives the same bytes. Read with care, as anything uploaded: only those members,
each once, each at most its size limit (counted as it is read, not as the archive
declares), every photo's content of its type and matching its checksum, every photo the
document references there and nothing else. Anything else is refused with a message.
"""

from __future__ import annotations

import hashlib
import json
import re
import zipfile
import zlib
from typing import IO, Any

from battles.models import MAX_PHOTO_BYTES, BattlePhoto, photo_type
from campaign.errors import ServiceError
from campaign.exchange.export import campaign_export, export_json
from campaign.exchange.records import PhotoFiles, photo_ext, photo_member, photo_members
from campaign.models import Campaign

DOCUMENT = "export.json"
MAX_DOCUMENT_BYTES = 512 * 1024 * 1024
MAX_ARCHIVE_BYTES = 8 * 1024 * 1024 * 1024  # all members, uncompressed
PHOTO_MEMBER = re.compile(r"photos/[0-9a-f]{64}\.(jpg|png|gif|webp)")
CHANGED = "A photo changed while the campaign was exported: export it again."
_DATE = (1980, 1, 1, 0, 0, 0)  # the earliest a zip can say: no moment of the export's making


def archive_write(*, campaign: Campaign, out: IO[bytes], times: bool = True) -> dict[str, Any]:
    """Write the campaign's full export with its photo files to `out`; returns the export."""
    data = campaign_export(campaign=campaign, times=times)
    wanted = photo_members(data)
    found: dict[str, BattlePhoto] = {}
    for photo in BattlePhoto.objects.filter(battle__campaign=campaign).order_by("pk"):
        got = _stored(photo)
        if got is not None:
            found.setdefault(got[0], photo)
    if wanted - set(found):
        raise ServiceError(CHANGED)
    with zipfile.ZipFile(out, "w") as archive:
        _member(archive, DOCUMENT, export_json(data).encode(), zipfile.ZIP_DEFLATED)
        for member in sorted(wanted):
            got = _stored(found[member])
            if got is None or got[0] != member:
                raise ServiceError(CHANGED)
            _member(archive, member, got[1], zipfile.ZIP_STORED)  # images are compressed
    return data


def _stored(photo: BattlePhoto) -> tuple[str, bytes] | None:
    """A photo's file: its member name in the archive and its content (None: it is gone)."""
    if not photo.file.name:
        return None
    try:
        with photo.file.storage.open(photo.file.name, "rb") as f:
            content = bytes(f.read())
    except OSError:
        return None
    return photo_member(hashlib.sha256(content).hexdigest(), photo_ext(photo)), content


def _member(archive: zipfile.ZipFile, name: str, content: bytes, method: int) -> None:
    info = zipfile.ZipInfo(name, date_time=_DATE)
    info.compress_type = method
    info.external_attr = 0o644 << 16
    archive.writestr(info, content)


# --- reading ---------------------------------------------------------------------------------


def archive_read(file: IO[bytes]) -> tuple[Any, PhotoFiles]:
    """The export in an archive and its photo files, once the archive is checked: what
    `campaign_import` takes (`data`, `photos`). The photos are read (and checked against
    their checksums) as the import asks for them."""
    try:
        archive = zipfile.ZipFile(file)
    except (zipfile.BadZipFile, OSError, ValueError):
        raise ServiceError("This is not a campaign export archive (not a .zip file).") from None
    members = _members_check(archive)
    if DOCUMENT not in members:
        raise ServiceError(f"The archive holds no {DOCUMENT}: it is not a campaign export.")
    raw = _read(archive, members[DOCUMENT], MAX_DOCUMENT_BYTES)
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise ServiceError(f"{DOCUMENT} in the archive is not valid JSON: {e}") from None
    try:
        wanted = photo_members(data) if isinstance(data, dict) else set()
    except (TypeError, KeyError, AttributeError):
        raise ServiceError(
            f"Malformed export: the photos of {DOCUMENT} are not readable."
        ) from None
    photos = set(members) - {DOCUMENT}
    if wanted - photos:
        missing = sorted(wanted - photos)
        raise ServiceError(f"The archive lacks the photo file {missing[0]} its export references.")
    if photos - wanted:
        extra = sorted(photos - wanted)
        raise ServiceError(f"The archive holds {extra[0]}, which its export does not reference.")

    def photo(member: str) -> bytes:
        content = _read(archive, members[member], MAX_PHOTO_BYTES)
        if hashlib.sha256(content).hexdigest() != member.split("/")[1].split(".")[0]:
            raise ServiceError(f"The archive's {member} does not match its checksum.")
        if photo_type(content[:16]) != member.rsplit(".", 1)[1]:
            raise ServiceError(f"The archive's {member} is not the image its name says.")
        return content

    return data, photo


def _members_check(archive: zipfile.ZipFile) -> dict[str, zipfile.ZipInfo]:
    """The archive's members by name, if every one is expected: the document, photos named by
    their checksum, each once, none encrypted, their sizes within bounds."""
    members: dict[str, zipfile.ZipInfo] = {}
    total = 0
    for info in archive.infolist():
        name = info.filename
        if name != DOCUMENT and not PHOTO_MEMBER.fullmatch(name):
            raise ServiceError(f"The archive holds {name!r}, which a campaign export never has.")
        if name in members:
            raise ServiceError(f"The archive holds {name} twice.")
        if info.flag_bits & 0x1:
            raise ServiceError(f"The archive's {name} is encrypted.")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise ServiceError(
                f"The archive's {name} is compressed in a way this site does not read."
            )
        limit = MAX_DOCUMENT_BYTES if name == DOCUMENT else MAX_PHOTO_BYTES
        if info.file_size > limit:
            raise ServiceError(f"The archive's {name} is larger than {_size(limit)}.")
        total += info.file_size
        members[name] = info
    if total > MAX_ARCHIVE_BYTES:
        raise ServiceError("The archive is too large to import.")
    return members


def _read(archive: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int) -> bytes:
    """A member's content, read no further than `limit` whatever the archive declares."""
    try:
        with archive.open(info) as f:
            content = f.read(limit + 1)
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, ValueError) as e:
        raise ServiceError(f"The archive's {info.filename} cannot be read: {e}") from None
    if len(content) > limit:
        raise ServiceError(f"The archive's {info.filename} is larger than {_size(limit)}.")
    return content


def _size(n: int) -> str:
    return f"{n // (1024 * 1024)} MB" if n >= 1024 * 1024 else f"{n} bytes"
