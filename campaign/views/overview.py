"""The campaign overview: the turn's state machine for everyone, the GM's turn controls, and the
live turn panel that the page polls while the turn is being closed or resolved."""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods
from django_htmx.http import HTMX_STOP_POLLING

from battles.models import Battle
from campaign import services_turn
from campaign.access import Viewer, campaign_viewer, require_gm
from campaign.models import Orders, Turn
from campaign.services import ServiceError, turn_current

# --- the GM's forms --------------------------------------------------------------------------


class WallClockField(forms.DateTimeField):
    """A date and time as the GM's clock shows it, read in the time zone chosen beside it
    (not the server's): the service makes it aware."""

    widget = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")

    def to_python(self, value: Any) -> datetime | None:
        if value in self.empty_values:
            return None
        if isinstance(value, datetime):
            return value
        try:
            return datetime.fromisoformat(str(value).strip())
        except ValueError:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid") from None


class DeadlineForm(forms.Form):
    deadline = WallClockField(
        label=gettext_lazy("Deadline"),
        required=False,
        help_text=gettext_lazy("Leave it empty for no deadline: you will close the turn."),
    )
    timezone = forms.ChoiceField(label=gettext_lazy("Time zone"))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["timezone"].choices = [(z, z) for z in services_turn.timezones()]


class BattlesDeadlineForm(DeadlineForm):
    """When the results of the waiting battles are due."""

    deadline = WallClockField(
        label=gettext_lazy("Results due by"),
        required=False,
        help_text=gettext_lazy(
            "Leave it empty for no deadline. At the deadline, the battles you marked "
            "“auto-resolve at the deadline” that still have no result are fought by the "
            "tactical engine; the others keep waiting."
        ),
    )


class ExtendForm(forms.Form):
    days = forms.IntegerField(label=gettext_lazy("Days"), min_value=0, max_value=7, initial=1)
    hours = forms.IntegerField(label=gettext_lazy("Hours"), min_value=0, max_value=23, initial=0)


