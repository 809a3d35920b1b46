"""The campaign's history of corrections in its export (`campaign.exchange.parts`): the
amendments, committed (each with the line of turns it replaced, `LineArchive`) or still
drafts (their preview: the draft branch, which the same line replays again), and the audit
log. A discarded draft is gone: it left nothing."""

from __future__ import annotations

from typing import Any

from campaign.errors import ServiceError
from campaign.exchange.parts import (
    Part,
    Restore,
    Written,
    choice,
    moment_read,
    moments,
    moments_restore,
    user_of,
    username,
)
from campaign.models import Amendment, AuditEntry, Campaign, LineArchive


def _amendments_write(campaign: Campaign, times: bool) -> Written:
    rows = []
    users: set[str] = set()
    archives = {a.amendment_id: a for a in LineArchive.objects.filter(campaign=campaign)}
    for a in Amendment.objects.filter(campaign=campaign).select_related("created_by", "decided_by"):
        archive = archives.get(a.pk)
        who = {"created_by": username(a.created_by), "decided_by": username(a.decided_by)}
        users |= {u for u in who.values() if u}
        rows.append(
            {
                "number": a.number,
                "turn": a.turn_number,
                "kind": a.kind,
                "target": a.target,
                "original": a.original,
                "amended": a.amended,
                "reason": a.reason,
                "status": a.status,
                "base": a.base,
                "digest": a.digest,
                "preview": a.preview,
                **who,
                **moments(times, created_at=a.created_at, decided_at=a.decided_at),
                "replaced": None
                if archive is None
                else {
                    "from_turn": archive.from_turn,
                    "data": archive.data,
                    **moments(times, created_at=archive.created_at),
                },
            }
        )
    rows.sort(key=lambda r: r["number"])
    return Written(rows, users)


def _amendments_restore(r: Restore) -> None:
    made = [
        Amendment(
            campaign=r.campaign,
            number=int(a["number"]),
            turn_number=int(a["turn"]),
            kind=choice(Amendment.Kind, a["kind"], "amendment kind"),
            target=str(a.get("target", "")),
            original=a.get("original"),
            amended=a.get("amended"),
            reason=str(a["reason"]),
            status=choice(Amendment.Status, a.get("status", "committed"), "amendment status"),
            base=str(a.get("base", "")),
            digest=str(a.get("digest", "")),
            preview=a.get("preview") or {},
            created_by=user_of(r.users, a.get("created_by"), f"amendment {a['number']}"),
            decided_by=user_of(r.users, a.get("decided_by"), f"amendment {a['number']}"),
            decided_at=moment_read(a.get("decided_at"), "an amendment's commit"),
        )
        for a in r.rows
    ]
    Amendment.objects.bulk_create(made)
    moments_restore(Amendment, made, r.rows, "created_at")
    replaced = [(m, a["replaced"]) for m, a in zip(made, r.rows, strict=True) if a.get("replaced")]
    archives = [
        LineArchive(campaign=r.campaign, amendment=m, from_turn=int(x["from_turn"]), data=x["data"])
        for m, x in replaced
    ]
    LineArchive.objects.bulk_create(archives)
    moments_restore(LineArchive, archives, [x for _m, x in replaced], "created_at")


def _audit_write(campaign: Campaign, times: bool) -> Written:
    rows: list[dict[str, Any]] = []
    users: set[str] = set()
    for e in (
        AuditEntry.objects.filter(campaign=campaign)
        .select_related("user", "amendment")
        .order_by("created_at", "pk")
    ):
        if e.user is not None:
            users.add(e.user.get_username())
        rows.append(
            {
                "action": e.action,
                "user": username(e.user),
                "turn": e.turn_number,
                "reason": e.reason,
                "changes": e.changes,
                "amendment": e.amendment.number if e.amendment else None,
                **moments(times, created_at=e.created_at),
            }
        )
    return Written(rows, users)


def _audit_restore(r: Restore) -> None:
    amendments = {a.number: a for a in Amendment.objects.filter(campaign=r.campaign)}
    made = []
    for e in r.rows:
        number = e.get("amendment")
        if number is not None and number not in amendments:
            raise ServiceError(
                f"Malformed export: an audit entry names amendment {number!r}, not exported."
            )
        made.append(
            AuditEntry(
                campaign=r.campaign,
                action=choice(AuditEntry.Action, e["action"], "audit action"),
                user=user_of(r.users, e.get("user"), "an audit entry"),
                turn_number=e.get("turn"),
                reason=str(e.get("reason", "")),
                changes=e.get("changes") or {},
                amendment=amendments.get(number) if number is not None else None,
            )
        )
    AuditEntry.objects.bulk_create(made)
    moments_restore(AuditEntry, made, r.rows, "created_at")


AMENDMENTS = Part("amendments", _amendments_write, _amendments_restore)
AUDIT = Part("audit_log", _audit_write, _audit_restore)
