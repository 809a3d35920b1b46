"""Turns `campaign.access.LoginRequired` into a redirect to the login page, so that views can
resolve their viewer in one call, and a campaign still in set-up into its set-up pages."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect

from campaign.access import LoginRequired, viewer_for
from campaign.errors import SetupInProgress


class LoginRequiredRedirect:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(
        self, request: HttpRequest, exception: Exception
    ) -> HttpResponseBase | None:
        if isinstance(exception, LoginRequired):
            return exception.response()
        if isinstance(exception, SetupInProgress):
            campaign = exception.campaign
            viewer = viewer_for(user=request.user, campaign=campaign)
            messages.info(request, str(exception))
            if viewer is not None and viewer.is_gm:
                # the first step the campaign still needs: its armies, else what is left
                has_armies = campaign.players.exists()
                page = "campaign:start" if has_armies else "campaign:setup-players"
            else:
                page = "campaign:roster"
            return redirect(page, campaign.slug)
        return None
