"""The export downloads: the whole campaign for the GM, what his side may see for anyone else
(`campaign.exchange.export.campaign_export_for_viewer`); for the GM also the whole campaign
with its photo files, as a .zip (`campaign.exchange.archive`)."""

from __future__ import annotations

import tempfile

from django.http import FileResponse, HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from campaign.access import campaign_viewer, require_gm
from campaign.exchange.archive import archive_write
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


@never_cache
@require_GET
def export_archive(request: HttpRequest, slug: str) -> FileResponse:
    """The whole campaign with its photos, as a .zip: the GM's only."""
    viewer = campaign_viewer(request, slug)
    require_gm(viewer)
    out = tempfile.TemporaryFile()  # noqa: SIM115 - FileResponse closes it once sent
    archive_write(campaign=viewer.campaign, out=out)
    out.seek(0)
    return FileResponse(
        out, as_attachment=True, filename=f"{slug}-full.zip", content_type="application/zip"
    )
