"""The orders page: a player gives his forces their standing orders for the open turn.

One page (`campaign:orders`) and its fragments: one force's orders (`orders-force`, GET the
form, POST save), a click on the path map (`orders-path`), the exact force-test chances of a
requested order (`orders-probability`), the tactical engine's odds against a visible enemy
force (`orders-odds`) and confirming (`orders-confirm`). Each fragment answers an htmx
request with a partial of `campaign/orders.html` and a plain request with the whole page (or
a redirect after a successful POST), so everything works without JavaScript.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from battles.selectors import what_if_hash, what_if_input_get, what_if_odds_get
from battles.tasks import what_if_odds_task
from battles.views.odds import odds_rows
from campaign.access import HtmxHttpRequest, Viewer, campaign_viewer, require_player
from campaign.errors import TurnNotOpen
from campaign.labels import STATUS, WEATHER, features_label, label
from campaign.models import Turn
from campaign.orders.chances import force_test_chances_get
from campaign.orders.clicks import path_clickable
from campaign.orders.forms import (
    DEFAULTS,
    ForceOrdersForm,
    errors_into_form,
    squares_format,
    squares_parse,
    status_error,
)
from campaign.orders.path_map import path_map_get
from campaign.orders.selectors import (
    ForceCard,
    OrdersPage,
    orders_list_for_gm,
    orders_page_after_save,
    orders_page_get_for_player,
    square_label,
)
from campaign.orders.services import (
    ForceNotYours,
    InvalidOrders,
    OrdersSaved,
    force_orders_clear,
    force_orders_save,
    orders_confirm,
    orders_unconfirm,
    path_after_click,
)
from campaign.selectors import turn_current
from rules import SEEN_CV, SEEN_MIX, Coord, ForceOrders, RulesError, Status

TEMPLATE = "campaign/orders.html"


# --- helpers ---------------------------------------------------------------------------------


def _turn_closed_message(turn: Turn) -> str:
    return _(
        "Turn %(number)s is %(status)s: orders can no longer be changed. Your saved orders "
        "are kept as they were."
    ) % {"number": turn.number, "status": turn.get_status_display().lower()}


def _player_page(
    request: HttpRequest, slug: str, force_key: str | None = None
) -> tuple[Viewer, OrdersPage]:
    """The viewer's orders page; an htmx request about `force_key` builds its card alone."""
    viewer = campaign_viewer(request, slug)
    require_player(viewer)
    turn = turn_current(campaign=viewer.campaign)
    only = force_key if force_key and getattr(request, "htmx", False) else None
    return viewer, orders_page_get_for_player(viewer=viewer, turn=turn, only=only)


def _card_or_404(page: OrdersPage, force_key: str) -> ForceCard:
    """The player's own force; anyone else's (or none) is not found, so that a hidden enemy
    force's existence is not revealed either."""
    card = page.card(force_key)
    if card is None:
        raise Http404(_("You command no such force."))
    return card


def _form(card: ForceCard, data: Any = None) -> ForceOrdersForm:
    """The force's form: bound to `data`, or showing its saved orders."""
    if data is None:
        return ForceOrdersForm(initial=ForceOrdersForm.initial_for(card.orders), force_key=card.key)
    return ForceOrdersForm(data, force_key=card.key)


def _context(viewer: Viewer, page: OrdersPage, **extra: Any) -> dict[str, Any]:
    return {"campaign": viewer.campaign, "viewer": viewer, "page": page, **extra}


def _editor(
    viewer: Viewer,
    page: OrdersPage,
    card: ForceCard,
    form: ForceOrdersForm,
    error_index: int | None = None,
    original: str | None = None,
) -> dict[str, Any]:
    """The context of one force's editor: its form, its map and its force-test chances, and
    the orders as the editor opened on them (`original`, carried by the form's posts)."""
    if original is None:
        original = form.data.get("original") if form.is_bound else None
    if original is None:
        original = ForceOrdersForm.original_encode(card.orders)
    saved_path = card.orders.path if card.orders else ()
    path = form.current_path(saved_path)
    requested = form.data.get("change_to") if form.is_bound else form.initial.get("change_to")
    try:
        requested_status = Status(requested) if requested else None
    except ValueError:
        requested_status = None
    if requested_status is not None and not requested_status.is_order:
        requested_status = None
    path_map = path_map_get(
        viewer=viewer,
        page=page,
        card=card,
        path=path,
        clickable=path_clickable(viewer, page, card),
        error_index=error_index,
        requested=requested_status,
    )
    return {
        "card": card,
        "editing": card.key,
        "form": form,
        "original": original,
        "legal": path_map.legal,
        "requested": requested_status,
        "path": [(i, sq, square_label(sq)) for i, sq in enumerate(path)],
        "path_full": len(path) >= 3,
        "error_index": error_index,
        "map": path_map.map,
        "next_steps": path_map.next_steps,
        "chances": (
            force_test_chances_get(state=page.state, force=card.force, requested=requested_status)
            if requested_status is not None
            else None
        ),
    }


