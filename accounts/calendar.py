"""A user's private calendar of deadlines: an iCalendar feed (RFC 5545) at a secret address,
with the deadline of every campaign he is a member of that is waiting for someone: an open
turn's orders (not while paused: its deadline will not fire) and the battle results of a turn
whose battles wait. A calendar application reads it again now and then, so a deadline the GM
moves moves there too. Each event keeps its UID while the deadline moves.

The address is the only key (calendar applications send no cookie): it holds a random token
the user can reset from his account page, which ends the old address."""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime, timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import CalendarFeed
from accounts.services import absolute_url
from campaign.models import Membership, Turn
from campaign.moments import reading_as, reading_of

# how long an event lasts in a calendar: a deadline is a moment, shown as a short slot
SLOT = timedelta(minutes=15)
LINE_OCTETS = 75  # RFC 5545 §3.1: longer content lines are folded


def calendar_token(*, user: User) -> str | None:
    return CalendarFeed.objects.filter(user=user).values_list("token", flat=True).first()


@transaction.atomic
def calendar_token_reset(*, user: User) -> str:
    """A new token for `user`'s feed (made at the first call): the old address ends."""
    token = secrets.token_urlsafe(32)
    CalendarFeed.objects.update_or_create(user=user, defaults={"token": token})
    return token


def calendar_user(*, token: str) -> User | None:
    feed = CalendarFeed.objects.filter(token=token).select_related("user").first()
    return feed.user if feed is not None and feed.user.is_active else None


def _text(value: str) -> str:
    """A TEXT value escaped (RFC 5545 §3.3.11)."""
    return (
        value.replace("\\", "\\\\")
        .replace(";", "\\;")
        .replace(",", "\\,")
        .replace("\r\n", "\\n")
        .replace("\n", "\\n")
    )


def _folded(line: str) -> Iterator[str]:
    """One content line, folded at 75 octets without splitting a character."""
    chunk, size = "", 0
    for ch in line:
        n = len(ch.encode())
        if size + n > LINE_OCTETS:
            yield chunk
            chunk, size = " ", 1
        chunk += ch
        size += n
    yield chunk


def _utc(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def _deadlines(user: User) -> Iterable[tuple[str, Turn, datetime, str]]:
    """(uid, turn, moment, summary) of each deadline waiting in `user`'s campaigns."""
    campaigns = Membership.objects.filter(user=user).values_list("campaign_id", flat=True)
    turns = (
        Turn.objects.filter(campaign_id__in=campaigns)
        .filter(status__in=(Turn.Status.OPEN, Turn.Status.BATTLES))
        .select_related("campaign")
        .order_by("campaign__name", "number")
    )
    for turn in turns:
        values = {"campaign": turn.campaign.name, "turn": turn.number}
        if turn.is_open and turn.deadline is not None and not turn.paused:
            summary = _("%(campaign)s: orders for turn %(turn)s are due") % values
            yield f"turn-{turn.pk}-orders", turn, turn.deadline, summary
        if turn.waiting_for_battles and turn.battles_deadline is not None:
            summary = _("%(campaign)s: battle results of turn %(turn)s are due") % values
            yield f"turn-{turn.pk}-battles", turn, turn.battles_deadline, summary


def calendar_ics(*, user: User) -> str:
    """`user`'s feed, in his language."""
    now = _utc(timezone.now())
    host = absolute_url("/").split("//", 1)[-1].strip("/") or "fwcampaign"
    with reading_as(reading_of(user)):
        name = _("Campaign deadlines")
        lines = [
            "BEGIN:VCALENDAR",
            "VERSION:2.0",
            "PRODID:-//Fantasy Warriors Campaign//Deadlines//EN",
            "CALSCALE:GREGORIAN",
            f"X-WR-CALNAME:{_text(name)}",
        ]
        for uid, turn, moment, summary in _deadlines(user):
            url = absolute_url(reverse("campaign:detail", args=[turn.campaign.slug]))
            lines += [
                "BEGIN:VEVENT",
                f"UID:{uid}@{host}",
                f"DTSTAMP:{now}",
                f"DTSTART:{_utc(moment)}",
                f"DTEND:{_utc(moment + SLOT)}",
                f"SUMMARY:{_text(summary)}",
                f"URL:{url}",
                f"DESCRIPTION:{_text(url)}",
                "END:VEVENT",
            ]
        lines.append("END:VCALENDAR")
    return "".join(f"{part}\r\n" for line in lines for part in _folded(line))
