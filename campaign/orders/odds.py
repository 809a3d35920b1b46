"""The odds against a visible enemy force (`campaign:orders-odds`), asked from a force card
of the orders page: the tactical engine's odds of one of the player's forces against an
enemy force his side can see, computed by a Celery task and polled for by the panel."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from battles.selectors import what_if_hash, what_if_input_get, what_if_odds_get
from battles.tasks import what_if_odds_task
from battles.views.odds import odds_rows
from campaign.access import HtmxHttpRequest
from campaign.orders.selectors import square_label
from campaign.orders.views import TEMPLATE, card_or_404, page_context, player_page
from campaign.text.labels import STATUS, WEATHER, features_label, label
from rules import SEEN_CV, SEEN_MIX, RulesError, Status

ODDS_POLLS = 60  # the panel asks once a second: after a minute it stops and says so
ODDS_REQUEUE = 15  # every this many polls the computation is queued again, in case it was lost


def _order_status(value: str) -> Status | None:
    """An order status the player may try the odds with (None: the force as it stands)."""
    try:
        status = Status(value)
    except ValueError:
        return None
    return status if status.is_order else None


def _poll(value: str | None) -> int:
    try:
        return max(0, int(value or 0))
    except ValueError:
        return 0


def _seen_mix() -> str:
    return _(
        "%(infantry)s infantry units to %(missile)s of missiles and %(cavalry)s of cavalry"
    ) % {k.value: n for k, n in SEEN_MIX}


@never_cache
@require_GET
def orders_odds(request: HtmxHttpRequest, slug: str, force_key: str) -> HttpResponse:
    """How one of the player's forces would fare against an enemy force his side can see
    (`enemy`), as it stands or under the order `status`: the tactical engine's odds from 1000
    simulated battles. The enemy is modelled from what the side sees of it (figures and
    status), never from its hidden roster. The odds are computed by a Celery task and cached;
    until they are in, the panel polls this URL (`poll` counts the polls)."""
    viewer, page = player_page(request, slug, force_key)
    card = card_or_404(page, force_key)
    status = _order_status(request.GET.get("status", ""))
    # a hidden enemy force is as unknown here as one that does not exist
    enemy = page.enemy.force(request.GET.get("enemy", ""))
    ctx: dict[str, Any] = {
        "card": card,
        "odds_only": True,
        "engage_card": card.key,
        "engage_status": status,
    }
    error = ""
    if enemy is None:
        error = _("Choose an enemy force your side can see.")
    else:
        try:
            inp = what_if_input_get(state=page.state, force=card.force, enemy=enemy, status=status)
        except RulesError as e:
            error = _("The tactical engine cannot fight this battle: %(why)s") % {"why": e}
    if error:
        ctx["engage_error"] = error
    else:
        assert enemy is not None
        key = what_if_hash(inp=inp)
        odds = what_if_odds_get(campaign=viewer.campaign, input_hash=key)
        poll = _poll(request.GET.get("poll"))
        if odds is None and poll % ODDS_REQUEUE == 0:
            # the view writes nothing, so there is no commit to wait for
            what_if_odds_task.delay(page.turn.pk, key, inp.to_data())
            odds = what_if_odds_get(campaign=viewer.campaign, input_hash=key)  # run eagerly
        params: dict[str, str | int] = {"enemy": enemy.id, "status": status.value if status else ""}
        url = reverse("campaign:orders-odds", args=[slug, card.key])
        ctx |= {
            "enemy": enemy,
            "odds": odds,
            "odds_rows": odds_rows(odds, {"a": card.name, "b": enemy.name or enemy.id})
            if odds
            else [],
            "odds_waiting": odds is None and poll < ODDS_POLLS,
            "odds_poll_url": f"{url}?{urlencode({**params, 'poll': poll + 1})}",
            "odds_retry_url": f"{url}?{urlencode(params)}",
            "engage_status_label": label(STATUS, status or card.status),
            "engage_enemy_status": label(STATUS, enemy.status),
            "engage_terrain": square_label(enemy.square),
            "engage_features": features_label(page.state.map.features_at(enemy.square)),
            "engage_weather": label(WEATHER, page.state.weather),
            "seen_mix": _seen_mix(),
            "seen_cv": SEEN_CV,
        }
    if request.htmx:  # a refusal is shown in the panel, so htmx swaps it in (200)
        return render(request, f"{TEMPLATE}#engage-odds", page_context(viewer, page, **ctx))
    return render(
        request, TEMPLATE, page_context(viewer, page, **ctx), status=400 if error else 200
    )
