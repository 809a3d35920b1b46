"""Notification services: who is told what about a turn, by email and on the site, once
(the delivery log and the mailer: `notifications.delivery`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from battles.models import Battle
from campaign.access import Viewer
from campaign.amendments import amendment_title, diff_for_side, diff_lines
from campaign.fog import amendment_readers
from campaign.models import (
    Amendment,
    Campaign,
    Membership,
    Orders,
    Player,
    Turn,
    TurnResolution,
)
from campaign.moments import Reading, reading_as, readings_of
from campaign.selectors import user_label
from campaign.stored_states import state_data_of
from notifications import selectors
from notifications.delivery import (
    Message,
    notification_log,
    notification_send,
    raise_if_failed,
    send_many,
)
from notifications.digest import digest_for, force_names, player_names
from notifications.models import Kind, Notification, NotificationPreference
from notifications.titles import title, title_params

log = logging.getLogger(__name__)

REMINDER_BEFORE = timedelta(hours=24)


# --- preferences -----------------------------------------------------------------------------


@transaction.atomic
def preference_set(*, user: User, kind: str, enabled: bool) -> NotificationPreference:
    if kind not in dict(NotificationPreference.KINDS):
        raise ValueError(f"Unknown notification kind {kind!r}.")
    pref, _created = NotificationPreference.objects.update_or_create(
        user=user, kind=kind, defaults={"enabled": enabled}
    )
    return pref


# --- reading on the site ---------------------------------------------------------------------


def notification_read(*, notification: Notification) -> Notification:
    """The user opened the notice on the site: it is read from now (once; opening it again
    keeps the first time)."""
    if notification.read_at is None:
        now = timezone.now()
        Notification.objects.filter(pk=notification.pk, read_at__isnull=True).update(read_at=now)
        notification.read_at = now
    return notification


def notifications_read_all(*, user: User) -> int:
    """Every unread notice of the user is read from now; how many were unread."""
    return Notification.objects.filter(user=user, read_at__isnull=True).update(
        read_at=timezone.now()
    )


# --- what the messages say -------------------------------------------------------------------


def _absolute(path: str) -> str:
    """`path` on the site's address (`SITE_URL`: set, or the demo's own; config/site.py)."""
    return settings.SITE_URL.rstrip("/") + path


def _campaign_url(campaign: Campaign) -> str:
    return _absolute(reverse("campaign:detail", args=[campaign.slug]))


def _orders_url(campaign: Campaign) -> str:
    """Where a player writes and confirms his orders (what the messages asking for them say)."""
    return _absolute(reverse("campaign:orders", args=[campaign.slug]))


def _render(template: str, context: dict[str, Any]) -> str:
    return render_to_string(
        f"notifications/email/{template}.txt",
        {**context, "log_url": _absolute(reverse("notifications:log"))},
    ).strip()


def _members(
    campaign: Campaign, *, roles: Iterable[str], player_keys: Iterable[str] | None = None
) -> list[Membership]:
    qs = Membership.objects.filter(campaign=campaign, role__in=list(roles)).select_related(
        "user", "player__side"
    )
    if player_keys is not None:
        qs = qs.filter(player__key__in=list(player_keys))
    return list(qs.order_by("pk"))


def _readers(members: Iterable[Membership]) -> dict[int, Reading]:
    """Each member's language and time zone, in one query: every message is written in its
    recipient's (`campaign.moments.reading_as`), whatever the request or task that caused it,
    and the next recipient's never inherits it."""
    return readings_of(m.user_id for m in members)


def _deadline_key(turn: Turn) -> str:
    return turn.deadline.isoformat() if turn.deadline else ""


# --- the notifications -----------------------------------------------------------------------


def _titled(code: str, campaign: Campaign, turn: int, **values: Any) -> dict[str, Any]:
    """A notice's subject (its email's, in the active language: the recipient's) and what it
    keeps to write its title again in whatever language its reader reads (`titles`)."""
    values = {"campaign": campaign.name, "turn": turn, **values}
    return {"subject": title(code, values), "params": title_params(code, **values)}


