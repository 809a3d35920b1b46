"""The export download: the whole campaign for the GM, what his side may see for anyone else
(`campaign.exchange.export.campaign_export_for_viewer`)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from campaign.access import campaign_viewer
from campaign.exchange.export import campaign_export_for_viewer, export_json


@never_cache
@require_GET
def export(request: HttpRequest, slug: str) -> HttpResponse:
    """The campaign as JSON: all of it for the GM, what his side may see for anyone else."""
    viewer = campaign_viewer(request, slug)
    data = campaign_export_for_viewer(campaign=viewer.campaign, viewer=viewer)
    response = HttpResponse(export_json(data), content_type="application/json; charset=utf-8")
    who = "full" if viewer.is_gm else (viewer.player.key if viewer.player else viewer.role)
    response["Content-Disposition"] = f'attachment; filename="{slug}-{who}.json"'
    return response
