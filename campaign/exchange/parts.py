"""What a campaign export holds besides the campaign's own tables, and the small helpers every
part of the export and the import shares: moments, users, turns.

The notification log belongs to a campaign but lives in an app above the exchange in the
layers (architecture.md), which the exchange cannot import. So that app registers its part
of the document here when it is ready (`part_register`): under its own key, how it writes its
rows and how it restores them. The export and the import go through every registered part.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from campaign.errors import ServiceError
from campaign.models import Campaign, Turn


@dataclass(frozen=True)
class Written:
    """A part's rows (sorted, JSON data) and the usernames they name, which the export lists
    under "users" so that the import can create the missing ones first."""

    rows: list[dict[str, Any]]
    users: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Restore:
    """What a part's import is given: the new campaign, its rows in the document, the users
    by username and the new turns by number."""

    campaign: Campaign
    rows: list[Any]
    users: Mapping[str, Any]
    turns: Mapping[int, Turn]


@dataclass(frozen=True)
class Part:
    key: str  # the document's top-level key
    write: Callable[[Campaign, bool], Written]  # (campaign, with its moments)
    restore: Callable[[Restore], None]


PARTS: dict[str, Part] = {}


def part_register(part: Part) -> None:
    PARTS[part.key] = part


# --- moments ---------------------------------------------------------------------------------


def moment(value: datetime | None) -> str | None:
    """A moment as the export writes it: ISO 8601 in UTC, to the microsecond."""
    return value.astimezone(UTC).isoformat() if value else None


def moments(times: bool, **values: datetime | None) -> dict[str, str | None]:
    """The moments of a row, or none at all for an export without its moments."""
    return {k: moment(v) for k, v in values.items()} if times else {}


def moment_read(value: Any, what: str) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ServiceError(f"Malformed export: {what} is not a moment ({value!r}).")
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise ServiceError(f"Malformed export: {what} is not a moment ({value!r}).") from None
    if parsed.tzinfo is None:
        raise ServiceError(f"Malformed export: {what} has no time zone ({value!r}).")
    return parsed


def moments_restore(model: Any, objs: list[Any], rows: list[Any], *names: str) -> None:
    """Put back the moments the rows carry on rows just created. `bulk_create` stamps
    `auto_now` and `auto_now_add` fields with the present; `bulk_update` writes what it is
    given. A row without a moment (an export without its moments) keeps the present."""
    present = [n for n in names if any(n in row for row in rows)]
    if not objs or not present:
        return
    for obj, row in zip(objs, rows, strict=True):
        for name in present:
            if name in row:
                setattr(obj, name, moment_read(row[name], name))
    model.objects.bulk_update(objs, present)


# --- references ------------------------------------------------------------------------------


def username(user: Any) -> str | None:
    return user.get_username() if user is not None else None


def user_of(users: Mapping[str, Any], name: Any, what: str) -> Any:
    """The user a row names (None stays None: a user deleted since)."""
    if name is None:
        return None
    if name not in users:
        raise ServiceError(
            f"Malformed export: {what} names the user {name!r}, not listed in users."
        )
    return users[name]


def turn_of(turns: Mapping[int, Turn], number: Any, what: str) -> Turn:
    if number not in turns:
        raise ServiceError(
            f"Malformed export: {what} belongs to turn {number!r}, which the export does not have."
        )
    return turns[number]


def choice(choices: Any, value: Any, what: str) -> str:
    """`value` if it is one of the model choices' values."""
    if value not in choices.values:
        raise ServiceError(
            f"Malformed export: {value!r} is not a {what} ({', '.join(choices.values)})."
        )
    return str(value)
