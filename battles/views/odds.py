"""The tactical engine's odds of one battle (`battles:odds`): P(win), P(stalemate), P(loss)
and the expected losses per side, from 1000 simulated fights.

The odds are computed by a Celery task (`battles.tasks.battle_odds_task`) and cached on the
battle per version of its pack and rosters. The pack, result and report pages include the
panel; while the odds are missing or stale the panel enqueues the task and polls this URL
through htmx until they are in. Who sees the odds is who sees the battle (the pack's rule:
under fog of war the GM and the players whose side fights it).
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from battles.models import Battle
from battles.packs import battle_get_for_viewer
from battles.roster import Roster, battle_roster_get
from battles.selectors import battle_odds_get
from battles.tasks import battle_odds_task
from campaign.access import HtmxHttpRequest, Viewer, campaign_viewer
from config.celery import enqueue_on_commit

PANEL = "battles/odds_panel.html"
LOSSES = ("killed", "fled", "left_oppose", "left_retreat", "points")


def odds_rows(odds: dict[str, Any], names: dict[str, str]) -> list[dict[str, Any]]:
    """The odds table's rows, side a then side b (`names`: each side's name by key), in
    percent, with the expected losses in the order of `LOSSES`."""
    rows = []
    for key in ("a", "b"):
        side = (odds.get("sides") or {}).get(key) or {}
        losses = side.get("expected_losses") or {}
        rows.append(
            {
                "name": names.get(key, key),
                "win": side.get("win", 0.0) * 100,
                "stalemate": side.get("stalemate", 0.0) * 100,
                "loss": side.get("loss", 0.0) * 100,
                "losses": [losses.get(k, 0.0) for k in LOSSES],
            }
        )
    return rows


def odds_context(
    viewer: Viewer, battle: Battle, *, predicted: bool = False, roster: Roster | None = None
) -> dict[str, Any]:
    """The panel's context; enqueues the computation when the odds are missing or stale.
    `predicted`: shown beside a result already entered ("what the engine would have
    predicted"); `roster`: the battle's, when the page has read it already."""
    odds = battle_odds_get(battle=battle, roster=roster)
    if odds is None:
        enqueue_on_commit(battle_odds_task, battle.pk)
    rows = []
    if odds is not None:
        roster = roster or battle_roster_get(battle=battle)
        names = {s.key: s.name for s in roster.sides}
        rows = odds_rows(odds, names)
    url = reverse("battles:odds", args=[viewer.campaign.slug, battle.key])
    return {
        "odds": odds,
        "odds_rows": rows,
        "odds_url": f"{url}?predicted=1" if predicted else url,
        "odds_predicted": predicted,
    }


@never_cache
@require_GET
def odds(request: HtmxHttpRequest, slug: str, key: str) -> HttpResponse:
    """The odds panel (htmx) or a page with it."""
    viewer = campaign_viewer(request, slug)
    battle = battle_get_for_viewer(viewer=viewer, key=key)
    if battle is None:
        raise Http404("No such battle.")
    context = {
        "campaign": viewer.campaign,
        "viewer": viewer,
        "battle": battle,
        **odds_context(viewer, battle, predicted=request.GET.get("predicted") == "1"),
    }
    if request.htmx:
        return render(request, PANEL, context)
    return render(request, "battles/odds.html", context)