def _render_card(
    request: HtmxHttpRequest,
    viewer: Viewer,
    page: OrdersPage,
    ctx: dict[str, Any],
    *,
    status: int = 200,
) -> HttpResponse:
    """The force card (and, for htmx, the status bar out of band); the whole page otherwise."""
    context = _context(viewer, page, **ctx)
    if request.htmx:
        return render(request, f"{TEMPLATE}#force-response", {**context, "oob": True})
    return render(request, TEMPLATE, context, status=status)


def _saved_note(saved: OrdersSaved) -> str:
    if saved.was_confirmed:
        return _(
            "Saved. Your orders were confirmed: this change set them back to saved. Confirm "
            "them again when you are done."
        )
    return _("Saved. Confirm your orders at the top of the page when you are done.")


# --- the page --------------------------------------------------------------------------------


@require_GET
def orders(request: HttpRequest, slug: str) -> HttpResponse:
    """The orders page: a player's forces and his orders; for the game master, who has saved
    or confirmed; an observer is told that only players give orders."""
    viewer = campaign_viewer(request, slug)
    turn = turn_current(campaign=viewer.campaign)
    if viewer.is_player:
        page = orders_page_get_for_player(viewer=viewer, turn=turn)
        return render(request, TEMPLATE, _context(viewer, page))
    ctx: dict[str, Any] = {"campaign": viewer.campaign, "viewer": viewer, "turn": turn}
    if viewer.is_gm:
        ctx["overview"] = orders_list_for_gm(turn=turn)
    return render(request, TEMPLATE, ctx)


@require_http_methods(["GET", "POST"])
def orders_force(request: HtmxHttpRequest, slug: str, force_key: str) -> HttpResponse:
    """One force's orders: GET the editor (or, with `view=summary`, the summary card), POST
    save them (or, with `clear`, remove them)."""
    viewer, page = _player_page(request, slug, force_key)
    card = _card_or_404(page, force_key)
    if request.method == "GET":
        if request.GET.get("view") == "summary":
            ctx = {"card": card}
        else:
            ctx = _editor(viewer, page, card, _form(card))
        if request.htmx:
            return render(request, f"{TEMPLATE}#force-response", _context(viewer, page, **ctx))
        return render(request, TEMPLATE, _context(viewer, page, **ctx))

    if "restore" in request.POST:
        return _restore(request, viewer, page, card)
    if "preview" in request.POST:  # the order asked for changed: redraw, nothing saved
        form = _form(card, request.POST)
        form.is_valid()
        return _render_card(request, viewer, page, _editor(viewer, page, card, form))
    if "clear" in request.POST:
        try:
            saved = force_orders_clear(
                player=page.player, turn=page.turn, force_key=card.key, user=viewer.user
            )
        except TurnNotOpen:
            return _refused(request, viewer, page, card)
        except InvalidOrders as e:
            saved_form = _form(card, ForceOrdersForm.initial_for(card.orders) or DEFAULTS)
            saved_form.is_valid()
            fo = card.orders or ForceOrders(card.key)
            error_index = errors_into_form(saved_form, e.errors, fo, page)
            return _render_card(
                request, viewer, page, _editor(viewer, page, card, saved_form, error_index)
            )
        return _after_save(request, viewer, card.key, saved, summary=True, page=page)

    form = _form(card, request.POST)
    return _save(request, viewer, page, card, form, summary=True)


@require_POST
def orders_path(request: HtmxHttpRequest, slug: str, force_key: str) -> HttpResponse:
    """A click on the path map (or on a step of the path list): the server adds or removes
    the step, checks the whole of the orders and saves them, together with the rest of the
    force's form. A refused step stays on the map, marked, with the error beside the path."""
    viewer, page = _player_page(request, slug, force_key)
    card = _card_or_404(page, force_key)
    data = request.POST.copy()
    try:
        current = squares_parse(data.get("path", ""))
    except forms.ValidationError:
        current = card.orders.path if card.orders else ()
    if "clear_path" in data:
        new_path: tuple[Coord, ...] = ()
    else:
        try:
            clicked = squares_parse(data.get("square", ""))
        except forms.ValidationError:
            clicked = ()
        if "x" in data and "y" in data:  # a click on the map (its hx-vals)
            try:
                clicked = ((int(data.get("x", "")), int(data.get("y", ""))),)
            except ValueError:
                clicked = ()
        if len(clicked) != 1:
            form = _form(card, data)
            form.is_valid()
            form.add_error("path", _("Click a square of the map to add it to the path."))
            return _render_card(
                request, viewer, page, _editor(viewer, page, card, form), status=400
            )
        new_path = path_after_click(path=current, square=clicked[0])
    data["path"] = squares_format(new_path)
    # a step the rules refuse is not kept: the path stays as it was, the refusal beside it
    added = len(new_path) > len(current)
    return _save(request, viewer, page, card, _form(card, data), summary=False, drop=added)


