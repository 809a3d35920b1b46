"""Committing an amendment: the campaign's line of turns replaced by the branch, inside the
caller's transaction (`campaign.turns.amend.amendment_commit`, which holds the campaign's
turns locked).

What the old line held is first kept whole (`LineArchive`: its turns with their orders and
stored resolutions, its battles with their entries, photos and audit logs). Then:

- the stored resolutions from the amended stage on are replaced by the branch's, written as
  a resolution writes them (states as deltas of the one before);
- the battles of the replayed turns follow the branch: a battle fought in both lines keeps
  its row (its photos, entry and audit log) with its new pack and result; one fought only in
  the old line is deleted (its row is in the archive; its photos' files stay where they
  are); one fought only in the branch is created, settled by the tactical engine;
- the turns after the branch's last are deleted (a branch that ends the campaign earlier),
  and the turn the branch leaves open is kept (its saved orders stand, to be confirmed
  again) or created; a rollback reopens the turn it returns to, without its seed;
- the rules state is written, and the sightings are recorded again along the new line.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.utils import timezone

from battles.models import Battle, BattleAudit
from campaign import adapters, fog, stored_states
from campaign.exchange.export import line_records
from campaign.models import (
    Amendment,
    Campaign,
    LineArchive,
    Orders,
    Sighting,
    Turn,
    TurnResolution,
)
from campaign.orders.services import reinforcement_requests_carry
from campaign.turns.branch import AFTER, TURN, Branch, Line
from rules import to_data


def changes_summary(a: Amendment) -> dict[str, Any]:
    """What the audit log keeps of an amendment's consequences: counts, and its notes."""
    diff = (a.preview or {}).get("diff", [])
    return {
        "turns": [t["turn"] for t in diff if t["forces"] or t["battles"] or t["holdings"]],
        "forces": sum(len(t["forces"]) for t in diff),
        "holdings": sum(len(t["holdings"]) for t in diff),
        "battles": sum(len(t["battles"]) for t in diff),
        "notes": len((a.preview or {}).get("notes", [])),
        "original": a.original,
        "amended": a.amended,
        "target": a.target,
    }


def line_replace(
    *,
    campaign: Campaign,
    turns: list[Turn],
    line: Line,
    branch: Branch,
    amendment: Amendment,
    user: User,
) -> None:
    LineArchive.objects.create(
        campaign=campaign,
        amendment=amendment,
        from_turn=branch.start_turn,
        data=line_records(campaign=campaign, from_turn=branch.start_turn),
    )
    order = TurnResolution.STAGE_ORDER
    start = (branch.start_turn, order[branch.start_stage])
    TurnResolution.objects.filter(
        pk__in=[r.pk for r in line.rows if (r.turn.number, order[r.stage]) >= start]
    ).delete()
    stored_states.noted_forget()  # the row noted last may be gone
    by_number = {t.number: t for t in turns}
    rollback = amendment.kind == Amendment.Kind.ROLLBACK
    open_number = None if branch.state.ended else branch.state.turn
    keep = branch.start_turn if rollback else (open_number or branch.last_turn)
    Turn.objects.filter(campaign=campaign, number__gt=keep).delete()
    if rollback:
        Battle.objects.filter(campaign=campaign, turn__number__gte=branch.start_turn).delete()
    else:
        _battles_write(campaign, by_number, branch, amendment, user)
    for s in branch.stages:
        row = TurnResolution.objects.create(
            turn=by_number[s.turn],
            stage=s.stage,
            seed=s.seed,
            **adapters.resolution_state_fields(campaign=campaign, state=s.before),
            inputs=s.inputs,
            ledger=s.ledger,
            events=s.events,
        )
        adapters.resolution_noted(row)
    adapters.state_save(campaign=campaign, state=branch.state)
    if rollback:
        _reopen(by_number[branch.start_turn])
    elif open_number is not None:
        _open_turn(campaign, by_number.get(open_number), open_number, branch)
    _sightings_again(campaign, branch)


def _reopen(turn: Turn) -> None:
    """The turn a rollback returns to: open for orders again, its seed to be fixed anew."""
    turn.status = Turn.Status.OPEN
    turn.seed, turn.seed_hash, turn.carry = None, "", {}
    turn.closed_at = turn.resolved_at = turn.deadline = turn.battles_deadline = None
    turn.paused_at = None
    turn.opened_at = timezone.now()
    turn.save()
    Orders.objects.filter(turn=turn).update(status=Orders.Status.SAVED, confirmed_at=None)


