"""Confirming a player's orders (`campaign:orders-confirm`): the status bar's one button,
"Confirm" or "Unconfirm", answered with the status bar and the forces (htmx) or the page.

The form names the turn it was rendered for (`turn`) and the version of the orders it
showed (`base`): a confirmation from a stale page (another turn; orders saved since in
another tab) is refused, saying what changed, and confirms nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaign.access import HtmxHttpRequest, Viewer
from campaign.errors import StaleTurn, TurnNotOpen
from campaign.models import Turn
from campaign.orders.forms import status_error
from campaign.orders.selectors import OrdersPage, orders_page_get_for_player
from campaign.orders.services import (
    InvalidOrders,
    OrdersChanged,
    orders_confirm,
    orders_unconfirm,
)
from campaign.orders.views import TEMPLATE, page_context, player_page, turn_closed_message
from campaign.selectors import TURN_FIELD, turn_expected


@require_POST
def orders_confirm_view(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """POST `action=confirm` confirms the saved orders; `action=unconfirm` withdraws the
    confirmation (the orders stay saved): the two faces of one button. Both for the turn the
    page showed (`turn`); a confirmation for the orders it showed (`base`, the version of the
    player's saved orders), not for others saved since in another tab."""
    viewer, page = player_page(request, slug)
    action = request.POST.get("action")
    if action not in ("confirm", "unconfirm"):
        return HttpResponse(_("Unknown action."), status=400)

    def act() -> str:
        turn_expected(campaign=viewer.campaign, posted=request.POST.get(TURN_FIELD))
        if action == "confirm":
            base = request.POST.get("base", "")
            orders_confirm(player=page.player, turn=page.turn, user=viewer.user, base=base)
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
    (the page was for another turn; the turn closed meanwhile; the orders were saved again
    since the page showed them; orders the rules now refuse, each by force)."""
    message, errors, code, stale = "", [], 200, False
    try:
        message = act()
    except StaleTurn as e:  # the page is another turn's: it offers the current one's too
        message, code, stale = str(e), 409, True
    except TurnNotOpen:
        message, code = turn_closed_message(Turn.objects.get(pk=page.turn.pk)), 409
    except OrdersChanged:
        message, code = _confirm_changed_message(), 409
    except InvalidOrders as e:
        errors, code = e.errors, 400
    if not request.htmx and code == 200:
        return HttpResponseRedirect(reverse("campaign:orders", args=(viewer.campaign.slug,)))
    page = orders_page_get_for_player(viewer=viewer, turn=Turn.objects.get(pk=page.turn.pk))
    ctx = page_context(
        viewer,
        page,
        status_message=message,
        status_error=code != 200,
        status_errors=[status_error(page, e) for e in errors],
        refused_stale=stale,
    )
    if request.htmx:  # the forces too, read-only once confirmed, editable again after
        # a refusal (409) is swapped in by static/js/site.js; the rules' errors come as 200
        status = 409 if code == 409 else 200
        return render(
            request, f"{TEMPLATE}#status-and-forces", {**ctx, "forces_oob": True}, status=status
        )
    return render(request, TEMPLATE, ctx, status=code)


def _confirm_changed_message() -> str:
    return _(
        "Nothing was confirmed: your orders were saved again (in another tab or window) after "
        "this page showed them. Here they are as they stand now: check them, then confirm."
    )
