"""The reinforcements page (`campaign:reinforcements`, §9.3): a player spends his bank.

It shows his bank, his capital (or why it cannot send anything, R9.3.1), when reinforcements
are next due, his roster's unit types, generals and characters with their prices, and his
standing requests in buying order. A POST of the form adds a request (checked first: Elite
troops, figures, R9.3.5 characters ≤ units); `-remove` and `-move` take one out or move it up
or down. Plain form POSTs that redirect back with a message, so everything works without
JavaScript. Every form names the turn it was rendered for (`turn`), and remove and move the
version of the list they number (`base`): a form of a stale page (another turn, a list
changed since in another tab) is refused with the page as it stands now (409).

The requests are part of this turn's orders, bought in Phase 7 while the bank covers the
next one (R9.3.8); those not bought stand in the next turn's orders
(`services.reinforcement_requests_carry`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from campaign.access import Viewer, campaign_viewer, require_player
from campaign.errors import ServiceError, StaleTurn, TurnNotOpen
from campaign.models import Turn
from campaign.orders.reinforcement_catalogue import (
    Catalogue,
    capital_of,
    catalogue_get,
    forces_in_capital,
    next_reinforcement_day,
    request_rows,
)
from campaign.orders.selectors import OrdersPage, orders_page_get_for_player
from campaign.orders.services import (
    InvalidOrders,
    OrdersChanged,
    OrdersSaved,
    reinforcement_add,
    reinforcement_move,
    reinforcement_remove,
)
from campaign.selectors import TURN_FIELD, turn_current, turn_expected
from campaign.text.labels import STATUS, label
from campaign.text_input import text_problem
from rules import (
    Individual,
    ReinforcementRequest,
    Status,
    Unit,
    reinforcement_request_problems,
)

TEMPLATE = "campaign/reinforcements.html"
NEW_FORCE_ORDERS = (Status.DEFEND, Status.PROBE, Status.FULL_SPEED)  # R9.3.4 under an order
MAX_FIGURES = 1000  # a sanity bound on one unit of a request

# the rules' problem codes (`rules.reinforcement_request_problems`) in the player's words
PROBLEMS = {
    "empty": gettext_lazy("Choose at least one unit, general or character to buy."),
    "elite": gettext_lazy(
        "Elite troops cannot be sent as reinforcements: only Levy, Average or Veteran (R9.3.2)."
    ),
    "no-figures": gettext_lazy("Every unit needs at least one figure."),
    "general-alone": gettext_lazy(
        "A general comes with at least one unit to command: choose his units too."
    ),
    "cv-out-of-range": gettext_lazy("That general's command value is out of range."),
    "negative-points": gettext_lazy("Points cannot be negative."),
    "status": gettext_lazy(
        "A new force starts under an order: Defend, Probe or Full Speed (R9.3.4)."
    ),
}


@dataclass(frozen=True)
class Composed:
    request: ReinforcementRequest | None
    errors: list[str]


def _page(request: HttpRequest, slug: str) -> tuple[Viewer, OrdersPage, Catalogue]:
    viewer = campaign_viewer(request, slug)
    require_player(viewer)
    page = orders_page_get_for_player(viewer=viewer, turn=turn_current(campaign=viewer.campaign))
    catalogue = catalogue_get(
        campaign=viewer.campaign, state=page.state, player_key=page.player.key
    )
    return viewer, page, catalogue


def _count(data: Any, name: str, errors: list[str], what: str) -> int:
    raw = str(data.get(name, "") or "").strip()
    if not raw:
        return 0
    try:
        n = int(raw)
    except ValueError:
        errors.append(_("%(what)s: write a whole number.") % {"what": what})
        return 0
    if n < 0 or n > MAX_FIGURES:
        errors.append(
            _("%(what)s: a number from 0 to %(max)s.") % {"what": what, "max": MAX_FIGURES}
        )
        return 0
    return n


def _text(data: Any, name: str, errors: list[str]) -> str:
    """A name typed in the form, cut to 100 characters; what no database can store refused
    (these go into the orders' JSONB, not through a form field)."""
    raw = str(data.get(name, "") or "")
    problem = text_problem(raw)
    if problem is not None:
        errors.append(problem)
        return ""
    return raw.strip()[:100]


def compose(data: Any, catalogue: Catalogue, page: OrdersPage) -> Composed:
    """The request the form describes, priced from the catalogue, or what is wrong with it."""
    errors: list[str] = []
    known = {t.key for t in (*catalogue.units, *catalogue.elite)}
    for name in data:
        if name.startswith("figures_") and name.removeprefix("figures_") not in known:
            errors.append(_("There is no such unit type in your roster."))
        if name.startswith("count_") and catalogue.character(name.removeprefix("count_")) is None:
            errors.append(_("There is no such character in your roster."))
    units: list[Unit] = []
    for t in (*catalogue.units, *catalogue.elite):
        n = _count(data, f"figures_{t.key}", errors, t.unit.type)
        if n:
            units.append(replace(t.unit, id=f"u{len(units) + 1}", figures=n))
    individuals: list[Individual] = []
    for c in catalogue.characters:
        for _n in range(_count(data, f"count_{c.key}", errors, c.label)):
            individuals.append(replace(c.individual, id=f"i{len(individuals) + 1}"))
    general = None
    gkey = str(data.get("general", "") or "")
    if gkey:
        g = catalogue.general(gkey)
        if g is None:
            errors.append(_("There is no such general in your roster."))
        else:
            name = _text(data, "general_name", errors)
            general = replace(g.general, id="g1", name=name)
    join = str(data.get("join", "") or "")
    if join and page.card(join) is None:
        errors.append(_("You command no such force."))
    status = str(data.get("status", "") or Status.DEFEND.value)
    if status not in {s.value for s in NEW_FORCE_ORDERS}:
        errors.append(str(PROBLEMS["status"]))
        status = Status.DEFEND.value
    req = ReinforcementRequest(
        units=tuple(units),
        general=general,
        individuals=tuple(individuals),
        status=Status(status),
        name=_text(data, "name", errors),
        join=join,
    )
    errors += [
        str(PROBLEMS.get(code, reason)) for code, _r, reason in reinforcement_request_problems(req)
    ]
    errors += _room_problems(req, page)
    return Composed(None if errors else req, list(dict.fromkeys(errors)))


def _room_problems(req: ReinforcementRequest, page: OrdersPage) -> list[str]:
    """R9.3.5 against the force they would join today (the chosen one, else the first of his
    side in the capital), or against the request alone if it forms a new force."""
    capital, _why = capital_of(page.state, page.player.key)
    here = forces_in_capital(page.state, page.player.key, capital)
    host = next((f for f in here if f.id == req.join), here[0] if here else None)
    units = len(req.units) + (len(host.units) if host else 0)
    characters = len(req.individuals) + (len(host.individuals) if host else 0)
    if characters > units:
        return [
            _(
                "Too many characters: a force may have no more individual characters than "
                "units (R9.3.5)."
            )
        ]
    return []


def _context(
    viewer: Viewer, page: OrdersPage, catalogue: Catalogue, data: Any, **extra: Any
) -> dict[str, Any]:
    state, key = page.state, page.player.key
    capital, capital_problem = capital_of(state, key)
    day = next_reinforcement_day(state, key)
    return {
        "campaign": viewer.campaign,
        "viewer": viewer,
        "page": page,
        "catalogue": catalogue,
        "data": data,  # the form as he filled it, after a refusal
        "unit_rows": [(t, data.get(f"figures_{t.key}", "")) for t in catalogue.units],
        "character_rows": [(c, data.get(f"count_{c.key}", "")) for c in catalogue.characters],
        "bank": state.bank.get(key, 0),
        "capital": capital,
        "capital_problem": capital_problem,
        "in_capital": forces_in_capital(state, key, capital),
        "next_day": day,
        "due_this_turn": day == state.turn,
        "rows": request_rows(state, key, page.orders, capital),
        "total": sum(r.cost for r in page.orders.reinforcements),
        "orders": [(s.value, label(STATUS, s)) for s in NEW_FORCE_ORDERS],
        **extra,
    }


def _back(viewer: Viewer) -> HttpResponseRedirect:
    return HttpResponseRedirect(reverse("campaign:reinforcements", args=(viewer.campaign.slug,)))


def _saved_message(request: HttpRequest, saved: OrdersSaved, done: str) -> None:
    if saved.was_confirmed:
        done += " " + _(
            "Your orders were confirmed: this change set them back to saved. Confirm them "
            "again on the orders page when you are done."
        )
    messages.success(request, done)


def _refused(
    request: HttpRequest,
    viewer: Viewer,
    page: OrdersPage,
    catalogue: Catalogue,
    message: str,
    data: Any = None,
) -> HttpResponse:
    """Nothing was done: the page again as it stands now, saying why (409); `data`: the new
    request's form as he filled it, to send again if he still wants it."""
    ctx = _context(viewer, page, catalogue, data if data is not None else {}, refused=message)
    return render(request, TEMPLATE, ctx, status=409)


def _not_now(request: HttpRequest, viewer: Viewer, page: OrdersPage) -> str | None:
    """Why no form may change the requests now, before anything is done: the page was for
    another turn (a second tab, the Back button, a form posted twice), or the turn no longer
    takes orders."""
    try:
        turn_expected(campaign=viewer.campaign, posted=request.POST.get(TURN_FIELD))
    except StaleTurn as e:
        return str(e)
    if not page.editable:
        return _("Your orders can no longer be changed this turn.")
    return None


def _write(
    request: HttpRequest,
    viewer: Viewer,
    page: OrdersPage,
    catalogue: Catalogue,
    act: Callable[[], OrdersSaved],
    done: str,
) -> HttpResponse:
    if (why := _not_now(request, viewer, page)) is not None:
        return _refused(request, viewer, page, catalogue, why)
    try:
        saved = act()
    except TurnNotOpen:
        turn = Turn.objects.get(pk=page.turn.pk)  # closed meanwhile: the page without forms
        page = orders_page_get_for_player(viewer=viewer, turn=turn, state=page.state)
        why = _("The turn is no longer open: nothing was changed. Your saved requests are kept.")
        return _refused(request, viewer, page, catalogue, why)
    except OrdersChanged:
        page = orders_page_get_for_player(viewer=viewer, turn=page.turn, state=page.state)
        why = _(
            "Nothing was changed: your requests were changed in another tab or window after "
            "this page showed them. Here they are as they stand now."
        )
        return _refused(request, viewer, page, catalogue, why)
    except InvalidOrders as e:
        messages.error(request, _("Your orders could not be saved: %(why)s") % {"why": e})
    except ServiceError:
        messages.error(request, _("That request is no longer in your list: nothing was changed."))
    else:
        _saved_message(request, saved, done)
    return _back(viewer)


@require_http_methods(["GET", "POST"])
def reinforcements(request: HttpRequest, slug: str) -> HttpResponse:
    """GET the page; POST the form to add a request at the end of the list."""
    viewer, page, catalogue = _page(request, slug)
    if request.method == "GET":
        return render(request, TEMPLATE, _context(viewer, page, catalogue, {}))
    if (why := _not_now(request, viewer, page)) is not None:  # his form kept, to send again
        return _refused(request, viewer, page, catalogue, why, request.POST)
    composed = compose(request.POST, catalogue, page)
    if composed.request is None:  # the form again, as he filled it, with what is wrong
        ctx = _context(viewer, page, catalogue, request.POST, errors=composed.errors)
        return render(request, TEMPLATE, ctx, status=400)
    req = composed.request
    return _write(
        request,
        viewer,
        page,
        catalogue,
        lambda: reinforcement_add(
            player=page.player, turn=page.turn, request=req, user=viewer.user
        ),
        _("Request added: %(points)s points.") % {"points": req.cost},
    )


def _index(request: HttpRequest) -> int:
    try:
        return int(request.POST.get("index", ""))
    except ValueError:
        return -1


@require_POST
def reinforcements_remove(request: HttpRequest, slug: str) -> HttpResponse:
    viewer, page, catalogue = _page(request, slug)
    index, base = _index(request), request.POST.get("base", "")
    return _write(
        request,
        viewer,
        page,
        catalogue,
        lambda: reinforcement_remove(
            player=page.player, turn=page.turn, index=index, user=viewer.user, base=base
        ),
        _("Request removed."),
    )


@require_POST
def reinforcements_move(request: HttpRequest, slug: str) -> HttpResponse:
    """`direction` up or down: the buying order (R9.3.8)."""
    viewer, page, catalogue = _page(request, slug)
    index, step = _index(request), {"up": -1, "down": 1}.get(request.POST.get("direction", ""), 0)
    base = request.POST.get("base", "")
    return _write(
        request,
        viewer,
        page,
        catalogue,
        lambda: reinforcement_move(
            player=page.player,
            turn=page.turn,
            index=index,
            step=step,
            user=viewer.user,
            base=base,
        ),
        _("Request moved."),
    )
