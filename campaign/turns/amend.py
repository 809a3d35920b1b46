"""Amendments: the GM corrects an input of a resolved turn, or returns the campaign to the
start of one, previewing what follows before anything changes.

- `amendment_preview` replays the line from the amended turn into a draft branch
  (`campaign.turns.branch`) and keeps what it would change, turn by turn
  (`campaign.turns.branch_diff`), with the line it was made from. Nothing else is written.
- `amendment_commit` replays it again, checks that it gives what was previewed on the same
  line, and in one transaction replaces the line with the branch
  (`campaign.turns.amend_write`): the old line is kept as a `LineArchive`, the audit log
  gets an entry, and each player a notice of what changed for him.
- `amendment_discard` leaves everything as it was.

The campaign must be between turns: its current turn open for orders (or the campaign
ended). While a turn is being resolved or waits for its battles, amending would race it.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from battles.entry import battle_result_check
from battles.models import Battle
from battles.roster import battle_roster_get
from campaign import adapters
from campaign.errors import ServiceError
from campaign.models import Amendment, AuditEntry, Campaign, Membership, Turn
from campaign.text_input import text_clean
from campaign.turns import amend_write
from campaign.turns.branch import (
    TURN,
    Branch,
    BranchError,
    Change,
    Line,
    branch_replay,
    line_get,
)
from campaign.turns.branch_diff import branch_diff
from config.celery import enqueue_on_commit
from notifications import tasks as notices
from rules import FormatError, to_data, validate_orders

REASON_FIELD = "reason"


class AmendmentRefused(ServiceError):
    """The amendment cannot be made, previewed or committed now (the message says why)."""


def _require_gm(campaign: Campaign, user: User) -> None:
    if not Membership.objects.filter(
        campaign=campaign, user=user, role=Membership.Role.GM
    ).exists():
        raise AmendmentRefused(_("Only the game master can amend a turn."))


def _between_turns(campaign: Campaign, turns: list[Turn]) -> Turn | None:
    """The current turn, if the campaign is between turns; else a refusal."""
    if campaign.setup_open or not turns:
        raise AmendmentRefused(_("The campaign has not started: there is no turn to amend."))
    current = turns[-1]
    if current.is_open or (current.resolved and campaign.ended):
        return current
    raise AmendmentRefused(
        _(
            "Turn %(turn)s is %(status)s: amend a past turn once it is resolved and the next "
            "turn is open for orders."
        )
        % {"turn": current.number, "status": current.get_status_display().lower()}
    )


def _resolved_turn(turns: list[Turn], number: int) -> Turn:
    turn = next((t for t in turns if t.number == number), None)
    if turn is None or not turn.resolved:
        raise AmendmentRefused(
            _("Turn %(turn)s has not been resolved: only a resolved turn can be amended.")
            % {"turn": number}
        )
    return turn


def _reason(reason: str) -> str:
    reason = text_clean(reason, field=REASON_FIELD).strip()
    if not reason:
        raise ServiceError(
            {REASON_FIELD: [_("Say why: the reason goes to the audit log and to the players.")]}
        )
    return reason


def _original(
    campaign: Campaign, turn: Turn, line: Line, kind: str, target: str, data: Any
) -> tuple[Any, Any]:
    """The input as it was, and the amended one checked (as stored)."""
    if kind == Amendment.Kind.RESULT:
        battle = Battle.objects.filter(campaign=campaign, turn=turn, key=target).first()
        if battle is None or battle.result is None:
            raise AmendmentRefused(
                _("Turn %(turn)s has no battle %(battle)s with a result.")
                % {"turn": turn.number, "battle": target}
            )
        check = battle_result_check(roster=battle_roster_get(battle=battle), data=data or {})
        if not check.ok:
            raise check.refusal()
        if check.data == battle.result:
            raise AmendmentRefused(_("This is the result the battle already has."))
        return battle.result, check.data
    if kind == Amendment.Kind.ORDERS:
        row = line.row(turn.number, TURN)
        before = line.before(turn.number, TURN)
        if row is None or before is None or target not in {p.id for p in before.players}:
            raise AmendmentRefused(
                _("There is no such player in turn %(turn)s.") % {"turn": turn.number}
            )
        try:
            po = adapters.orders_from_data(target, data)
        except FormatError as e:
            raise ServiceError({"orders": [str(e)]}) from e
        errors = validate_orders(before, target, po)
        if errors:
            raise ServiceError({"orders": [e.message for e in errors]})
        return row.inputs.get(target), adapters.orders_to_data(po)
    if kind == Amendment.Kind.OPTIONS:
        before = line.before(turn.number, TURN)
        try:
            options = adapters.options_from_data(data)
        except FormatError as e:
            raise ServiceError({"options": [str(e)]}) from e
        old = to_data(before.options) if before is not None else None
        if to_data(options) == old:
            raise AmendmentRefused(_("These are the options that were in force."))
        return old, to_data(options)
    if kind == Amendment.Kind.ROLLBACK:
        return None, None
    raise AmendmentRefused(_("Unknown kind of amendment."))


def _old_battles(campaign: Campaign, from_turn: int) -> dict[str, dict[str, Any]]:
    return {
        b.key: {"turn": b.turn.number, "square": [b.x, b.y], "pack": b.pack, "result": b.result}
        for b in Battle.objects.filter(campaign=campaign, turn__number__gte=from_turn)
        .select_related("turn")
        .order_by("turn__number", "contact_order")
    }


def amendment_branch(*, amendment: Amendment) -> Branch:
    """The branch an amendment replays, on the campaign's line as it stands now."""
    campaign = amendment.campaign
    turns = list(campaign.turns.order_by("number"))
    change = Change(amendment.kind, amendment.turn_number, amendment.target, amendment.amended)
    return _replay(campaign, line_get(turns=turns, from_turn=change.turn), change)[0]


