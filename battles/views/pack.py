"""The battle pack on screen and on paper.

`pack` shows one battle's pack to the viewers who may see the battle (`campaign.fog`:
the GM, the players of its two sides; under fog of war nobody else). `pack_print` puts every
pending battle of the current turn the viewer may see on paper, one A4 sheet each
(static/css/battles.css holds the print rules).
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from battles.models import Battle
from battles.packs import (
    battle_get_for_viewer,
    battles_pending_list_for_viewer,
    pack_sheet_get,
    pack_sheets_list,
)
from battles.roster import battle_roster_get
from battles.views.odds import odds_context
from campaign import adapters
from campaign.access import HtmxHttpRequest, Viewer, campaign_viewer


def result_url(viewer: Viewer, battle: Battle) -> str:
    """The result-entry page of a pending battle, for those who may enter or settle it; of a
    battle of a resolved turn, for the GM, who may amend its result there."""
    if battle.status != Battle.Status.PENDING:
        amendable = viewer.is_gm and battle.result is not None and battle.turn.resolved
        return (
            reverse("battles:result", args=[viewer.campaign.slug, battle.key]) if amendable else ""
        )
    fought = {p for s in (battle.pack or {}).get("sides", []) for p in s.get("players", [])}
    player = viewer.player.key if viewer.is_player and viewer.player is not None else None
    if not (viewer.is_gm or player in fought):  # the players who fought it enter its result
        return ""
    return reverse("battles:result", args=[viewer.campaign.slug, battle.key])


@never_cache
@require_GET
def pack(request: HtmxHttpRequest, slug: str, key: str) -> HttpResponse:
    """One battle's pack; an htmx request gets the sheet alone."""
    viewer = campaign_viewer(request, slug)
    battle = battle_get_for_viewer(viewer=viewer, key=key)
    if battle is None:
        raise Http404("No such battle.")
    state = adapters.battle_state_get(battle=battle)  # read once: the sheet and the odds
    context = {
        "campaign": viewer.campaign,
        "viewer": viewer,
        "battle": battle,
        "sheet": pack_sheet_get(battle=battle, state=state),
        "result_url": result_url(viewer, battle),
    }
    if request.htmx:
        return render(request, "battles/pack.html#pack-sheet", context)
    context |= odds_context(viewer, battle, roster=battle_roster_get(battle=battle, state=state))
    return render(request, "battles/pack.html", context)


@never_cache
@require_GET
def pack_print(request: HttpRequest, slug: str) -> HttpResponse:
    """Every pending battle of the current turn the viewer may see, one sheet each."""
    viewer = campaign_viewer(request, slug)
    battles = battles_pending_list_for_viewer(viewer=viewer)
    context = {
        "campaign": viewer.campaign,
        "viewer": viewer,
        "sheets": pack_sheets_list(battles=battles),
    }
    return render(request, "battles/pack_print.html", context)