def notify_turn_opened(*, turn_id: int) -> list[Notification]:
    """Tell the players of an open turn that orders are wanted, and by when. One message per
    deadline: when the GM sets or moves it, players hear of the new one."""
    turn = Turn.objects.select_related("campaign").filter(pk=turn_id).first()
    if turn is None or not turn.is_open:
        return []
    campaign = turn.campaign
    url = _orders_url(campaign)
    key = _deadline_key(turn)
    changed = Notification.objects.filter(turn=turn, kind=Kind.TURN_OPENED).exclude(key=key)
    members = _members(campaign, roles=[Membership.Role.PLAYER])
    readers = _readers(members)
    sent = []
    for m in members:
        if m.player is None or m.player.surrendered:
            continue
        context = {
            "campaign": campaign,
            "turn": turn,
            "player": m.player,
            "user": m.user,
            "url": url,
            "deadline_changed": changed.filter(user=m.user).exists(),
        }
        code = "deadline-changed" if context["deadline_changed"] else "turn-opened"
        with reading_as(readers[m.user_id]):
            sent.append(
                notification_send(
                    user=m.user,
                    turn=turn,
                    kind=Kind.TURN_OPENED,
                    key=key,
                    **_titled(code, campaign, turn.number),
                    body=_render("turn_opened", context),
                    url=url,
                )
            )
    return raise_if_failed(sent)


def notify_reminders_due(*, now: datetime | None = None) -> list[Notification]:
    """Remind the players who have not confirmed their orders, once per deadline, when it is
    24 hours away or less. A turn opened with less than a day to go has no reminder (the
    turn-opened message says it all); a paused turn none until it is resumed."""
    now = now or timezone.now()
    turns = Turn.objects.select_related("campaign").filter(
        status=Turn.Status.OPEN,
        paused_at__isnull=True,
        deadline__gt=now,
        deadline__lte=now + REMINDER_BEFORE,
    )
    sent = []
    for turn in turns:
        assert turn.deadline is not None  # the query took turns with a deadline only
        if turn.opened_at is not None and turn.deadline - turn.opened_at <= REMINDER_BEFORE:
            continue
        confirmed = set(
            Orders.objects.filter(turn=turn, status=Orders.Status.CONFIRMED).values_list(
                "player_id", flat=True
            )
        )
        url = _orders_url(turn.campaign)
        members = _members(turn.campaign, roles=[Membership.Role.PLAYER])
        readers = _readers(members)
        for m in members:
            if m.player is None or m.player.surrendered or m.player_id in confirmed:
                continue
            context = {
                "campaign": turn.campaign,
                "turn": turn,
                "player": m.player,
                "user": m.user,
                "url": url,
                "saved": Orders.objects.filter(turn=turn, player=m.player).exists(),
            }
            with reading_as(readers[m.user_id]):
                sent.append(
                    notification_send(
                        user=m.user,
                        turn=turn,
                        kind=Kind.REMINDER,
                        key=_deadline_key(turn),
                        **_titled("reminder", turn.campaign, turn.number),
                        body=_render("reminder", context),
                        url=url,
                    )
                )
    return raise_if_failed(sent)


def notify_battle(*, battle_id: int) -> list[Notification]:
    """The battle notices of one battle (`notify_battles`)."""
    turn_id = Battle.objects.filter(pk=battle_id).values_list("turn_id", flat=True).first()
    return [] if turn_id is None else notify_battles(turn_id=turn_id, battle_ids=[battle_id])


def notify_battles(*, turn_id: int, battle_ids: Iterable[int] | None = None) -> list[Notification]:
    """Tell the players whose forces fight a battle of the turn that it is waiting to be
    fought: a message a battle and player, for every battle of the turn (or of `battle_ids`).
    One run for the whole turn, the resolution's state (the forces' names) read once: a turn
    of hundreds of battles is one task, in a number of queries that grows only with the
    messages to send (`delivery.send_many`)."""
    turn = Turn.objects.select_related("campaign").filter(pk=turn_id).first()
    if turn is None:
        return []
    chosen = Battle.objects.filter(turn=turn).order_by("pk")
    if battle_ids is not None:
        chosen = chosen.filter(pk__in=list(battle_ids))
    battles = list(chosen)
    if not battles:
        return []
    campaign = turn.campaign
    # the whole state (a stored one is mostly a delta of the one before: campaign.stored_states)
    resolution = TurnResolution.objects.filter(turn=turn, stage=TurnResolution.Stage.TURN).first()
    states = [state_data_of(resolution)] if resolution is not None else []
    forces, players = force_names(states), player_names(states)
    sides = {
        b.pk: [
            (s.get("side", ""), list(s.get("players", ())), list(s.get("forces", ())))
            for s in b.pack.get("sides", ())
        ]
        for b in battles
    }
    involved = {p for b in battles for _side, ps, _forces in sides[b.pk] for p in ps}
    members = _members(campaign, roles=[Membership.Role.PLAYER], player_keys=involved)
    readers = _readers(members)
    messages = []
    for battle in battles:
        # the battle's own page: its pack, and the way to its result form
        url = _absolute(reverse("battles:detail", args=[campaign.slug, battle.key]))
        for m in members:
            assert m.player is not None  # the members were taken by their player's key
            mine = [s for s in sides[battle.pk] if m.player.key in s[1]]
            if not mine:
                continue
            theirs = [s for s in sides[battle.pk] if m.player.key not in s[1]]
            context = {
                "campaign": campaign,
                "turn": turn,
                "battle": battle,
                "user": m.user,
                "url": url,
                # forces in a battle stand in one square: each side sees the other's
                "own_forces": [
                    forces.get(f["force_id"], f["force_id"]) for s in mine for f in s[2]
                ],
                "enemy_forces": [
                    forces.get(f["force_id"], f["force_id"]) for s in theirs for f in s[2]
                ],
                "enemy_players": [players.get(p, p) for s in theirs for p in s[1]],
            }
            with reading_as(readers[m.user_id]):
                messages.append(
                    Message(
                        user=m.user,
                        key=battle.key,
                        **_titled("battle", campaign, turn.number, x=battle.x, y=battle.y),
                        body=_render("battle", context),
                        url=url,
                    )
                )
    return raise_if_failed(send_many(turn=turn, kind=Kind.BATTLE, messages=messages))


