"""The notification log's part of a campaign export (`campaign.exchange.parts`), registered
when the app is ready (`notifications.apps`).

Every row goes: who it was for, the turn, kind and key that make it once, what it said, its
status and error, and when it was created, sent and read. A link to one of the campaign's
own pages is written relative to the campaign (`path`), and the import builds it again on
this site's address and the campaign's slug, so that it still leads somewhere under another
slug or on another site; any other link is kept as it was (`url`). The subject and body are
kept as they were sent.

Importing writes the log only: nothing is sent. A row still pending or failed stays so; as
in the database it came from, the same notice is sent only when the turn asks for it again.
"""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse

from campaign.exchange.parts import (
    Part,
    Restore,
    Written,
    choice,
    moment_read,
    moments,
    moments_restore,
    turn_of,
    user_of,
)
from campaign.models import Campaign
from notifications.models import Kind, Notification

KEY = "notifications"


def _root(slug: str) -> str:
    """The absolute address of a campaign's pages, as the notices link them."""
    return settings.SITE_URL.rstrip("/") + reverse("campaign:detail", args=[slug])


def _write(campaign: Campaign, times: bool) -> Written:
    root = _root(campaign.slug)
    rows = []
    users: set[str] = set()
    for n in Notification.objects.filter(campaign=campaign).select_related("user", "turn"):
        users.add(n.user.get_username())
        link = {"path": n.url[len(root) :]} if n.url.startswith(root) else {"url": n.url}
        rows.append(
            {
                "user": n.user.get_username(),
                "turn": n.turn.number,
                "kind": n.kind,
                "key": n.key,
                "subject": n.subject,
                # the title's code and values, when it has them (an export before had none)
                **({"params": n.params} if n.params else {}),
                "body": n.body,
                **link,
                "status": n.status,
                "error": n.error,
                **moments(times, created_at=n.created_at, sent_at=n.sent_at, read_at=n.read_at),
            }
        )
    rows.sort(key=lambda r: (r["turn"], r["kind"], r["key"], r["user"]))
    return Written(rows, users)


def _restore(r: Restore) -> None:
    root = _root(r.campaign.slug)
    made = [
        Notification(
            user=user_of(r.users, n["user"], "a notification"),
            campaign=r.campaign,
            turn=turn_of(r.turns, n["turn"], "a notification"),
            kind=choice(Kind, n["kind"], "notification kind"),
            key=str(n.get("key", "")),
            subject=str(n["subject"]),
            params=n["params"] if isinstance(n.get("params"), dict) else {},
            body=str(n["body"]),
            url=root + str(n["path"]) if "path" in n else str(n.get("url", "")),
            status=choice(Notification.Status, n["status"], "notification status"),
            error=str(n.get("error", "")),
            sent_at=moment_read(n.get("sent_at"), "a notification's sending"),
            read_at=moment_read(n.get("read_at"), "a notification's reading"),
        )
        for n in r.rows
    ]
    Notification.objects.bulk_create(made)
    moments_restore(Notification, made, r.rows, "created_at")


PART = Part(KEY, _write, _restore)
