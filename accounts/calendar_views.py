"""The private calendar's pages: the feed itself (read by calendar applications, which send no
cookie: the address's token is the key) and the reset of its address on the account page."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from accounts.calendar import calendar_ics, calendar_token, calendar_token_reset, calendar_user

CALENDAR_FIELD = "calendar"  # the token the account page showed ("" for none yet)


@never_cache
@require_GET
def calendar_feed(request: HttpRequest, token: str) -> HttpResponse:
    user = calendar_user(token=token)
    if user is None:
        raise Http404("No such calendar.")
    response = HttpResponse(calendar_ics(user=user), content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = 'inline; filename="deadlines.ics"'
    return response


@login_required
@require_POST
def calendar_reset(request: HttpRequest) -> HttpResponse:
    """Make the calendar's address, or a new one; refused when the page showed another
    address than the current one (reset meanwhile in another tab): that one is shown."""
    user = request.user
    assert isinstance(user, User)  # login_required
    if request.POST.get(CALENDAR_FIELD, "") != (calendar_token(user=user) or ""):
        messages.error(
            request,
            _(
                "Your calendar's address was changed on another page since this one was "
                "shown; nothing was reset. The current address is below."
            ),
        )
    else:
        calendar_token_reset(user=user)
        messages.success(
            request,
            _("Your calendar has a new address; the old one no longer works.")
            if request.POST.get(CALENDAR_FIELD)
            else _("Your calendar is ready: add its address to your calendar application."),
        )
    return redirect(reverse("accounts:profile") + "#calendar")


def calendar_url(request: HttpRequest, user: User) -> str | None:
    """The address of `user`'s feed as this request reaches the site, None before he made one."""
    token = calendar_token(user=user)
    if token is None:
        return None
    return request.build_absolute_uri(reverse("accounts:calendar-feed", args=[token]))
