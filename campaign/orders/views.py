"""The orders page: a player gives his forces their standing orders for the open turn.

One page (`campaign:orders`) and its fragments: one force's orders (`orders-force`, GET the
form, POST save), a click on the path map (`orders-path`) and the exact force-test chances
of a requested order (`orders-probability`); confirming (`orders-confirm`) is in
`campaign.orders.confirm`, the odds against a visible enemy force in `campaign.orders.odds`.
Each fragment answers an htmx request with a partial of `campaign/orders.html` and a plain
request with the whole page (or a redirect after a successful POST), so everything works
without JavaScript.

Nothing acts on a stale page (architecture.md): every POST carries the turn it was rendered
for (`turn`, refused with `StaleTurn` before anything is done if another is current), and
the editor the version of the force's saved orders it was built on (`base`, checked under
the turn's lock: a save from a second tab that would undo another's is refused and shows it).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from campaign.access import HtmxHttpRequest, Viewer, campaign_viewer, require_player
from campaign.errors import StaleTurn, TurnNotOpen
from campaign.models import Orders, Turn
from campaign.orders.chances import force_test_chances_get
from campaign.orders.clicks import path_clickable
from campaign.orders.forms import (
    DEFAULTS,
    ForceOrdersForm,
    errors_into_form,
    squares_format,
    squares_parse,
)
from campaign.orders.path_map import path_map_get
from campaign.orders.selectors import (
    ForceCard,
    OrdersPage,
    force_orders_version,
    orders_list_for_gm,
    orders_page_after_save,
    orders_page_get_for_player,
    square_label,
)
from campaign.orders.services import (
    ForceNotYours,
    InvalidOrders,
    OrdersChanged,
    OrdersSaved,
    force_orders_clear,
    force_orders_save,
    path_after_click,
)
from campaign.selectors import TURN_FIELD, turn_current, turn_expected, user_label
from rules import Coord, ForceOrders, Status

TEMPLATE = "campaign/orders.html"


# --- helpers ---------------------------------------------------------------------------------


def turn_closed_message(turn: Turn) -> str:
    return _(
        "Turn %(number)s is %(status)s: orders can no longer be changed. Your saved orders "
        "are kept as they were."
    ) % {"number": turn.number, "status": turn.get_status_display().lower()}


def player_page(
    request: HttpRequest, slug: str, force_key: str | None = None
) -> tuple[Viewer, OrdersPage]:
    """The viewer's orders page; an htmx request about `force_key` builds its card alone."""
    viewer = campaign_viewer(request, slug)
    require_player(viewer)
    turn = turn_current(campaign=viewer.campaign)
    only = force_key if force_key and getattr(request, "htmx", False) else None
    return viewer, orders_page_get_for_player(viewer=viewer, turn=turn, only=only)


def _stale(request: HttpRequest, viewer: Viewer) -> str | None:
    """Why a POST is refused before anything is done, if its form was rendered for another
    turn than the current one (a second tab, the Back button, a form posted twice)."""
    try:
        turn_expected(campaign=viewer.campaign, posted=request.POST.get(TURN_FIELD))
    except StaleTurn as e:
        return str(e)
    return None


def card_or_404(page: OrdersPage, force_key: str) -> ForceCard:
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


def page_context(viewer: Viewer, page: OrdersPage, **extra: Any) -> dict[str, Any]:
    return {"campaign": viewer.campaign, "viewer": viewer, "page": page, **extra}


def _editor(
    viewer: Viewer,
    page: OrdersPage,
    card: ForceCard,
    form: ForceOrdersForm,
    error_index: int | None = None,
    original: str | None = None,
) -> dict[str, Any]:
    """The context of one force's editor: its form, its map and its force-test chances, the
    orders as the editor opened on them (`original`, carried by the form's posts) and the
    version of the saved orders it stands on (`base`: the posted one while nothing is saved,
    the saved orders' once the editor is drawn on them)."""
    if original is None:
        original = form.data.get("original") if form.is_bound else None
    if original is None:
        original = ForceOrdersForm.original_encode(card.orders)
    base = form.data.get("base") if form.is_bound else None
    if base is None:
        base = force_orders_version(page.row, card.key)
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
        "base": base,
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
    """The force card (and, for htmx, the status bar out of band); the whole page otherwise.
    htmx gets a refusal (409) as such, which static/js/site.js swaps in; a form's errors come
    back to it as 200, redrawn beside their fields."""
    context = page_context(viewer, page, **ctx)
    if request.htmx:
        return render(
            request,
            f"{TEMPLATE}#force-response",
            {**context, "oob": True},
            status=409 if status == 409 else 200,
        )
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
        return render(request, TEMPLATE, page_context(viewer, page))
    ctx: dict[str, Any] = {"campaign": viewer.campaign, "viewer": viewer, "turn": turn}
    if viewer.is_gm:
        ctx["overview"] = orders_list_for_gm(turn=turn)
    return render(request, TEMPLATE, ctx)