def _save(
    request: HtmxHttpRequest,
    viewer: Viewer,
    page: OrdersPage,
    card: ForceCard,
    form: ForceOrdersForm,
    *,
    summary: bool,
    drop: bool = False,
) -> HttpResponse:
    """Validate the form, save through the services, and answer: the card with the errors
    beside their fields (the input kept), or the saved card. With `drop`, a refusal of the
    path's last step (the one just clicked) takes that step out of the path again."""
    if not form.is_valid():
        return _render_card(request, viewer, page, _editor(viewer, page, card, form))
    fo = form.force_orders(card.key)
    try:
        saved = force_orders_save(
            player=page.player, turn=page.turn, force_orders=fo, user=viewer.user, state=page.state
        )
    except TurnNotOpen:
        return _refused(request, viewer, page, card)
    except ForceNotYours as e:
        raise Http404(_("You command no such force.")) from e
    except InvalidOrders as e:
        error_index = errors_into_form(form, e.errors, fo, page)
        if drop and error_index == len(fo.path) - 1:
            form = _without_last_step(card, form)
            error_index = None
        return _render_card(request, viewer, page, _editor(viewer, page, card, form, error_index))
    original = form.data.get("original")
    return _after_save(
        request, viewer, card.key, saved, summary=summary, page=page, original=original
    )


def _without_last_step(card: ForceCard, refused: ForceOrdersForm) -> ForceOrdersForm:
    """The form again without the refused last step, its refusals beside the path."""
    data = dict(refused.data.items())
    data["path"] = squares_format(squares_parse(data.get("path", ""))[:-1])
    form = _form(card, data)
    form.is_valid()
    for message in refused.errors.get("path", []):
        form.add_error("path", _("%(why)s It is not added to the path.") % {"why": message})
    for field, messages in refused.errors.items():
        if field != "path":
            for message in messages:
                form.add_error(field if field != "__all__" else None, message)
    return form


def _restore(
    request: HtmxHttpRequest, viewer: Viewer, page: OrdersPage, card: ForceCard
) -> HttpResponse:
    """ "Close without saving": the force's orders put back as the editor opened on them (its
    map clicks saved them one by one), then the summary card."""
    try:
        wanted = ForceOrdersForm.original_decode(request.POST.get("original", ""), card.key)
    except ValueError:
        wanted = card.orders  # nothing to put back: close as it stands
    if ForceOrdersForm.initial_for(wanted) == ForceOrdersForm.initial_for(card.orders):
        saved = None
    else:
        try:
            if wanted is None:
                saved = force_orders_clear(
                    player=page.player, turn=page.turn, force_key=card.key, user=viewer.user
                )
            else:
                saved = force_orders_save(
                    player=page.player, turn=page.turn, force_orders=wanted, user=viewer.user
                )
        except TurnNotOpen:
            return _refused(request, viewer, page, card)
        except InvalidOrders:  # the orders as they were no longer pass: keep the new ones
            saved = None
    if not request.htmx:
        url = reverse("campaign:orders", args=(viewer.campaign.slug,))
        return HttpResponseRedirect(f"{url}#orders-force-{card.key}")
    page = orders_page_get_for_player(viewer=viewer, turn=page.turn)
    ctx: dict[str, Any] = {"card": _card_or_404(page, card.key)}
    if saved is not None:
        ctx["saved_note"] = _("Your changes are undone: the orders are as they were.")
    return render(
        request, f"{TEMPLATE}#force-response", {**_context(viewer, page, **ctx), "oob": True}
    )


def _after_save(
    request: HtmxHttpRequest,
    viewer: Viewer,
    force_key: str,
    saved: OrdersSaved,
    *,
    summary: bool,
    page: OrdersPage,
    original: str | None = None,
) -> HttpResponse:
    if not request.htmx:
        slug = viewer.campaign.slug
        target = "campaign:orders" if summary else "campaign:orders-force"
        args = (slug,) if summary else (slug, force_key)
        return HttpResponseRedirect(f"{reverse(target, args=args)}#orders-force-{force_key}")
    # the save changed the orders row alone: the rest of the page stands as this request read it
    page = orders_page_after_save(page, saved.orders, force_key, saved.decoded)
    card = _card_or_404(page, force_key)
    if summary:
        ctx: dict[str, Any] = {"card": card}
    else:
        ctx = _editor(viewer, page, card, _form(card), original=original)
    ctx["saved_note"] = _saved_note(saved)
    return render(
        request, f"{TEMPLATE}#force-response", {**_context(viewer, page, **ctx), "oob": True}
    )