def notify_missing_orders(*, turn_id: int) -> list[Notification]:
    """Tell each player whose forces acted under the missing-orders policy (they kept their
    status and did not move) which forces did."""
    turn = Turn.objects.select_related("campaign").filter(pk=turn_id).first()
    resolution = TurnResolution.objects.filter(
        turn_id=turn_id, stage=TurnResolution.Stage.TURN
    ).first()
    if turn is None or resolution is None:
        return []
    held: dict[str, list[str]] = {}
    for e in resolution.events:
        if e.get("type") == "OrdersMissing":
            held.setdefault(e["owner"], []).append(e["force_id"])
    if not held:
        return []
    names = force_names([resolution.state_before])
    url = _campaign_url(turn.campaign)
    members = _members(turn.campaign, roles=[Membership.Role.PLAYER], player_keys=held)
    readers = _readers(members)
    sent = []
    for m in members:
        assert m.player is not None  # the members were taken by their player's key
        with reading_as(readers[m.user_id]):
            context = {
                "campaign": turn.campaign,
                "turn": turn,
                "user": m.user,
                "forces": [names.get(f, f) for f in held[m.player.key]],
                "policy": turn.campaign.get_missing_orders_policy_display(),
                "url": url,
            }
            sent.append(
                notification_send(
                    user=m.user,
                    turn=turn,
                    kind=Kind.MISSING_ORDERS,
                    **_titled("missing-orders", turn.campaign, turn.number),
                    body=_render("missing_orders", context),
                    url=url,
                )
            )
    return raise_if_failed(sent)


def notify_turn_resolved(*, turn_id: int) -> list[Notification]:
    """Send every member of the campaign the digest of a resolved turn, each filtered by fog of
    war for him (`notifications.digest`) and written in his language."""
    turn = Turn.objects.select_related("campaign").filter(pk=turn_id).first()
    if turn is None or not turn.resolved:
        return []
    campaign = turn.campaign
    url = _absolute(reverse("campaign:report", args=[campaign.slug, turn.number]))
    next_turn = campaign.turns.filter(number__gt=turn.number).order_by("number").first()
    members = _members(campaign, roles=Membership.Role.values)
    readers = _readers(members)
    sent = []
    for m in members:
        viewer = Viewer(campaign, m.user, m.role, m.player)
        with reading_as(readers[m.user_id]):
            context = {
                "campaign": campaign,
                "turn": turn,
                "user": m.user,
                "digest": digest_for(turn=turn, viewer=viewer),
                "next_turn": next_turn,
                "url": url,
            }
            sent.append(
                notification_send(
                    user=m.user,
                    turn=turn,
                    kind=Kind.TURN_RESOLVED,
                    **_titled("turn-resolved", campaign, turn.number),
                    body=_render("turn_resolved", context),
                    url=url,
                )
            )
    return raise_if_failed(sent)


