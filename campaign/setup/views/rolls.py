"""The set-up's dice on the pages they belong to: the climate and the season on the options
page (R4.1), the choice of territory on the territory page (R2.2.3), the order of placement on
the holdings page (R2.3.1). This view rolls; each page shows its rolls with `rolls_panel`.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaign.errors import ServiceError
from campaign.keys import key_asked
from campaign.models import Holding, Player, SetupRoll
from campaign.setup.rolls import OPPOSED, setup_roll_make, setup_rolls_lines
from campaign.setup.views.pages import gm_viewer
from campaign.setup.views.roll_panel import OpponentsForm

Kind = SetupRoll.Kind
# the page each roll belongs to, where the GM is sent back to read it
PAGE = {
    Kind.CLIMATE: "campaign:setup-options",
    Kind.SEASON: "campaign:setup-options",
    Kind.TERRITORY: "campaign:setup-territory",
    Kind.PLACEMENT: "campaign:setup-holdings",
    Kind.FEATURE: "campaign:setup-holdings",
}


@require_POST
def setup_roll(request: HttpRequest, slug: str, kind: str) -> HttpResponse:
    """Roll one of the set-up's dice (GM, while set-up is open); back to its page."""
    viewer = gm_viewer(request, slug)
    campaign = viewer.campaign
    if kind not in PAGE:
        messages.error(request, _("There is no such set-up roll."))
        return redirect("campaign:setup-options", campaign.slug)
    pair = None
    if kind in OPPOSED:
        players = list(Player.objects.filter(campaign=campaign))
        form = OpponentsForm(request.POST, players=players)
        if not form.is_valid():
            messages.error(request, _("Choose the two armies who roll, then roll."))
            return redirect(PAGE[Kind(kind)], campaign.slug)
        by_key = {p.key: p for p in players}
        pair = (by_key[form.cleaned_data["first"]], by_key[form.cleaned_data["second"]])
    holding = None
    if kind == Kind.FEATURE:
        key = key_asked(request.POST.get("holding", ""))
        holding = Holding.objects.filter(campaign=campaign, key=key).first()
    try:
        roll = setup_roll_make(
            campaign=campaign, kind=kind, user=viewer.user, players=pair, holding=holding
        )
    except ServiceError as e:
        messages.error(request, str(e))
    else:
        line = next(
            x
            for x in reversed(setup_rolls_lines(campaign=campaign, kinds=(roll.kind,)))
            if x.target == roll.target
        )
        messages.success(
            request,
            _("%(roll)s: %(dice)s. %(result)s.")
            % {"roll": line.title, "dice": line.dice, "result": line.result},
        )
    return redirect(PAGE[Kind(kind)], campaign.slug)
