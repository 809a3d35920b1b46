"""Set-up pages (spec §2): what they share (who may open them, how a refusal is shown), a new
campaign, the options and the start. The map pages are in `map`, sides, armies, invitations
and joining in `players`, rosters in `rosters`.

One view per page and one per POST action; an htmx request gets the page's fragment
(`"page.html#part"`). Every write goes through the `campaign.setup` services, whose refusals
are shown beside the field they concern.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, cast

from django import forms
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from campaign import adapters
from campaign.access import NotAllowed, Viewer, campaign_viewer, require_gm
from campaign.errors import ServiceError, form_errors_add
from campaign.models import Campaign, Membership, Player
from campaign.setup import services as setup
from campaign.setup.forms import NewCampaignForm, OptionsForm
from campaign.setup.options import OPTION_SPECS, OptionSpec, options_update
from campaign.setup.views.roll_panel import Kind, rolls_panel

# --- what every set-up page shares -----------------------------------------------------------


def refusal_show(request: HttpRequest, e: ServiceError, *forms_: forms.Form) -> None:
    """Show a refusal on the bound forms it concerns (each message beside its field), or as a
    message when none is bound (a delete button's refusal)."""
    bound = [f for f in forms_ if f.is_bound]
    if not bound:
        messages.error(request, str(e))
    else:
        form_errors_add(e, *bound)


def bound_data(request: HttpRequest, *, files: bool = False) -> Any:
    """What a page's form is bound to: the POST (its files), empty or not, on a POST; nothing
    on a GET. (`request.POST or None` would leave an empty POST's form unbound: refused with
    no error to show.)"""
    if request.method != "POST":
        return None
    return request.FILES if files else request.POST


def gm_viewer(request: HttpRequest, slug: str, *, setup_only: bool = True) -> Viewer:
    viewer = campaign_viewer(request, slug)
    require_gm(viewer)
    if setup_only:
        require_setup(viewer)
    return viewer


def require_setup(viewer: Viewer) -> None:
    if not viewer.campaign.setup_open:
        raise NotAllowed(_("The set-up of this campaign is closed."))


def page(viewer: Viewer, title: str, **context: Any) -> dict[str, Any]:
    """The context every set-up page starts from."""
    return {"campaign": viewer.campaign, "viewer": viewer, "page_title": title, **context}


def first_step(viewer: Viewer, text: str, step: str = "", link: str = "") -> dict[str, str]:
    """What a set-up page needs done first (setup_base.html shows it above the page), with a
    link to the page `step` (a URL name) that does it, for the GM who may open it."""
    url = reverse(step, args=[viewer.campaign.slug]) if step and viewer.is_gm else ""
    return {"text": text, "url": url, "link": link}


# --- a new campaign --------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def campaign_new(request: HttpRequest) -> HttpResponse:
    """Create a campaign: from scratch (then set it up) or from the Incursion scenario."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    form = NewCampaignForm(bound_data(request), initial={"width": 16, "height": 12, "source": ""})
    status = 200
    if request.method == "POST":
        if form.is_valid():
            d = form.cleaned_data
            try:
                campaign = setup.campaign_create_blank(
                    gm=request.user,
                    slug=d["slug"],
                    name=d["name"],
                    width=d["width"],
                    height=d["height"],
                    fog_of_war=d["fog_of_war"],
                    auto_close=d["auto_close"],
                    scenario=d["source"] or None,
                    description=d["description"],
                    setup=True,  # from a scenario too: players review their rosters first
                )
            except ServiceError as e:
                refusal_show(request, e, form)
            else:
                messages.success(request, _("%(name)s created.") % {"name": campaign.name})
                if campaign.scenario:  # the map and armies are there: invite the players
                    return redirect("campaign:invite", campaign.slug)
                return redirect("campaign:setup-players", campaign.slug)  # the first step
        status = 400
    return render(
        request,
        "campaign/new.html",
        {"form": form, "page_title": _("New campaign")},
        status=status,
    )


# --- the options -----------------------------------------------------------------------------


def setup_options(request: HttpRequest, slug: str) -> HttpResponse:
    """Every campaign option with its rule and a one-line explanation. Members read them; the
    GM changes them while set-up is open."""
    viewer = campaign_viewer(request, slug)
    campaign = viewer.campaign
    options = adapters.options_of(campaign)
    editable = viewer.is_gm and campaign.setup_open
    if request.method == "POST" and not editable:
        require_gm(viewer)
        require_setup(viewer)
    form = OptionsForm(bound_data(request), options=options)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                options_update(campaign=campaign, data=form.cleaned_data)
            except ServiceError as e:
                refusal_show(request, e, form)
            else:
                messages.success(request, _("Options saved."))
                return redirect("campaign:setup-options", campaign.slug)
        status = 400
    rows = []
    for spec in OPTION_SPECS:
        value = getattr(options, spec.name)
        rows.append(
            {
                "spec": spec,
                "field": form[spec.name],
                "value": _option_display(spec, value.value if isinstance(value, Enum) else value),
                "default": _option_display(spec, spec.default),
            }
        )
    context = page(
        viewer,
        _("Options"),
        form=form,
        rows=rows,
        editable=editable,
        rolls=rolls_panel(viewer, (Kind.CLIMATE, Kind.SEASON)),
    )
    return render(request, "campaign/setup_options.html", context, status=status)


def _option_display(spec: OptionSpec, value: Any) -> str:
    if isinstance(value, bool):
        return _("on") if value else _("off")
    if value is None:
        return _("no limit")
    for v, label in spec.choices:
        if v == value:
            return str(label)
    return str(value)


# --- the start -------------------------------------------------------------------------------


def start(request: HttpRequest, slug: str) -> HttpResponse:
    """What still stops the campaign from starting, and the button that starts it."""
    viewer = gm_viewer(request, slug)
    campaign = viewer.campaign
    problems: list[str] = []
    status = 200
    if request.method == "POST":
        try:
            turn = setup.campaign_start(campaign=campaign)
        except ServiceError as e:
            problems = [str(m) for m in e.messages]
            status = 400
        else:
            messages.success(
                request,
                _("%(c)s has started: turn %(n)d is open for orders.")
                % {"c": campaign.name, "n": turn.number},
            )
            return redirect("campaign:detail", campaign.slug)
    else:
        problems = setup.campaign_setup_problems(campaign=campaign)
    players = list(Player.objects.filter(campaign=campaign).select_related("side"))
    points = roster_points(campaign)
    for p in players:
        cast(Any, p).roster_points = points.get(p.key, 0)  # the template reads it beside p
    context = page(
        viewer,
        _("Start the campaign"),
        problems=problems,
        warnings=roster_warnings(players, points),
        players=players,
        unplayed=[p for p in players if not p.memberships.filter(role=Membership.Role.PLAYER)],
        unready=[p for p in players if not p.roster_ready],
    )
    return render(request, "campaign/setup_start.html", context, status=status)


def roster_points(campaign: Campaign) -> dict[str, int]:
    """Army key → the points of its forces as their rosters stand (R2.5)."""
    out: dict[str, int] = {}
    for force in adapters.state_load(campaign=campaign).forces:
        out[force.owner] = out.get(force.owner, 0) + force.points
    return out


def roster_warnings(players: list[Player], points: dict[str, int]) -> list[str]:
    """What does not stop the start but should be looked at: armies whose rosters are under
    (or over) the points agreed for them (§1.1)."""
    out = []
    for p in players:
        have, agreed = points.get(p.key, 0), p.initial_points
        words = {"army": p.name, "have": have, "agreed": agreed}
        if agreed and have < agreed:
            out.append(
                _("The roster of %(army)s totals %(have)d points, below the %(agreed)d agreed.")
                % words
            )
        elif agreed and have > agreed:
            out.append(
                _("The roster of %(army)s totals %(have)d points, above the %(agreed)d agreed.")
                % words
            )
    return out
