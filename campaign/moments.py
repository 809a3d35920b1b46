"""A moment as its reader reads it: on his clock, with the zone named, in his language's date
format; and the reader himself (his language and time zone) for what is written for him away
from his request (an email, a notice built by a task).

    moment(turn.deadline)          →  "7 Dec 2026, 18:40 CET"     (English)
                                       "07/12/2026 18:40 CET"      (Italian)
    moment(turn.deadline, "long")  →  "Monday 7 December 2026, 18:40 CET"

The zone is the current one: the reader's, which `accounts.middleware.AccountReading`
activates on every request of a logged-in user, and `reading_as` around what is written for
someone else. The formats are the languages' own (Django's, the English ones made English
rather than American in config/formats/en). Templates use the `moment` filter
(`{% load moments %}`), which is this function.

The reader's language and zone live on `accounts.Profile`; this module reads them through the
ORM (`profile__language`), so that the campaign's packages never import accounts."""

from __future__ import annotations

import functools
import zoneinfo
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime, tzinfo
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth.models import User
from django.utils import dateformat, formats, timezone, translation
from django.utils.translation import gettext_lazy

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

DEFAULT_ZONE = "UTC"

STYLES = {"short": "SHORT_DATETIME_FORMAT", "long": "DATETIME_FORMAT"}


def zone_of(name: str | None) -> tzinfo:
    """The zone named; the current one for no name; UTC for a name the machine lacks."""
    if not name:
        return timezone.get_current_timezone()
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return UTC


def zone_valid(name: str) -> bool:
    """Whether `name` is a time zone of the IANA database this machine has."""
    if not name or name != name.strip():
        return False
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return False
    return True


def moment(value: datetime | None, style: str = "short") -> str:
    """`value` on the current zone's clock, in the active language's format ("short": date
    and time; "long": with the weekday and the month's name), followed by the zone's
    abbreviation at that moment (CET or CEST for Europe/Rome; "+03" where the zone has none)."""
    if not value:
        return ""
    if timezone.is_naive(value):
        value = timezone.make_aware(value, UTC)
    local = timezone.localtime(value)
    text = formats.date_format(local, STYLES.get(style, STYLES["short"]))
    return f"{text} {dateformat.format(local, 'T')}"


# --- the reader ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reading:
    """The language and time zone a user reads in; `chosen`: his own (he has a profile), not
    the site's defaults."""

    language: str
    zone: str
    chosen: bool = True


DEFAULT_READING = Reading(settings.LANGUAGE_CODE, DEFAULT_ZONE, chosen=False)


def _reading(language: str | None, zone: str | None) -> Reading:
    languages = dict(settings.LANGUAGES)
    return Reading(
        language if language in languages else settings.LANGUAGE_CODE,
        zone if zone and zone_valid(zone) else DEFAULT_ZONE,
    )


def readings_of(user_ids: Iterable[int]) -> dict[int, Reading]:
    """User id → his reading, in one query (a user with no profile reads the site's
    defaults)."""
    ids = list(user_ids)
    rows = User.objects.filter(pk__in=ids).values_list(
        "pk", "profile__language", "profile__time_zone"
    )
    found = {pk: _reading(language, zone) for pk, language, zone in rows if language}
    return {pk: found.get(pk, DEFAULT_READING) for pk in ids}


def reading_of(user: User) -> Reading:
    return readings_of([user.pk])[user.pk]


def reading_for_email(user: User | None) -> Reading:
    """Whom an email is for: his language and zone; for someone who never chose (no profile,
    no account), the language active now (the page that sends it) on UTC's clock."""
    reading = reading_of(user) if user is not None else DEFAULT_READING
    if reading.chosen:
        return reading
    return replace(reading, language=translation.get_language() or reading.language)


@contextmanager
def reading_as(reading: Reading) -> Iterator[Reading]:
    """Write for this reader: his language and his zone inside, the caller's back after
    (a task writing for many never carries one reader's language into the next's)."""
    with translation.override(reading.language), timezone.override(zone_of(reading.zone)):
        yield reading


# --- choosing a zone -------------------------------------------------------------------------

# the regions of the time-zone database, as the select's groups name them
REGIONS: dict[str, StrOrPromise] = {
    "Africa": gettext_lazy("Africa"),
    "America": gettext_lazy("America"),
    "Antarctica": gettext_lazy("Antarctica"),
    "Arctic": gettext_lazy("Arctic"),
    "Asia": gettext_lazy("Asia"),
    "Atlantic": gettext_lazy("Atlantic"),
    "Australia": gettext_lazy("Australia"),
    "Europe": gettext_lazy("Europe"),
    "Indian": gettext_lazy("Indian Ocean"),
    "Pacific": gettext_lazy("Pacific"),
}


def timezones() -> list[str]:
    """Every time zone name one may choose, sorted."""
    return sorted(zoneinfo.available_timezones())


@functools.cache
def timezone_choices() -> list[tuple[Any, Any]]:
    """UTC first, then one group per region of the time-zone database ("Europe": Rome,
    London …, by the part of the name before "/"), the regions and the places in each sorted;
    the old names without a region ("GMT", "US/Eastern" …) last, under "Other"."""
    groups: dict[str, list[tuple[str, str]]] = {}
    other: list[tuple[str, str]] = []
    for zone in timezones():
        if zone == "UTC":
            continue
        region, _slash, place = zone.partition("/")
        if region in REGIONS:
            groups.setdefault(region, []).append((zone, place.replace("_", " ")))
        else:
            other.append((zone, zone.replace("_", " ")))
    out: list[tuple[Any, Any]] = [("UTC", "UTC")]
    out += [(REGIONS[r], groups[r]) for r in sorted(groups)]
    if other:
        out.append((gettext_lazy("Other"), other))
    return out
