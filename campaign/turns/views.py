"""The campaign overview: the turn's state machine for everyone, the live turn panel that the
page polls while the turn is being closed or resolved, and one view for each of the GM's turn
controls. A control redirects back on success and shows the page again with its refusal
(HTTP 400) otherwise."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HTMX_STOP_POLLING

from campaign.access import HtmxHttpRequest, Viewer, campaign_viewer, require_gm
from campaign.errors import ServiceError, StaleTurn
from campaign.models import Orders, Turn
from campaign.selectors import TURN_FIELD, turn_current, turn_expected
from campaign.todo import todo_list_for_viewer, todo_waiting_for
from campaign.turns import selectors, services
from campaign.turns.forms import BattlesDeadlineForm, DeadlineForm, ExtendForm, deadline_initial

TEMPLATE = "campaign/detail.html"

Control = Callable[[HttpRequest, Turn, dict[str, Any]], str]


def _context(viewer: Viewer, **extra: Any) -> dict[str, Any]:
    campaign = viewer.campaign
    turn = turn_current(campaign=campaign)
    battles = selectors.turn_battles_get(turn=turn)  # all of them: when to stop polling
    shown = selectors.turn_battles_get(turn=turn, viewer=viewer)  # what he may count
    previous = (
        campaign.turns.filter(number__lt=turn.number, status=Turn.Status.RESOLVED)
        .order_by("-number")
        .first()
    )
    context: dict[str, Any] = {
        "campaign": campaign,
        "viewer": viewer,
        "turn": turn,
        "steps": selectors.turn_steps_list(turn=turn),
        # a turn without battles goes on to Phases 4–8 by itself: keep watching it (an
        # interrupted one too: the task's own retry may finish it before the GM's)
        "polling": turn.busy or (turn.waiting_for_battles and not battles.pending),
        "battles_total": shown.total,
        "battles_pending": shown.pending,
        "battles_elsewhere": battles.pending and not shown.pending,
        "previous": previous,
        "seed_revealed": turn.resolved,
    }
    if viewer.is_player and viewer.player is not None:
        mine = Orders.objects.filter(turn=turn, player=viewer.player).first()
        context["my_orders"] = mine.status if mine else "none"
    if viewer.is_gm:
        context["orders_states"] = states = selectors.orders_states_list_for_gm(turn=turn)
        context["orders_waiting"] = sum(1 for row in states if row.waiting)
        context["deadline_form"] = DeadlineForm(initial=deadline_initial(turn, turn.deadline))
        context["battles_deadline_form"] = BattlesDeadlineForm(
            initial=deadline_initial(turn, turn.battles_deadline)
        )
        context["battles_auto"] = battles.auto
        context["extend_form"] = ExtendForm()
        context["max_extensions"] = services.MAX_EXTENSIONS
    context.update(extra)
    return context


def _page_context(viewer: Viewer, **extra: Any) -> dict[str, Any]:
    """The whole page's: the turn panel's, and the viewer's to-do above it."""
    todo = todo_list_for_viewer(viewer=viewer)
    waiting = "" if todo else todo_waiting_for(viewer=viewer)
    return _context(viewer, todo=todo, todo_waiting=waiting, **extra)


# --- the pages -------------------------------------------------------------------------------


@require_GET
def detail(request: HttpRequest, slug: str) -> HttpResponse:
    """The overview."""
    return render(request, TEMPLATE, _page_context(campaign_viewer(request, slug)))