def _refused(
    request: HtmxHttpRequest, viewer: Viewer, page: OrdersPage, card: ForceCard
) -> HttpResponse:
    """The turn closed while the player was editing: say so, and show what stays saved."""
    turn = Turn.objects.get(pk=page.turn.pk)
    page = orders_page_get_for_player(viewer=viewer, turn=turn)
    card = _card_or_404(page, card.key)
    ctx = {"card": card, "refused": _turn_closed_message(turn), "refused_key": card.key}
    context = _context(viewer, page, **ctx)
    if request.htmx:
        # htmx swaps 2xx answers only; the message must reach the player
        return render(request, f"{TEMPLATE}#force-response", {**context, "oob": True})
    return render(request, TEMPLATE, context, status=409)


# --- the force test --------------------------------------------------------------------------


@require_GET
def orders_probability(request: HtmxHttpRequest, slug: str, force_key: str) -> HttpResponse:
    """The exact chances of the force test (R5.2) if this force asks for `change_to` now."""
    viewer, page = _player_page(request, slug, force_key)
    card = _card_or_404(page, force_key)
    requested = request.GET.get("change_to") or ""
    try:
        status = Status(requested) if requested else None
    except ValueError:
        status = None
    if status is not None and not status.is_order:
        status = None
    chances = (
        force_test_chances_get(state=page.state, force=card.force, requested=status)
        if status is not None
        else None
    )
    ctx = _context(viewer, page, card=card, chances=chances, chance_only=True)
    if request.htmx:
        return render(request, f"{TEMPLATE}#chance", ctx)
    return render(request, TEMPLATE, ctx)


# --- the odds against a visible enemy force -------------------------------------------------

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
    viewer, page = _player_page(request, slug, force_key)
    card = _card_or_404(page, force_key)
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
        return render(request, f"{TEMPLATE}#engage-odds", _context(viewer, page, **ctx))
    return render(request, TEMPLATE, _context(viewer, page, **ctx), status=400 if error else 200)


# --- confirming ------------------------------------------------------------------------------


@require_POST
def orders_confirm_view(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """POST `action=confirm` confirms the saved orders; `action=unconfirm` withdraws the
    confirmation (the orders stay saved): the two faces of one button."""
    viewer, page = _player_page(request, slug)
    action = request.POST.get("action")
    if action not in ("confirm", "unconfirm"):
        return HttpResponse(_("Unknown action."), status=400)

    def act() -> str:
        if action == "confirm":
            orders_confirm(player=page.player, turn=page.turn, user=viewer.user)
            values = {"number": page.turn.number}
            if viewer.campaign.auto_close and not page.others_unconfirmed:  # it closes now
                return (
                    _(
                        "Your orders for turn %(number)s are confirmed. Every player has "
                        "confirmed, so the turn closes now and is resolved."
                    )
                    % values
                )
            return (
                _(
                    "Your orders for turn %(number)s are confirmed. To change them, unconfirm "
                    "them first: they stay saved."
                )
                % values
            )
        orders_unconfirm(player=page.player, turn=page.turn, user=viewer.user)
        return _("Confirmation withdrawn: your orders stay saved.")

    return _status_action(request, viewer, page, act)


def _status_action(
    request: HtmxHttpRequest, viewer: Viewer, page: OrdersPage, act: Callable[[], str]
) -> HttpResponse:
    """Run a confirmation change and answer with the status bar: what was done, or why not
    (the turn closed meanwhile; orders the rules now refuse, each by force)."""
    message, errors, code = "", [], 200
    try:
        message = act()
    except TurnNotOpen:
        message, code = _turn_closed_message(Turn.objects.get(pk=page.turn.pk)), 409
    except InvalidOrders as e:
        errors, code = e.errors, 400
    if not request.htmx and code == 200:
        return HttpResponseRedirect(reverse("campaign:orders", args=(viewer.campaign.slug,)))
    page = orders_page_get_for_player(viewer=viewer, turn=Turn.objects.get(pk=page.turn.pk))
    ctx = _context(
        viewer,
        page,
        status_message=message,
        status_error=code != 200,
        status_errors=[status_error(page, e) for e in errors],
    )
    if request.htmx:  # the forces too, read-only once confirmed, editable again after
        return render(request, f"{TEMPLATE}#status-and-forces", {**ctx, "forces_oob": True})
    return render(request, TEMPLATE, ctx, status=code)
