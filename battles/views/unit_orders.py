"""The unit-orders calculators of a battle (`battles:unit-orders`, §10): for each side that may
use the method, the command test (R10.3) and the unit order test (R10.2) on the die rolled at
the table. Reads only: a GET with the form's values; an htmx request gets the answer alone."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from battles.packs import battle_get_for_viewer, pack_sheet_get
from battles.unit_orders import (
    CommandTestForm,
    UnitOrderTestForm,
    command_answer,
    eligibilities,
    unit_order_answer,
)
from campaign import adapters
from campaign.access import HtmxHttpRequest, campaign_viewer

TESTS = {
    "command": (CommandTestForm, command_answer),
    "unit": (UnitOrderTestForm, unit_order_answer),
}


@never_cache
@require_GET
def unit_orders(request: HtmxHttpRequest, slug: str, key: str) -> HttpResponse:
    viewer = campaign_viewer(request, slug)
    battle = battle_get_for_viewer(viewer=viewer, key=key)
    if battle is None:
        raise Http404("No such battle.")
    sheet = pack_sheet_get(battle=battle)
    sides = eligibilities(sheet, adapters.options_of(viewer.campaign))
    asked = request.GET.get("test", "")
    side_asked = request.GET.get("side", "")
    panels: list[dict[str, Any]] = []
    answer_panel: dict[str, Any] | None = None
    for e in sides:
        panel: dict[str, Any] = {"e": e, "forms": []}
        for test, (form_class, answer) in TESTS.items():
            mine = asked == test and side_asked == e.side.letter
            initial = {"side": e.side.letter, "leader_cv": e.leader_cv}
            form = form_class(request.GET if mine else None, initial=initial)
            item: dict[str, Any] = {
                "test": test,
                "side": e.side.letter,
                "form": form,
                "answer": None,
            }
            if mine and e.allowed and form.is_valid():
                item["answer"] = answer(form.cleaned_data)
            if mine:
                answer_panel = item
            panel["forms"].append(item)
        panels.append(panel)
    context = {
        "campaign": viewer.campaign,
        "viewer": viewer,
        "battle": battle,
        "sheet": sheet,
        "panels": panels,
    }
    if request.htmx and answer_panel is not None:
        return render(request, "battles/unit_orders.html#calc", context | {"item": answer_panel})
    return render(request, "battles/unit_orders.html", context)
