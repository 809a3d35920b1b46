"""`{% load moments %}`: a moment as people read it, always with its time zone.

    {{ turn.deadline|moment:turn.timezone }}   →  "3 Dec 2026, 18:00 CET"
    {{ invitation.expires_at|moment }}         →  the current time zone's (UTC by default)

The date and month follow the active language; the zone is its abbreviation at that moment
(CET or CEST for Europe/Rome), or its offset where the zone has no abbreviation ("+03").
"""

from __future__ import annotations

import zoneinfo
from datetime import UTC, datetime, tzinfo

from django import template
from django.template.defaultfilters import date as date_filter
from django.utils import timezone

register = template.Library()

FORMAT = "j M Y, H:i T"


def zone_of(name: str | None) -> tzinfo:
    """The zone named (the turn's), or the current one; UTC for a name the machine lacks."""
    if not name:
        return timezone.get_current_timezone()
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return UTC


@register.filter
def moment(value: datetime | None, zone: str | None = None) -> str:
    if not value:
        return ""
    if timezone.is_naive(value):
        value = timezone.make_aware(value, UTC)
    return date_filter(value.astimezone(zone_of(zone)), FORMAT)