def _replay(
    campaign: Campaign, line: Line, change: Change
) -> tuple[Branch, dict[str, dict[str, Any]]]:
    """The branch of `change` on `line` (the campaign's, from the amended turn on), and the
    old line's battles."""
    old = _old_battles(campaign, change.turn)
    try:
        branch = branch_replay(
            line=line, change=change, packs={k: v["pack"] for k, v in old.items()}
        )
    except BranchError as e:
        raise AmendmentRefused(str(e)) from e
    return branch, old


def amendment_preview(
    *,
    campaign: Campaign,
    user: User,
    kind: str,
    turn_number: int,
    reason: str,
    target: str = "",
    data: Any = None,
) -> Amendment:
    """Draft an amendment and preview it: the branch's consequences, turn by turn, and what
    of later turns no longer fits (`preview["notes"]`)."""
    _require_gm(campaign, user)
    reason = _reason(reason)
    turns = list(campaign.turns.order_by("number"))
    current = _between_turns(campaign, turns)
    turn = _resolved_turn(turns, turn_number)
    line = line_get(turns=turns, from_turn=turn.number)
    original, amended = _original(campaign, turn, line, kind, target, data)
    branch, old = _replay(campaign, line, Change(kind, turn.number, target, amended))
    diff = branch_diff(
        line=line, branch=branch, current=adapters.state_current(campaign=campaign), old_battles=old
    )
    with transaction.atomic():
        Campaign.objects.select_for_update().filter(pk=campaign.pk).first()
        number = (campaign.amendments.aggregate(n=Max("number"))["n"] or 0) + 1
        return Amendment.objects.create(
            campaign=campaign,
            number=number,
            turn_number=turn.number,
            kind=kind,
            target=target,
            original=original,
            amended=amended,
            reason=reason,
            base=line.digest(current),
            digest=branch.digest,
            preview={
                "diff": diff,
                "notes": [n.to_dict() for n in branch.notes],
                "last_turn": branch.last_turn,
                "ended": branch.state.ended,
                "open_turn": None if branch.state.ended else branch.state.turn,
            },
            created_by=user,
        )


def _draft(amendment: Amendment) -> Amendment:
    rows = Amendment.objects.select_for_update().select_related("campaign")
    a = rows.filter(pk=amendment.pk).first()
    if a is None:
        raise AmendmentRefused(
            _("Amendment %(n)s no longer exists: it was discarded.") % {"n": amendment.number}
        )
    if a.status != Amendment.Status.DRAFT:
        raise AmendmentRefused(
            _("Amendment %(n)s was already %(status)s.")
            % {"n": a.number, "status": a.get_status_display().lower()}
        )
    return a


@transaction.atomic
def amendment_commit(*, amendment: Amendment, user: User) -> Amendment:
    """Replace the campaign's line with the previewed branch, in one transaction."""
    a = _draft(amendment)
    campaign = a.campaign
    _require_gm(campaign, user)
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    turns = list(Turn.objects.select_for_update().filter(campaign=campaign).order_by("number"))
    current = _between_turns(campaign, turns)
    change = Change(a.kind, a.turn_number, a.target, a.amended)
    line = line_get(turns=turns, from_turn=change.turn)
    branch, _old = _replay(campaign, line, change)
    if line.digest(current) != a.base or branch.digest != a.digest:
        raise AmendmentRefused(
            _(
                "The campaign has moved on since this preview: discard it and preview the "
                "amendment again."
            )
        )
    amend_write.line_replace(
        campaign=campaign, turns=turns, line=line, branch=branch, amendment=a, user=user
    )
    now = timezone.now()
    a.status, a.decided_by, a.decided_at = Amendment.Status.COMMITTED, user, now
    a.save(update_fields=["status", "decided_by", "decided_at"])
    rollback = a.kind == Amendment.Kind.ROLLBACK
    AuditEntry.log(
        campaign,
        AuditEntry.Action.ROLLED_BACK if rollback else AuditEntry.Action.AMENDED,
        user=user,
        turn=a.turn_number,
        reason=a.reason,
        changes=amend_write.changes_summary(a),
        amendment=a,
    )
    enqueue_on_commit(notices.notify_amended_task, a.pk)
    return a


@transaction.atomic
def amendment_discard(*, amendment: Amendment, user: User) -> int:
    """Leave the campaign as it is: the draft is deleted, and the campaign holds what it held
    before the preview (its export the same bytes). Returns the draft's number."""
    a = _draft(amendment)
    _require_gm(a.campaign, user)
    number = a.number
    a.delete()
    return number