@require_GET
def turn_status(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """The live turn panel. htmx polls it while the turn is busy; once the turn has settled
    the answer is 286, which tells htmx to stop (the panel it carries no longer polls)."""
    viewer = campaign_viewer(request, slug)
    context = _context(viewer)
    response = render(request, f"{TEMPLATE}#turn-panel", context)
    if request.htmx and not context["polling"]:
        response.status_code = HTMX_STOP_POLLING
    return response


# --- the GM's controls -----------------------------------------------------------------------


def _control(act: Control) -> Callable[[HttpRequest, str], HttpResponse]:
    """The view of one GM control: `act(request, turn, extra)` does it and says what was done,
    or raises why not (a form it bound goes into `extra`, to show its errors). The form names
    the turn it was rendered for: a control of another turn (a second tab, the Back button, a
    form posted twice) is refused before anything is done."""

    @require_POST
    @wraps(act)
    def view(request: HttpRequest, slug: str) -> HttpResponse:
        viewer = campaign_viewer(request, slug)
        require_gm(viewer)
        extra: dict[str, Any] = {}
        try:
            turn = turn_expected(campaign=viewer.campaign, posted=request.POST.get(TURN_FIELD))
            done = act(request, turn, extra)
        except StaleTurn as e:  # said at the top: the page below is another turn's now
            context = _page_context(viewer, stale_error=str(e))
            return render(request, TEMPLATE, context, status=400)
        except ServiceError as e:
            context = _page_context(viewer, control_error=str(e), **extra)
            return render(request, TEMPLATE, context, status=400)
        messages.success(request, done)
        return redirect("campaign:detail", slug=viewer.campaign.slug)

    return view


def _bound(form: forms.Form, extra: dict[str, Any], name: str, invalid: str) -> dict[str, Any]:
    """The form's cleaned data; a form with errors stays in `extra` for the page."""
    extra[name] = form
    if not form.is_valid():
        raise ServiceError(invalid)
    return form.cleaned_data


@_control
def turn_deadline(request: HttpRequest, turn: Turn, extra: dict[str, Any]) -> str:
    """Set or clear when orders close."""
    data = _bound(
        DeadlineForm(request.POST),
        extra,
        "deadline_form",
        _("The deadline could not be set: see the form."),
    )
    services.turn_open(turn=turn, deadline=data["deadline"], timezone=data["timezone"])
    return _("The deadline is set.") if data["deadline"] else _("The turn has no deadline now.")


@_control
def turn_battles_deadline(request: HttpRequest, turn: Turn, extra: dict[str, Any]) -> str:
    """Set or clear when the waiting battles' results are due."""
    data = _bound(
        BattlesDeadlineForm(request.POST),
        extra,
        "battles_deadline_form",
        _("The battles deadline could not be set: see the form."),
    )
    services.turn_battles_deadline_set(
        turn=turn, deadline=data["deadline"], timezone=data["timezone"]
    )
    if data["deadline"]:
        return _("The battles deadline is set.")
    return _("The battles have no deadline now.")


@_control
def turn_extend(request: HttpRequest, turn: Turn, extra: dict[str, Any]) -> str:
    data = _bound(
        ExtendForm(request.POST),
        extra,
        "extend_form",
        _("The turn could not be extended: see the form."),
    )
    services.turn_extend(turn=turn, **data)
    return _("The deadline has been extended.")


@_control
def turn_pause(request: HttpRequest, turn: Turn, extra: dict[str, Any]) -> str:
    services.turn_pause(turn=turn)
    return _("The turn is paused: its deadline will not fire.")


@_control
def turn_resume(request: HttpRequest, turn: Turn, extra: dict[str, Any]) -> str:
    services.turn_resume(turn=turn)
    return _("The turn has resumed; the deadline moved on by the time it was paused.")


@_control
def turn_close(request: HttpRequest, turn: Turn, extra: dict[str, Any]) -> str:
    """Close the open turn now, whatever its deadline; its resolution starts."""
    services.turn_close(turn=turn, queue_resolution=True)
    return _("The turn is closed and its resolution has started.")


@_control
def turn_remind(request: HttpRequest, turn: Turn, extra: dict[str, Any]) -> str:
    """Remind the players who have not confirmed their orders, or the one `player` names."""
    assert request.user.is_authenticated  # a GM
    done = services.turn_remind(
        turn=turn, by=request.user, player_key=request.POST.get("player", "")
    )
    return " ".join(services.turn_remind_notes(turn=turn, done=done))


@_control
def turn_advance(request: HttpRequest, turn: Turn, extra: dict[str, Any]) -> str:
    """Move the turn one step on (`services.turn_advance`)."""
    return services.turn_advance(turn=turn)


@_control
def turn_retry(request: HttpRequest, turn: Turn, extra: dict[str, Any]) -> str:
    """Start an interrupted resolution again (`services.turn_retry`)."""
    return services.turn_retry(turn=turn)


@_control
def turn_auto_close(request: HttpRequest, turn: Turn, extra: dict[str, Any]) -> str:
    """Switch the campaign's closing on every confirmation on or off."""
    on = request.POST.get("auto_close") == "on"
    services.turn_auto_close_set(turn=turn, on=on)
    if on:
        return _("The turn now closes and is resolved as soon as every player has confirmed.")
    return _("The turn now closes only when you close it or at its deadline.")
