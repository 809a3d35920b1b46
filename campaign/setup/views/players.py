"""Who plays: the sides (alliances) and their armies, the invitation links the GM shares, and
joining a campaign by one. One view per page and one per POST action."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from campaign.access import Viewer
from campaign.errors import ServiceError
from campaign.keys import key_asked
from campaign.models import Invitation, Membership, Player, Side
from campaign.selectors import user_label
from campaign.setup import invitations
from campaign.setup import services as setup
from campaign.setup.forms import InvitationForm, PlayerForm, SideForm
from campaign.setup.views.pages import bound_data, first_step, gm_viewer, page, refusal_show
from campaign.text.labels import FEATURE, in_sentence, label
from rules import RACE_HOLDING_TERRAIN

# the races of R2.3.4 by their rulebook names; rules.race_key reads them back, in either
# language
RACE_NAMES = {
    "dwarves": gettext_lazy("Dwarves"),
    "wood-elves": gettext_lazy("Wood Elves"),
    "goblins": gettext_lazy("Goblins"),
    "orcs": gettext_lazy("Orcs"),
}

PLAYERS_TEMPLATE = "campaign/setup_players.html"

# --- sides and armies ------------------------------------------------------------------------


def _players_page(
    request: HttpRequest,
    viewer: Viewer,
    *,
    side_form: SideForm | None = None,
    player_form: PlayerForm | None = None,
    editing: Player | None = None,
    status: int = 200,
) -> HttpResponse:
    """The sides and armies page, with the forms as the last action left them."""
    campaign = viewer.campaign
    sides = list(Side.objects.filter(campaign=campaign))
    if player_form is None:
        initial = _player_initial(editing) if editing else {"side": sides[0].key if sides else ""}
        player_form = PlayerForm(sides=sides, initial=initial)
    players = Player.objects.filter(campaign=campaign).select_related("side")
    members = {
        m.player_id: user_label(m.user)
        for m in Membership.objects.filter(campaign=campaign, player__isnull=False).select_related(
            "user"
        )
    }
    context = page(
        viewer,
        _("Sides and armies"),
        sides=sides,
        players=[(p, members.get(p.pk, "")) for p in players],
        side_form=side_form or SideForm(prefix="side"),
        player_form=player_form,
        editing=editing,
        races=[
            (
                str(RACE_NAMES.get(race, race)),
                ", ".join(sorted(in_sentence(label(FEATURE, f)) for f in terrain)),
            )
            for race, terrain in RACE_HOLDING_TERRAIN.items()
        ],
    )
    return render(request, PLAYERS_TEMPLATE, context, status=status)


def _player_initial(p: Player) -> dict[str, Any]:
    return {
        "name": p.name,
        "side": p.side.key,
        "race": p.race,
        "colour": p.colour,
        "initial_points": p.initial_points,
        "tribal": p.tribal,
        "light": p.light,
    }


@require_http_methods(["GET", "HEAD"])
def setup_players(request: HttpRequest, slug: str) -> HttpResponse:
    """Sides (alliances) and their armies: name, race, colour, points; `?edit=<army>` opens
    an army in the form."""
    viewer = gm_viewer(request, slug)
    key = key_asked(request.GET.get("edit"))
    editing = (
        Player.objects.filter(campaign=viewer.campaign, key=key).select_related("side").first()
        if key
        else None
    )
    return _players_page(request, viewer, editing=editing)


def _done(request: HttpRequest, viewer: Viewer, message: str) -> HttpResponse:
    messages.success(request, message)
    return redirect("campaign:setup-players", viewer.campaign.slug)


@require_POST
def setup_side_add(request: HttpRequest, slug: str) -> HttpResponse:
    viewer = gm_viewer(request, slug)
    form = SideForm(request.POST, prefix="side")
    if form.is_valid():
        try:
            side = setup.side_create(campaign=viewer.campaign, name=form.cleaned_data["name"])
        except ServiceError as e:
            refusal_show(request, e, form)
        else:
            return _done(request, viewer, _("Side %(name)s created.") % {"name": side.name})
    return _players_page(request, viewer, side_form=form, status=400)


def _refusable(request: HttpRequest, viewer: Viewer, act: Callable[[], str]) -> HttpResponse:
    """A delete button's action: done, or the page again with its refusal as a message."""
    try:
        message = act()
    except ServiceError as e:
        messages.error(request, str(e))
        return _players_page(request, viewer, status=400)
    return _done(request, viewer, message)


