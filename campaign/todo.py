""" "Your move": what one member of a campaign has to do next, and by when, each item a link
to the page where it is done. The home page lists it for every campaign of the user, the
overview starts with it.

Read only, and scoped to the viewer: a player hears of his own orders and of the battles his
side fights; the GM of everything that holds up the turn. A few queries a campaign, however
large it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from battles.models import Battle
from battles.rights import SETTLED, battle_rights_for_viewer
from campaign.access import Viewer
from campaign.fog import battle_visible
from campaign.models import Campaign, Membership, Orders, Side, Turn
from campaign.selectors import players_active


@dataclass(frozen=True)
class Todo:
    kind: str  # orders, confirm, close, resolve, retry, battle-enter, battle-confirm, dispute,
    #            setup, roster, ended
    text: str  # a sentence, in the active language
    url: str
    due: datetime | None = None  # when it is due (a deadline), shown in `zone`
    zone: str = "UTC"


def todo_list_for_viewer(*, viewer: Viewer) -> list[Todo]:
    """What `viewer` must do next in his campaign, most pressing first; empty when he is
    waiting for others (`todo_waiting_for` says for what)."""
    campaign = viewer.campaign
    slug = campaign.slug
    if campaign.ended:
        return [Todo("ended", _("The campaign has ended: see who won."), _url("end", slug))]
    if campaign.setup_open:
        return _setup_items(viewer)
    turn = campaign.turns.order_by("-number").first()
    if turn is None:
        return []
    if turn.is_open:
        return _orders_items(viewer, turn)
    if turn.interrupted and viewer.is_gm:
        return [
            Todo(
                "retry",
                _("The resolution of turn %(n)s was interrupted: retry it.") % {"n": turn.number},
                _url("detail", slug, "#turn-panel"),
            )
        ]
    if turn.status == Turn.Status.CLOSED and viewer.is_gm:
        return [
            Todo(
                "resolve",
                _("Turn %(n)s is closed but its resolution has not started: start it.")
                % {"n": turn.number},
                _url("detail", slug, "#turn-panel"),
            )
        ]
    if turn.waiting_for_battles:
        return _battle_items(viewer, turn)
    return []


def todo_waiting_for(*, viewer: Viewer) -> str:
    """A sentence on what the campaign is waiting for, for a member with nothing to do."""
    campaign = viewer.campaign
    if campaign.ended:
        return _("The campaign has ended.")
    if campaign.setup_open:
        return _("The game master is setting up the campaign and starts it when it is ready.")
    turn = campaign.turns.order_by("-number").first()
    if turn is None:
        return ""
    if turn.is_open:
        return _("Waiting for the other players' orders for turn %(n)s.") % {"n": turn.number}
    if turn.interrupted:
        return _("The resolution of turn %(n)s was interrupted; the game master will retry it.") % {
            "n": turn.number
        }
    if turn.waiting_for_battles:
        return _("Waiting for the results of turn %(n)s's battles.") % {"n": turn.number}
    return _("Turn %(n)s is being resolved.") % {"n": turn.number}


def _url(name: str, slug: str, anchor: str = "") -> str:
    return reverse(f"campaign:{name}", args=[slug]) + anchor


def _setup_items(viewer: Viewer) -> list[Todo]:
    slug = viewer.campaign.slug
    if viewer.is_gm:
        unready = list(
            viewer.campaign.players.filter(roster_ready=False).values_list("name", flat=True)
        )
        if unready:
            text = ngettext(
                "%(count)d army's roster is not ready yet: %(who)s. Meanwhile, set up the "
                "campaign (map, armies, invitations).",
                "%(count)d armies' rosters are not ready yet: %(who)s. Meanwhile, set up the "
                "campaign (map, armies, invitations).",
                len(unready),
            ) % {"count": len(unready), "who": ", ".join(unready)}
            return [Todo("setup", text, _url("start", slug))]
        text = _("Every roster is ready: check the set-up and start the campaign.")
        return [Todo("setup", text, _url("start", slug))]
    if viewer.is_player and viewer.player is not None and not viewer.player.roster_ready:
        return [
            Todo(
                "roster",
                _(
                    "Write the roster of %(army)s and mark it ready before the game master "
                    "starts the campaign."
                )
                % {"army": viewer.player.name},
                _url("roster", slug),
            )
        ]
    return []


def _orders_items(viewer: Viewer, turn: Turn) -> list[Todo]:
    slug = viewer.campaign.slug
    due = (None if turn.paused else turn.deadline, turn.timezone or "UTC")
    values = {"n": turn.number}
    if viewer.is_player and viewer.player is not None and not viewer.player.surrendered:
        status = (
            Orders.objects.filter(turn=turn, player=viewer.player)
            .values_list("status", flat=True)
            .first()
        )
        if status is None:
            text = _("Give your orders for turn %(n)s.") % values
            return [Todo("orders", text, _url("orders", slug), *due)]
        if status != Orders.Status.CONFIRMED:
            text = _("Confirm your orders for turn %(n)s.") % values
            return [Todo("confirm", text, _url("orders", slug), *due)]
        return []
    if not viewer.is_gm:
        return []
    confirmed = set(
        Orders.objects.filter(turn=turn, status=Orders.Status.CONFIRMED).values_list(
            "player_id", flat=True
        )
    )
    waiting = [p.name for p in players_active(campaign=viewer.campaign) if p.pk not in confirmed]
    if waiting:
        text = ngettext(
            "%(count)d player has not confirmed the orders for turn %(n)s yet: %(who)s.",
            "%(count)d players have not confirmed their orders for turn %(n)s yet: %(who)s.",
            len(waiting),
        ) % {"who": ", ".join(waiting), "count": len(waiting), **values}
        return [Todo("waiting", text, _url("detail", slug, "#orders-states"), *due)]
    if viewer.campaign.auto_close:
        return []  # it closes by itself
    return [
        Todo(
            "close",
            _("Every player has confirmed: close turn %(n)s and resolve it.") % values,
            _url("detail", slug, "#turn-controls"),
            *due,
        )
    ]


def _battle_label(battle: Battle, sides: dict[str, str]) -> str:
    names = [sides.get(s.get("side", ""), "") for s in (battle.pack or {}).get("sides", [])]
    return _("the battle at (%(x)s, %(y)s), %(a)s against %(b)s") % {
        "x": battle.x,
        "y": battle.y,
        "a": names[0] if names else "?",
        "b": names[1] if len(names) > 1 else "?",
    }


def _battle_items(viewer: Viewer, turn: Turn) -> list[Todo]:
    campaign = viewer.campaign
    battles = [
        b
        for b in Battle.objects.filter(turn=turn, status=Battle.Status.PENDING)
        .exclude(entry__in=SETTLED)
        .select_related("turn")
        .order_by("contact_order", "key")
        if battle_visible(viewer=viewer, battle=b)
    ]
    if not battles:
        return []
    sides = dict(Side.objects.filter(campaign=campaign).values_list("key", "name"))
    due = (turn.battles_deadline, turn.timezone or "UTC")
    items = []
    for b in battles:
        rights = battle_rights_for_viewer(battle=b, viewer=viewer)
        what = {"battle": _battle_label(b, sides)}
        url = reverse("battles:result", args=[campaign.slug, b.key])
        if b.entry == Battle.Entry.DISPUTED and viewer.is_gm:
            text, kind = _("Settle the disputed result of %(battle)s.") % what, "dispute"
        elif rights.can_confirm:
            text, kind = _("Confirm or dispute the result of %(battle)s.") % what, "battle-confirm"
        elif b.entry == Battle.Entry.NONE and rights.can_enter:
            text, kind = _("Enter the result of %(battle)s.") % what, "battle-enter"
        else:
            continue
        items.append(Todo(kind, text[:1].upper() + text[1:], url, *due))
    order = {"dispute": 0, "battle-confirm": 1, "battle-enter": 2}
    return sorted(items, key=lambda t: order[t.kind])


def todo_by_campaign_for_user(
    *, user: User, campaigns: Sequence[Campaign]
) -> dict[int, list[Todo]]:
    """For the home page: each campaign's to-do for `user` (campaigns where he is no member:
    none)."""
    memberships = {
        m.campaign_id: m
        for m in Membership.objects.filter(user=user, campaign__in=campaigns).select_related(
            "player__side"
        )
    }
    out: dict[int, list[Todo]] = {}
    for campaign in campaigns:
        m = memberships.get(campaign.pk)
        if m is None:
            continue
        viewer = Viewer(campaign, user, m.role, m.player)
        out[campaign.pk] = todo_list_for_viewer(viewer=viewer)
    return out
