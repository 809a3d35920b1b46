"""The campaign map: the page (server-rendered SVG) and the same data as JSON.

What a viewer sees is decided in `campaign.map.build` (fog of war through `campaign.fog`);
both views serve that one model, so the page and the JSON can never
disagree about what is hidden. Neither is cached anywhere: each answer belongs to one viewer.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.gzip import gzip_page
from django.views.decorators.http import require_GET

from campaign.access import HtmxHttpRequest, campaign_viewer
from campaign.map.build import map_model_for


@never_cache
@require_GET
def map_page(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """The map with its legend; an htmx request (the refresh link) gets only the map panel.
    The lists that repeat the map in words come with `?lists=1` (the part alone for htmx,
    when they are opened): most visits never open them, and they cost a row per force."""
    viewer = campaign_viewer(request, slug)
    lists = request.GET.get("lists") == "1"
    context = {
        "campaign": viewer.campaign,
        "viewer": viewer,
        "map": map_model_for(viewer=viewer),
        "lists": lists,
    }
    if request.htmx:
        template = "campaign/map.html#map-lists-body" if lists else "campaign/map.html#map-panel"
    else:
        template = "campaign/map.html"
    return render(request, template, context)


@never_cache
@require_GET
@gzip_page  # 4,096 squares: ~310 KB of JSON at 240 forces, ~40 KB sent; it holds no secret
def map_json(request: HttpRequest, slug: str) -> JsonResponse:
    """The map as the viewer may see it, for download or scripts (the page's data)."""
    viewer = campaign_viewer(request, slug)
    response = JsonResponse(map_model_for(viewer=viewer).as_json())
    response["Content-Disposition"] = f'inline; filename="{viewer.campaign.slug}-map.json"'
    return response