def _open_turn(campaign: Campaign, turn: Turn | None, number: int, branch: Branch) -> None:
    """The turn the branch leaves open: its saved orders stand, to be confirmed again (the
    map they were written for has changed); or a new one, as a resolution opens it."""
    if turn is not None:
        Orders.objects.filter(turn=turn).update(status=Orders.Status.SAVED, confirmed_at=None)
        return
    following = Turn.objects.create(
        campaign=campaign, number=number, status=Turn.Status.OPEN, opened_at=timezone.now()
    )
    last = next((s for s in reversed(branch.stages) if s.stage == AFTER), None)
    if last is not None:
        reinforcement_requests_carry(turn=following, orders=last.before.orders, events=last.events)


def _battles_write(
    campaign: Campaign,
    by_number: dict[int, Turn],
    branch: Branch,
    amendment: Amendment,
    user: User,
) -> None:
    replayed = {s.turn for s in branch.stages if s.stage == TURN}
    fought: dict[str, tuple[int, Any]] = {}
    for s in branch.stages:
        if s.stage == TURN:
            fought.update({b.battle_id: (s.turn, b) for b in s.pending})
    results: dict[str, tuple[Any, str]] = {}
    for s in branch.stages:
        if s.stage == AFTER:
            results.update({k: (v, s.results_how.get(k, "kept")) for k, v in s.inputs.items()})
    rows = {
        b.key: b
        for b in Battle.objects.filter(
            campaign=campaign, turn__number__in=replayed | {branch.start_turn}
        )
    }
    gone = [
        b.pk
        for k, b in rows.items()
        if b.turn_id in {by_number[t].pk for t in replayed} and k not in fought
    ]
    Battle.objects.filter(pk__in=gone).delete()
    now = timezone.now()
    note = f"Amendment {amendment.number}: {amendment.reason}"
    new: list[Battle] = []
    changed: list[Battle] = []
    audits: list[tuple[Battle, str, dict[str, Any]]] = []
    for key, (result, how) in results.items():
        row = rows.get(key)
        if key in fought:
            t, pending = fought[key]
            if row is None:
                row = Battle(campaign=campaign, turn=by_number[t], key=key)
            row.x, row.y = pending.square
            row.contact_order = pending.contact_order
            row.pack = to_data(pending.pack)
        if row is None:
            continue
        if how in ("engine", "amended"):
            data = {"result": result, "previous": row.result, "amendment": amendment.number}
            audits.append((row, "amended" if how == "amended" else "amended-engine", data))
        row.result, row.status = result, Battle.Status.RESOLVED
        row.resolved_at = row.resolved_at or now
        if how == "engine":
            row.resolver, row.entry = Battle.Resolver.AUTO, Battle.Entry.CONFIRMED
            row.entered_by = row.confirmed_by = None
            row.entered_at = now
        elif how == "amended":
            row.entry = Battle.Entry.OVERRIDDEN
        row.result_changed()  # a result page open on it refuses its forms (battles.stale)
        (changed if row.pk else new).append(row)
    Battle.objects.bulk_create(new)  # a fixed number of queries, however many battles
    Battle.objects.bulk_update(changed, BATTLE_FIELDS, batch_size=200)
    BattleAudit.objects.bulk_create(
        # the reason only on the amended battle: another's sides may not have seen what the
        # amendment corrects (campaign.fog.amendment_readers)
        BattleAudit(
            battle=row,
            user=user,
            action=action,
            note=note if action == "amended" else "",
            data=data,
        )
        for row, action, data in audits
    )


BATTLE_FIELDS = [
    "x",
    "y",
    "contact_order",
    "pack",
    "result",
    "status",
    "resolved_at",
    "resolver",
    "entry",
    "entered_by",
    "confirmed_by",
    "entered_at",
    "result_version",
]


def _sightings_again(campaign: Campaign, branch: Branch) -> None:
    """What each side last saw, recorded again stage by stage along the new line (a stage
    records what it left): the stored stages before the branch, decoded, then the branch's
    own, in memory."""
    order = TurnResolution.STAGE_ORDER
    start = (branch.start_turn, order[branch.start_stage])
    earlier = sorted(
        (
            r
            for r in TurnResolution.objects.filter(
                turn__campaign=campaign, turn__number__lte=branch.start_turn
            ).select_related("turn")
            if (r.turn.number, order[r.stage]) < start
        ),
        key=lambda r: (r.turn.number, order[r.stage]),
    )
    befores = adapters.states_before(earlier)
    first = branch.stages[0].before if branch.stages else branch.state
    afters = [*befores[1:], first] if earlier else []
    afters += [s.after for s in branch.stages]
    Sighting.objects.filter(campaign=campaign).delete()
    for state in afters:
        fog.sightings_record(campaign=campaign, state=state)
