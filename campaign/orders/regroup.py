"""The orders page's "Regrouping" box (`campaign:orders-regroup`, R8.3.2 [NARAN]): a force's
pool of recovered figures' points, one per speciality, buys figures for its units of that
speciality; the player writes how many, as a standing order (`PlayerOrders.regroup`), and
they join before the next turn's Phase 1. A plain form POST back to the orders page."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaign.access import campaign_viewer, require_player
from campaign.orders.choices import choices_save_and_tell, stale_refusal
from campaign.orders.selectors import orders_page_get_for_player
from campaign.selectors import turn_current

TAG = "orders-regroup"  # its messages show in this box only
MAX_FIGURES = 999


@require_POST
def orders_regroup(request: HttpRequest, slug: str) -> HttpResponse:
    """Save the figures each pool buys; back to the orders page with what was done or why."""
    viewer = campaign_viewer(request, slug)
    require_player(viewer)
    page = orders_page_get_for_player(viewer=viewer, turn=turn_current(campaign=viewer.campaign))
    if refused := stale_refusal(request, viewer, page):
        return refused
    back = reverse("campaign:orders", args=(viewer.campaign.slug,)) + "#orders-regroup"
    lines = page.regroup
    if request.POST.get("box") != "regroup" or not lines:  # not this box's form: save nothing
        messages.error(
            request, _("Nothing to regroup was sent: nothing was saved."), extra_tags=TAG
        )
        return HttpResponseRedirect(back)
    purchases = []
    for line, field, new in (
        *((line, line.field, False) for line in lines),
        *((line, line.new_field, True) for line in lines if line.min_figures),  # R8.3.3
    ):
        raw = request.POST.get(field, "0").strip() or "0"
        if not raw.isascii() or not raw.isdigit() or int(raw) > MAX_FIGURES:
            messages.error(
                request,
                _("%(unit)s of %(force)s: give a whole number of figures, 0 or more.")
                % {"unit": line.unit, "force": line.force},
                extra_tags=TAG,
            )
            return HttpResponseRedirect(back)
        if int(raw):
            purchases.append(
                {
                    "force_id": line.force_id,
                    "unit_id": line.unit_id,
                    "figures": int(raw),
                    "new_unit": new,
                }
            )
    choices_save_and_tell(
        request,
        page,
        viewer.user,
        {"regroup": purchases},
        saved=_("Regrouping saved: the figures join before the next turn's force tests."),
        closed=_("The turn is no longer open: nothing was saved."),
        tag=TAG,
    )
    return HttpResponseRedirect(back)