def notify_amended(*, amendment_id: int) -> list[Notification]:
    """Tell every player of the campaign that the GM amended a past turn: what, why, and what
    changed for him (under fog of war: his side's forces and holdings, the battles it
    fought). Observers get the whole list unless fog of war is on. What and why only to those
    who saw what it corrects (`campaign.fog.amendment_readers`); the others read that the
    game master amended an earlier turn."""
    a = Amendment.objects.select_related("campaign").filter(pk=amendment_id).first()
    if a is None or a.status != Amendment.Status.COMMITTED:
        return []
    campaign = a.campaign
    turn = campaign.turns.filter(number=a.turn_number).first()
    if turn is None:
        return []
    diff = (a.preview or {}).get("diff", [])
    players = {p.key: p.name for p in campaign.players.all()}
    url = _absolute(reverse("campaign:map", args=[campaign.slug]))
    readers = amendment_readers(a)
    members = _members(campaign, roles=[Membership.Role.PLAYER, Membership.Role.OBSERVER])
    reading = _readers(members)
    sent = []
    for m in members:
        shown = readers.include(Viewer(campaign, m.user, m.role, m.player))
        mine = diff
        if campaign.fog_of_war or m.role == Membership.Role.PLAYER:
            if m.player is None:
                continue
            side = m.player.side.key
            keys = {p.key for p in campaign.players.all() if p.side_id == m.player.side_id}
            mine = diff_for_side(diff, players=keys, side=side)
        with reading_as(reading[m.user_id]):
            context = {
                "campaign": campaign,
                "amendment": a,
                "what": amendment_title(a, players) if shown else "",
                "shown": shown,
                "user": m.user,
                "changes": diff_lines(mine, players),
                "open_turn": (a.preview or {}).get("open_turn"),
                "url": url,
            }
            sent.append(
                notification_send(
                    user=m.user,
                    turn=turn,
                    kind=Kind.AMENDED,
                    key=f"amendment:{a.number}",
                    **_titled("amended", campaign, a.turn_number),
                    body=_render("amended", context),
                    url=url,
                )
            )
    return raise_if_failed(sent)


# --- the game master's reminder ----------------------------------------------------------------

GM_REMINDER_EVERY = timedelta(hours=1)  # at most one reminder a player, this often


@dataclass(frozen=True)
class GmReminders:
    """What came of the game master's reminder: the players reminded and their notices (the
    emails still to send), those reminded less than `GM_REMINDER_EVERY` ago with when the
    next may go, and those nobody plays."""

    reminded: list[Player] = field(default_factory=list)
    notices: list[Notification] = field(default_factory=list)
    too_soon: list[tuple[Player, datetime]] = field(default_factory=list)
    nobody: list[Player] = field(default_factory=list)


def notify_gm_reminder(
    *, turn: Turn, players: Iterable[Player], gm: User, now: datetime | None = None
) -> GmReminders:
    """The game master reminds these players of the open turn that their orders are wanted:
    a notice for each member playing one, on his list at once; its email is for the caller to
    queue (`notification_deliver`) once this commits. Each written in its recipient's
    language and time zone, not the GM's page's. At most one reminder a player an hour. The
    key counts the player's reminders of the turn, so a second run of the same reminder finds
    its rows and adds none."""
    now = now or timezone.now()
    players = list(players)
    before = selectors.gm_reminders_for_turn(turn=turn)
    members: dict[int, list[Membership]] = {}
    everyone = _members(
        turn.campaign, roles=[Membership.Role.PLAYER], player_keys=[p.key for p in players]
    )
    readers = _readers(everyone)
    for m in everyone:
        members.setdefault(m.player_id or 0, []).append(m)
    saved = set(Orders.objects.filter(turn=turn).values_list("player_id", flat=True))
    url = _orders_url(turn.campaign)
    context = {"campaign": turn.campaign, "turn": turn, "gm": user_label(gm), "url": url}
    done = GmReminders()
    for player in players:
        sent, last = before.get(player.key, (0, None))
        if last is not None and now - last < GM_REMINDER_EVERY:
            done.too_soon.append((player, last + GM_REMINDER_EVERY))
            continue
        if not members.get(player.pk):
            done.nobody.append(player)
            continue
        for m in members[player.pk]:
            with reading_as(readers[m.user_id]):
                body = _render(
                    "gm_reminder",
                    {**context, "player": player, "user": m.user, "saved": player.pk in saved},
                )
                done.notices.append(
                    notification_log(
                        user=m.user,
                        turn=turn,
                        kind=Kind.GM_REMINDER,
                        key=f"{player.key}:{sent + 1}",
                        **_titled("gm-reminder", turn.campaign, turn.number),
                        body=body,
                        url=url,
                    )
                )
        done.reminded.append(player)
    return done