def _deadline_initial(turn: Turn, deadline: datetime | None) -> dict[str, Any]:
    initial: dict[str, Any] = {"timezone": turn.timezone}
    if deadline is not None:
        try:
            zone = zoneinfo.ZoneInfo(turn.timezone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            zone = UTC
        initial["deadline"] = deadline.astimezone(zone).replace(tzinfo=None)
    return initial


# --- what the page shows ---------------------------------------------------------------------


def _steps(turn: Turn) -> list[dict[str, str]]:
    labels = dict(Turn.Status.choices)
    labels[Turn.Status.RESOLVED] = _("Resolved: the next turn opens")
    order = list(Turn.Status.values)
    now = order.index(turn.status)
    return [
        {
            "status": s,
            "label": labels[s],
            "state": "done" if i < now else "current" if i == now else "todo",
        }
        for i, s in enumerate(order)
    ]


def _context(viewer: Viewer, **extra: Any) -> dict[str, Any]:
    campaign = viewer.campaign
    turn = turn_current(campaign=campaign)
    battles = list(Battle.objects.filter(turn=turn).values_list("status", flat=True))
    pending = sum(1 for s in battles if s == Battle.Status.PENDING)
    # a turn without battles goes on to Phases 4–8 by itself: keep watching it
    polling = turn.status in services_turn.BUSY or (
        turn.status == Turn.Status.BATTLES and not pending
    )
    previous = (
        campaign.turns.filter(number__lt=turn.number, status=Turn.Status.RESOLVED)
        .order_by("-number")
        .first()
    )
    context: dict[str, Any] = {
        "campaign": campaign,
        "viewer": viewer,
        "turn": turn,
        "steps": _steps(turn),
        "polling": polling,
        "battles_total": len(battles),
        "battles_pending": pending,
        "previous": previous,
        "seed_revealed": turn.status == Turn.Status.RESOLVED,
    }
    if viewer.is_player and viewer.player is not None:
        mine = Orders.objects.filter(turn=turn, player=viewer.player).first()
        context["my_orders"] = mine.status if mine else "none"
    if viewer.is_gm:
        context["orders_states"] = services_turn.orders_states_list_for_gm(turn=turn)
        context["deadline_form"] = DeadlineForm(initial=_deadline_initial(turn, turn.deadline))
        context["battles_deadline_form"] = BattlesDeadlineForm(
            initial=_deadline_initial(turn, turn.battles_deadline)
        )
        context["battles_auto"] = Battle.objects.filter(
            turn=turn, status=Battle.Status.PENDING, auto_at_deadline=True
        ).count()
        context["extend_form"] = ExtendForm()
        context["max_extensions"] = services_turn.MAX_EXTENSIONS
    context.update(extra)
    return context


# --- the pages -------------------------------------------------------------------------------


@require_http_methods(["GET", "HEAD", "POST"])
def detail(request: HttpRequest, slug: str) -> HttpResponse:
    """The overview. A POST is one of the GM's turn controls (field `action`); it redirects
    back on success and shows the page again with the refusal otherwise."""
    viewer = campaign_viewer(request, slug)
    if request.method == "POST":
        require_gm(viewer)
        return _control(request, viewer)
    return render(request, "campaign/detail.html", _context(viewer))


@require_GET
def turn_status(request: HttpRequest, slug: str) -> HttpResponse:
    """The live turn panel. htmx polls it while the turn is busy; once the turn has settled
    the answer is 286, which tells htmx to stop (the panel it carries no longer polls)."""
    viewer = campaign_viewer(request, slug)
    context = _context(viewer)
    response = render(request, "campaign/detail.html#turn-panel", context)
    if request.htmx and not context["polling"]:
        response.status_code = HTMX_STOP_POLLING
    return response


@dataclass(frozen=True)
class Deadline:
    """One of the GM's deadline forms: the form, its context name, the service that sets it,
    and what the GM is told (refused, set, cleared)."""

    form: type[DeadlineForm]
    name: str
    service: Callable[..., Turn]
    invalid: Any
    set: Any
    cleared: Any


DEADLINES = {
    "deadline": Deadline(
        DeadlineForm,
        "deadline_form",
        services_turn.turn_open,
        gettext_lazy("The deadline could not be set: see the form."),
        gettext_lazy("The deadline is set."),
        gettext_lazy("The turn has no deadline now."),
    ),
    "battles-deadline": Deadline(
        BattlesDeadlineForm,
        "battles_deadline_form",
        services_turn.turn_battles_deadline_set,
        gettext_lazy("The battles deadline could not be set: see the form."),
        gettext_lazy("The battles deadline is set."),
        gettext_lazy("The battles have no deadline now."),
    ),
}


def _deadline_set(request: HttpRequest, turn: Turn, what: Deadline, extra: dict) -> str:
    form = what.form(request.POST)
    extra[what.name] = form
    if not form.is_valid():
        raise ServiceError(str(what.invalid))
    deadline = form.cleaned_data["deadline"]
    what.service(turn=turn, deadline=deadline, timezone=form.cleaned_data["timezone"])
    return str(what.set if deadline else what.cleared)


def _control(request: HttpRequest, viewer: Viewer) -> HttpResponse:
    turn = turn_current(campaign=viewer.campaign)
    action = request.POST.get("action", "")
    extra: dict[str, Any] = {}
    try:
        if action in DEADLINES:
            done = _deadline_set(request, turn, DEADLINES[action], extra)
        elif action == "extend":
            form = ExtendForm(request.POST)
            extra["extend_form"] = form
            if not form.is_valid():
                raise ServiceError(_("The turn could not be extended: see the form."))
            services_turn.turn_extend(turn=turn, **form.cleaned_data)
            done = _("The deadline has been extended.")
        elif action == "pause":
            services_turn.turn_pause(turn=turn)
            done = _("The turn is paused: its deadline will not fire.")
        elif action == "resume":
            services_turn.turn_resume(turn=turn)
            done = _("The turn has resumed; the deadline moved on by the time it was paused.")
        elif action == "close":
            services_turn.turn_close_by_gm(turn=turn)
            done = _("The turn is closed and its resolution has started.")
        elif action == "advance":
            done = services_turn.turn_advance(turn=turn)
        else:
            raise ServiceError(_("Unknown action."))
    except ServiceError as e:
        context = _context(viewer, control_error=str(e), control_action=action, **extra)
        return render(request, "campaign/detail.html", context, status=400)
    messages.success(request, done)
    return redirect("campaign:detail", slug=viewer.campaign.slug)
