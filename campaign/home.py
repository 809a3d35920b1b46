"""Campaign pages: one view per page."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from campaign.selectors import campaigns_list_for_user


def home(request: HttpRequest) -> HttpResponse:
    """The front page: the visitor's campaigns, or a welcome and a way to log in."""
    campaigns = campaigns_list_for_user(user=request.user)
    return render(request, "campaign/home.html", {"campaigns": campaigns})
