"""The campaign's battle history and the report of each battle.

`history` lists every battle the viewer may see (`campaign.fog`: under fog of war a player
lists only his side's battles, an observer those of the side he follows; without fog, or
once the campaign has ended, everyone lists all of them); `?turn=` keeps one turn, and an
htmx request gets the list alone. `detail` is a battle's report: its pack, the entered
result, the recovery dice and the consequences. While Phases 4–8 are being resolved the
report polls for them, and htmx stops once they are in.
"""

from __future__ import annotations

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from django_htmx.http import HTMX_STOP_POLLING

from battles.history import battle_report_get, battle_turns_list_for_viewer, battles_list_for_viewer
from battles.models import Battle
from battles.packs import battle_get_for_viewer
from battles.views.odds import odds_context
from battles.views.pack import result_url
from campaign.access import HtmxHttpRequest, campaign_viewer


@never_cache
@require_GET
def history(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    viewer = campaign_viewer(request, slug)
    turns = battle_turns_list_for_viewer(viewer=viewer)
    raw = request.GET.get("turn", "")
    turn = int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 9 else None
    context = {
        "campaign": viewer.campaign,
        "viewer": viewer,
        "rows": battles_list_for_viewer(viewer=viewer, turn_number=turn),
        "turns": turns,
        "turn": turn,
    }
    if request.htmx:
        return render(request, "battles/history.html#battle-list", context)
    return render(request, "battles/history.html", context)


@never_cache
@require_GET
def detail(request: HtmxHttpRequest, slug: str, key: str) -> HttpResponse:
    viewer = campaign_viewer(request, slug)
    battle = battle_get_for_viewer(viewer=viewer, key=key)
    if battle is None:
        raise Http404("No such battle.")
    report = battle_report_get(battle=battle, viewer=viewer)
    context = {
        "campaign": viewer.campaign,
        "viewer": viewer,
        "battle": battle,
        "report": report,
        "sheet": report.sheet,
        "result_url": result_url(viewer, battle),
        "polling": report.resolving,
    }
    if request.htmx:
        response = render(request, "battles/report.html#after-battle", context)
        if not report.resolving:
            response.status_code = HTMX_STOP_POLLING
        return response
    if battle.status == Battle.Status.RESOLVED and battle.resolver == Battle.Resolver.TABLETOP:
        context |= odds_context(viewer, battle, predicted=True)  # beside the tabletop result
    return render(request, "battles/report.html", context)