@require_POST
def setup_side_delete(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    viewer = gm_viewer(request, slug)
    side = get_object_or_404(Side, campaign=viewer.campaign, key=key)

    def act() -> str:
        setup.side_delete(side=side)
        return _("Side deleted.")

    return _refusable(request, viewer, act)


def _player_save(request: HttpRequest, viewer: Viewer, editing: Player | None) -> HttpResponse:
    """Create an army (`editing` None) or save one from the posted army form."""
    campaign = viewer.campaign
    form = PlayerForm(request.POST, sides=list(Side.objects.filter(campaign=campaign)))
    if form.is_valid():
        d = dict(form.cleaned_data)
        d["side"] = get_object_or_404(Side, campaign=campaign, key=d["side"])
        try:
            if editing is not None:
                setup.player_update(player=editing, **d)
                return _done(request, viewer, _("%(name)s saved.") % {"name": editing.name})
            player = setup.player_create(campaign=campaign, **d)
        except ServiceError as e:
            refusal_show(request, e, form)
        else:
            return _done(request, viewer, _("%(name)s created.") % {"name": player.name})
    return _players_page(request, viewer, player_form=form, editing=editing, status=400)


@require_POST
def setup_player_add(request: HttpRequest, slug: str) -> HttpResponse:
    return _player_save(request, gm_viewer(request, slug), None)


@require_POST
def setup_player_save(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    viewer = gm_viewer(request, slug)
    editing = get_object_or_404(
        Player.objects.select_related("side"), campaign=viewer.campaign, key=key
    )
    return _player_save(request, viewer, editing)


@require_POST
def setup_player_delete(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    viewer = gm_viewer(request, slug)
    player = get_object_or_404(Player, campaign=viewer.campaign, key=key)

    def act() -> str:
        setup.player_delete(player=player)
        return _("Army deleted.")

    return _refusable(request, viewer, act)


# --- invitations -----------------------------------------------------------------------------


@require_http_methods(["GET", "HEAD", "POST"])
def invite(request: HttpRequest, slug: str) -> HttpResponse:
    """Invitation links: each makes its guest a player of an army (or of a new army on a
    side, during set-up), an observer or a co-GM. A POST creates one."""
    viewer = gm_viewer(request, slug, setup_only=False)
    campaign = viewer.campaign
    players = list(Player.objects.filter(campaign=campaign))
    sides = list(Side.objects.filter(campaign=campaign)) if campaign.setup_open else []
    form = InvitationForm(
        bound_data(request),
        players=players,
        sides=sides,
        initial={"role": Membership.Role.PLAYER},
    )
    status = 200
    if request.method == "POST":
        if form.is_valid():
            d = form.cleaned_data
            kind, _sep, key = d["target"].partition(":")
            days = d["expires_in_days"]
            try:
                invitation = invitations.invitation_create(
                    campaign=campaign,
                    role=d["role"],
                    player=next((p for p in players if kind == "player" and p.key == key), None),
                    side=next((s for s in sides if kind == "side" and s.key == key), None),
                    max_uses=d["max_uses"],
                    expires=timezone.now() + timedelta(days=days) if days else None,
                    created_by=viewer.user,
                )
            except ServiceError as e:
                refusal_show(request, e, form)
            else:
                if d["email"]:
                    invitations.invitation_send(invitation=invitation, to=d["email"])
                    messages.success(
                        request,
                        _("Invitation created and sent to %(to)s; its link is also below.")
                        % {"to": d["email"]},
                    )
                else:
                    messages.success(request, _("Invitation created: copy its link below."))
                return redirect("campaign:invite", campaign.slug)
        status = 400
    now = timezone.now()
    rows = [
        {
            "invitation": inv,
            "url": request.build_absolute_uri(reverse("campaign:join", args=[inv.token])),
            "state": _invitation_state(inv, now),
        }
        for inv in campaign.invitations.select_related("player", "side").order_by("-created_at")
    ]
    first = None
    if campaign.setup_open and not players and not sides:
        first = first_step(
            viewer,
            _("A player's invitation names his army or its side: create the sides first."),
            "campaign:setup-players",
            _("Sides and armies"),
        )
    context = page(viewer, _("Invitations"), first=first, form=form, invitations=rows)
    return render(request, "campaign/setup_invite.html", context, status=status)


@require_POST
def invitation_revoke(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    viewer = gm_viewer(request, slug, setup_only=False)
    inv = get_object_or_404(Invitation, campaign=viewer.campaign, pk=pk)
    invitations.invitation_revoke(invitation=inv)
    messages.success(request, _("Invitation withdrawn."))
    return redirect("campaign:invite", viewer.campaign.slug)


def _invitation_state(inv: Invitation, now: datetime) -> str:
    if inv.revoked:
        return _("withdrawn")
    if inv.expires_at is not None and inv.expires_at <= now:
        return _("expired")
    if inv.uses >= inv.max_uses:
        return _("used up")
    return _("open")


# --- joining ---------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def join(request: HttpRequest, token: str) -> HttpResponse:
    """Follow an invitation link: see what it offers, then join. (The URL `campaign:join`
    goes through `accounts.join`, which shows a visitor who is not logged in the same page
    with a sign-up form; this view is the logged-in user's.)"""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    invitation = join_invitation(token)
    refusal: str | None
    if request.method == "POST":
        try:
            membership = invitations.invitation_accept(token=token, user=request.user)
        except ServiceError as e:
            refusal = str(e)
        else:
            messages.success(request, _("Welcome to %(c)s.") % {"c": invitation.campaign.name})
            return redirect(after_join(membership))
        status = 400
    else:
        refusal = invitations.invitation_refusal(invitation=invitation, user=request.user)
        status = 200
    return join_render(request, invitation, refusal=refusal, status=status)


def join_invitation(token: str) -> Invitation:
    return get_object_or_404(
        Invitation.objects.select_related("campaign", "player", "side"), token=token
    )


def join_render(
    request: HttpRequest,
    invitation: Invitation,
    *,
    refusal: str | None,
    status: int = 200,
    **extra: Any,
) -> HttpResponse:
    """The join page: what the invitation offers, and why it cannot be used if it cannot."""
    campaign = invitation.campaign
    context = {
        "campaign": campaign,
        "invitation": invitation,
        "refusal": refusal,
        "page_title": _("Join %(c)s") % {"c": campaign.name},
        **extra,
    }
    return render(request, "campaign/join.html", context, status=status)


def after_join(membership: Membership) -> str:
    """Where a new member starts: during set-up the page he has work on (a player his roster,
    a GM the map) or can read (an observer the options); afterwards the overview."""
    campaign = membership.campaign
    if not campaign.setup_open:
        return reverse("campaign:detail", args=[campaign.slug])
    pages: dict[str, str] = {
        Membership.Role.PLAYER: "campaign:roster",
        Membership.Role.GM: "campaign:setup-map",
    }
    return reverse(pages.get(membership.role, "campaign:setup-options"), args=[campaign.slug])
