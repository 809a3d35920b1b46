"""The user's notifications page: the delivery log of what was sent to him, and a switch per
kind of notification (and one for all of them)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from campaign.access import HtmxHttpRequest
from notifications import selectors, services
from notifications.models import NotificationPreference


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def log(request: HtmxHttpRequest) -> HttpResponse:
    """GET: the log and the switches. POST (`kind`, `enabled` = on/off): turn one kind on or
    off; htmx gets the switches back, a plain form the page."""
    user = request.user
    assert user.is_authenticated  # login_required
    if request.method == "POST":
        kind = request.POST.get("kind", "")
        if kind not in dict(NotificationPreference.KINDS):
            return HttpResponseBadRequest("Unknown notification kind.")
        services.preference_set(user=user, kind=kind, enabled=request.POST.get("enabled") == "on")
        if not request.htmx:
            return redirect("notifications:log")
    context = {
        "preferences": selectors.preferences_list_for_user(user=user),
        "notifications": selectors.notifications_list_for_user(user=user),
    }
    if request.htmx:
        return render(request, "notifications/log.html#preferences", context)
    return render(request, "notifications/log.html", context)
