"""The player's army-wide standing choices on the orders page (`campaign:orders-army`).

Choices the rules give a player for his whole army rather than for one force, written in
advance like every standing order: today, when he wins the initiative by army, whether he
moves all his forces first or makes the others move first (R6.1.2). A plain form POST that
redirects back to the orders page with a message, so it works without JavaScript. Like every
box of the page it names the turn it was rendered for (`turn`): a form of another turn is
refused before anything is done (`stale_refusal`).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from campaign.access import Viewer, campaign_viewer, require_player
from campaign.errors import StaleTurn, TurnNotOpen
from campaign.orders.forms import status_error
from campaign.orders.selectors import OrdersPage, orders_page_get_for_player
from campaign.orders.services import InvalidOrders, army_choices_save
from campaign.orders.views import TEMPLATE, page_context
from campaign.selectors import TURN_FIELD, turn_current, turn_expected

ARMY_INITIATIVE_CHOICES = [
    ("first", gettext_lazy("Move all my forces first")),
    ("last", gettext_lazy("Make the other players move all their forces first")),
]


class ArmyChoicesForm(forms.Form):
    army_initiative = forms.ChoiceField(
        label=gettext_lazy("If I win the initiative by army (R6.1.2)"),
        choices=ARMY_INITIATIVE_CHOICES,
        widget=forms.RadioSelect,
        initial="first",
    )


@require_POST
def orders_army(request: HttpRequest, slug: str) -> HttpResponse:
    """Save the army-wide choices; back to the orders page with what was done or why not."""
    viewer = campaign_viewer(request, slug)
    require_player(viewer)
    page = orders_page_get_for_player(viewer=viewer, turn=turn_current(campaign=viewer.campaign))
    if refused := stale_refusal(request, viewer, page):
        return refused
    back = reverse("campaign:orders", args=(viewer.campaign.slug,)) + "#orders-army"
    form = ArmyChoicesForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose one of the two answers, then save."))
        return HttpResponseRedirect(back)
    choices_save_and_tell(
        request,
        page,
        viewer.user,
        {"army_initiative": form.cleaned_data["army_initiative"]},
        saved=_("Choice saved."),
        closed=_("The turn is no longer open: your choice was not saved."),
    )
    return HttpResponseRedirect(back)


def stale_refusal(request: HttpRequest, viewer: Viewer, page: OrdersPage) -> HttpResponse | None:
    """The orders page as it stands now (409), saying why nothing was done, if a box's form
    was rendered for another turn (a second tab, the Back button, a form posted twice)."""
    try:
        turn_expected(campaign=viewer.campaign, posted=request.POST.get(TURN_FIELD))
    except StaleTurn as e:
        context = page_context(viewer, page, refused=str(e), refused_stale=True)
        return render(request, TEMPLATE, context, status=409)
    return None


def choices_save_and_tell(
    request: HttpRequest,
    page: OrdersPage,
    user: User,
    choices: dict[str, Any],
    *,
    saved: str,
    closed: str,
    tag: str = "",
) -> None:
    """Save army-wide standing choices of the orders page's boxes (`army_choices_save`) and
    tell the player, in the box's messages (`tag`), what was done or why not."""
    try:
        done = army_choices_save(player=page.player, turn=page.turn, choices=choices, user=user)
    except TurnNotOpen:
        messages.error(request, closed, extra_tags=tag)
    except InvalidOrders as e:
        for err in e.errors:
            messages.error(request, status_error(page, err), extra_tags=tag)
    else:
        if done.was_confirmed:
            saved += " " + _(
                "Your orders were confirmed: this change set them back to saved. Confirm them "
                "again when you are done."
            )
        messages.success(request, saved, extra_tags=tag)