@require_http_methods(["GET", "POST"])
def orders_force(request: HtmxHttpRequest, slug: str, force_key: str) -> HttpResponse:
    """One force's orders: GET the editor (or, with `view=summary`, the summary card), POST
    save them (or, with `clear`, remove them; with `restore`, put back `original`)."""
    viewer, page = player_page(request, slug, force_key)
    card = card_or_404(page, force_key)
    if request.method == "POST" and (stale := _stale(request, viewer)):
        return _refused(request, viewer, page, force_key, stale)
    if request.method == "GET":
        if request.GET.get("view") == "summary":
            ctx = {"card": card}
        else:
            ctx = _editor(viewer, page, card, _form(card))
        if request.htmx:
            return render(request, f"{TEMPLATE}#force-response", page_context(viewer, page, **ctx))
        return render(request, TEMPLATE, page_context(viewer, page, **ctx))

    if "restore" in request.POST:
        return _restore(request, viewer, page, card)
    if "preview" in request.POST:  # the order asked for changed: redraw, nothing saved
        form = _form(card, request.POST)
        form.is_valid()
        return _render_card(request, viewer, page, _editor(viewer, page, card, form))
    if "clear" in request.POST:
        try:
            saved = force_orders_clear(
                player=page.player,
                turn=page.turn,
                force_key=card.key,
                user=viewer.user,
                base=request.POST.get("base", ""),
            )
        except TurnNotOpen:
            return _refused(request, viewer, page, card.key)
        except OrdersChanged as e:
            return _changed(request, viewer, page, card.key, e.row)
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
    viewer, page = player_page(request, slug, force_key)
    card = card_or_404(page, force_key)
    if stale := _stale(request, viewer):
        return _refused(request, viewer, page, force_key, stale)
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
            player=page.player,
            turn=page.turn,
            force_orders=fo,
            user=viewer.user,
            state=page.state,
            base=form.data.get("base", ""),
        )
    except TurnNotOpen:
        return _refused(request, viewer, page, card.key)
    except OrdersChanged as e:
        return _changed(request, viewer, page, card.key, e.row)
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
        player, turn, user = page.player, page.turn, viewer.user
        base = request.POST.get("base", "")  # not over orders another tab saved since
        try:
            if wanted is None:
                saved = force_orders_clear(
                    player=player, turn=turn, force_key=card.key, user=user, base=base
                )
            else:
                saved = force_orders_save(
                    player=player, turn=turn, force_orders=wanted, user=user, base=base
                )
        except TurnNotOpen:
            return _refused(request, viewer, page, card.key)
        except OrdersChanged as e:
            return _changed(request, viewer, page, card.key, e.row)
        except InvalidOrders:  # the orders as they were no longer pass: keep the new ones
            saved = None
    if not request.htmx:
        url = reverse("campaign:orders", args=(viewer.campaign.slug,))
        return HttpResponseRedirect(f"{url}#orders-force-{card.key}")
    page = orders_page_get_for_player(viewer=viewer, turn=page.turn)
    ctx: dict[str, Any] = {"card": card_or_404(page, card.key)}
    if saved is not None:
        ctx["saved_note"] = _("Your changes are undone: the orders are as they were.")
    return render(
        request, f"{TEMPLATE}#force-response", {**page_context(viewer, page, **ctx), "oob": True}
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
    card = card_or_404(page, force_key)
    if summary:
        ctx: dict[str, Any] = {"card": card}
    else:
        ctx = _editor(viewer, page, card, _form(card), original=original)
    ctx["saved_note"] = _saved_note(saved)
    return render(
        request, f"{TEMPLATE}#force-response", {**page_context(viewer, page, **ctx), "oob": True}
    )


def _refused(
    request: HtmxHttpRequest,
    viewer: Viewer,
    page: OrdersPage,
    force_key: str,
    message: str | None = None,
) -> HttpResponse:
    """A write refused before anything was done: the form was for another turn (`message`,
    `StaleTurn`'s), or the turn closed while the player was editing. Say so (409), and show
    what stands saved now in the current turn: the force's card and the status bar."""
    turn = Turn.objects.get(pk=page.turn.pk)
    only = force_key if request.htmx else None
    page = orders_page_get_for_player(viewer=viewer, turn=turn, only=only)
    ctx = {
        "card": card_or_404(page, force_key),
        "refused": message or turn_closed_message(turn),
        "refused_key": force_key,
        "refused_stale": message is not None,  # the page is another turn's: offer it anew
    }
    context = page_context(viewer, page, **ctx)
    if request.htmx:  # static/js/site.js swaps a 409 in: the message must reach the player
        return render(request, f"{TEMPLATE}#force-response", {**context, "oob": True}, status=409)
    return render(request, TEMPLATE, context, status=409)


def _changed(
    request: HtmxHttpRequest,
    viewer: Viewer,
    page: OrdersPage,
    force_key: str,
    row: Orders | None,
) -> HttpResponse:
    """The force's saved orders changed since the editor was built on them (another tab or
    window saved): nothing was saved. The editor as posted, and above it the orders saved
    now in words, who saved them and when, and a button that draws the editor afresh on
    them (409). The posted `base` stays: saving this editor again is refused again."""
    page = orders_page_get_for_player(
        viewer=viewer, turn=page.turn, state=page.state, only=force_key if request.htmx else None
    )
    card = card_or_404(page, force_key)
    form = _form(card, request.POST)
    form.is_valid()
    ctx = _editor(viewer, page, card, form)
    ctx["changed"] = {
        "orders": card.orders,
        "at": row.saved_at if row is not None else None,
        "by": user_label(row.submitted_by) if row is not None and row.submitted_by else "",
        "by_you": row is not None and row.submitted_by_id == viewer.user.pk,
    }
    return _render_card(request, viewer, page, ctx, status=409)


# --- the force test --------------------------------------------------------------------------


@require_GET
def orders_probability(request: HtmxHttpRequest, slug: str, force_key: str) -> HttpResponse:
    """The exact chances of the force test (R5.2) if this force asks for `change_to` now."""
    viewer, page = player_page(request, slug, force_key)
    card = card_or_404(page, force_key)
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
    ctx = page_context(viewer, page, card=card, chances=chances, chance_only=True)
    if request.htmx:
        return render(request, f"{TEMPLATE}#chance", ctx)
    return render(request, TEMPLATE, ctx)
