"""Campaign pages: one view per page."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from campaign.selectors import campaigns_list_for_user
from campaign.todo import todo_by_campaign_for_user


def home(request: HttpRequest) -> HttpResponse:
    """The front page: the visitor's campaigns, each a link with what he must do there next,
    or a welcome and a way in."""
    campaigns = list(campaigns_list_for_user(user=request.user))
    if campaigns:
        todo = todo_by_campaign_for_user(user=request.user, campaigns=campaigns)  # type: ignore[arg-type]
        for campaign in campaigns:
            campaign.todo = todo.get(campaign.pk, [])  # type: ignore[attr-defined]
    return render(request, "campaign/home.html", {"campaigns": campaigns})
