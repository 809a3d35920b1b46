"""Who is asking: every campaign view resolves the request's user to a `Viewer` first.

Outsiders get a 404 (a campaign's existence is not revealed), anonymous users the login
page. What a viewer may see of the map is decided in `campaign.fog`.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser, User
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponseRedirect
from django.utils.translation import gettext as _
from django_htmx.middleware import HtmxDetails

from campaign.models import Campaign, Membership, Player


class HtmxHttpRequest(HttpRequest):
    """A request that went through `django_htmx.middleware.HtmxMiddleware` (every request
    does, see `config.settings`): views that read `request.htmx` take this type."""

    htmx: HtmxDetails


@dataclass(frozen=True)
class Viewer:
    campaign: Campaign
    user: User
    role: str  # gm / player / observer: powers come from membership only, never is_staff
    player: Player | None  # the army a player controls (an observer may follow one too)

    @property
    def is_gm(self) -> bool:
        return self.role == Membership.Role.GM

    @property
    def is_player(self) -> bool:
        return self.role == Membership.Role.PLAYER and self.player is not None

    @property
    def side_key(self) -> str | None:
        return self.player.side.key if self.player is not None else None

    @property
    def sees_everything(self) -> bool:
        """The GM always; everyone when fog of war is off or the campaign has ended."""
        return self.is_gm or not self.campaign.fog_of_war or bool(self.campaign.ended)

    def can_order_for(self, player: Player) -> bool:
        return self.is_player and self.player is not None and self.player.pk == player.pk


class NotAllowed(PermissionDenied):
    pass


def viewer_for(*, user: User | AnonymousUser, campaign: Campaign) -> Viewer | None:
    """The viewer, or None for a user with no business in this campaign."""
    if not user.is_authenticated:
        return None
    m = (
        Membership.objects.filter(campaign=campaign, user=user)
        .select_related("player__side")
        .first()
    )
    if m is None:  # staff and superusers too: the admin is theirs, a campaign is its members'
        return None
    return Viewer(campaign, user, m.role, m.player)


def campaign_viewer(request: HttpRequest, slug: str) -> Viewer:
    """Resolve `slug` for the request's user: 404 for unknown campaigns and outsiders."""
    if not request.user.is_authenticated:
        raise LoginRequired(request)
    campaign = Campaign.objects.filter(slug=slug).first()
    if campaign is None:
        raise Http404("No such campaign.")
    viewer = viewer_for(user=request.user, campaign=campaign)
    if viewer is None:
        raise Http404("No such campaign.")
    return viewer


def require_gm(viewer: Viewer) -> None:
    if not viewer.is_gm:
        raise NotAllowed(_("Only the game master can do this."))


def require_player(viewer: Viewer) -> Player:
    if not viewer.is_player or viewer.player is None:
        raise NotAllowed(_("Only a player of this campaign can do this."))
    return viewer.player


class LoginRequired(Exception):
    """Raised by `campaign_viewer`; `LoginRequiredMiddleware`-like handling in
    `campaign.middleware` turns it into a redirect to the login page."""

    def __init__(self, request: HttpRequest) -> None:
        self.request = request
        super().__init__("login required")

    def response(self) -> HttpResponseRedirect:
        return redirect_to_login(self.request.get_full_path())
