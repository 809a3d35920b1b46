"""The user's notifications: the list of his notices (newest first, unread ones marked, each
opening its page and counting as read from then), "mark all as read", and a switch per kind
of email (and one for all of them). A user reaches his own notices only."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit, urlunsplit

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from campaign.access import HtmxHttpRequest
from notifications import selectors, services
from notifications.models import NotificationPreference


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def log(request: HtmxHttpRequest) -> HttpResponse:
    """GET (`?page=`): the notices and the switches. POST (`kind`, `enabled` = on/off): turn
    one kind of email on or off; htmx gets the switches back, a plain form the page."""
    user = request.user
    assert user.is_authenticated  # login_required
    if request.method == "POST":
        kind = request.POST.get("kind", "")
        if kind not in dict(NotificationPreference.KINDS):
            return HttpResponseBadRequest(_("Unknown notification kind."))
        services.preference_set(user=user, kind=kind, enabled=request.POST.get("enabled") == "on")
        if not request.htmx:
            return redirect("notifications:log")
    context: dict[str, Any] = {"preferences": selectors.preferences_list_for_user(user=user)}
    if request.htmx:
        return render(request, "notifications/log.html#preferences", context)
    context["page_obj"] = selectors.notifications_page_for_user(
        user=user, page=request.GET.get("page")
    )
    return render(request, "notifications/log.html", context)


def _local(url: str, request: HttpRequest) -> str | None:
    """The site-local part (path, query, fragment) of a notice's link, which is absolute on
    `SITE_URL` (an email's link): this site's page whatever address the link was built on.
    None when it is no safe local page."""
    parts = urlsplit(url)
    if not parts.path.startswith("/"):
        return None
    local = urlunsplit(("", "", parts.path, parts.query, parts.fragment))
    if not url_has_allowed_host_and_scheme(
        local, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return None
    return local


@require_GET
@login_required
def notification_open(request: HttpRequest, pk: int) -> HttpResponse:
    """Open one of the user's notices: it counts as read, and the user goes to its page (the
    list, if it has none)."""
    user = request.user
    assert user.is_authenticated  # login_required
    notification = selectors.notification_get_for_user(user=user, pk=pk)
    services.notification_read(notification=notification)
    target = _local(notification.url, request) if notification.url else None
    return redirect(target or "notifications:log")


@require_POST
@login_required
def notifications_read_all(request: HttpRequest) -> HttpResponse:
    user = request.user
    assert user.is_authenticated  # login_required
    if services.notifications_read_all(user=user):
        messages.success(request, _("Every notification is marked as read."))
    return redirect("notifications:log")
