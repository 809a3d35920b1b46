"""The orders page's "Random events" box posts here (`campaign:orders-events`): whether the
player rolls again when an event says he may (*potete rilanciare*), and where the blows the
book leaves to him fall (A-41), as ranked lists of his own forces or holdings. The choices
offered are built by `campaign.orders.event_targets`. A plain form POST that redirects back
to the orders page with a message, so it works without JavaScript (like `orders-army`).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from campaign.access import campaign_viewer, require_player
from campaign.orders.choices import choices_save_and_tell, stale_refusal
from campaign.orders.event_targets import RANKS, EventChoices
from campaign.orders.selectors import orders_page_get_for_player
from campaign.selectors import turn_current

TAG = "orders-events"  # its messages show in this box only
REROLL_CHOICES = [
    ("yes", gettext_lazy("Roll again")),
    ("no", gettext_lazy("Keep the result")),
]


class EventChoicesForm(forms.Form):
    """The fields of the box as offered to this player: `event_reroll` (yes/no) if a
    roll-again event can come up, and `<kind>-<rank>` selects of his forces or holdings."""

    def __init__(self, data: Any, *, box: EventChoices) -> None:
        super().__init__(data)
        self.box = box
        # the box's own marker: a POST without it (not from this form) saves nothing
        self.fields["box"] = forms.ChoiceField(choices=[("events", "events")])
        if box.reroll_offered:
            self.fields["event_reroll"] = forms.ChoiceField(
                choices=REROLL_CHOICES, widget=forms.RadioSelect
            )
        for row in box.rows:
            for rank in range(1, RANKS + 1):
                self.fields[f"{row.kind}-{rank}"] = forms.ChoiceField(
                    choices=[("", "—"), *row.options], required=False
                )

    def choices(self, saved: dict[str, tuple[str, ...]]) -> dict[str, Any]:
        """The top-level `PlayerOrders` fields to save; kinds not offered now keep `saved`."""
        out: dict[str, Any] = {}
        if self.box.reroll_offered:
            out["event_reroll"] = self.cleaned_data["event_reroll"] == "yes"
        offered = {row.kind for row in self.box.rows}
        targets = {k: list(v) for k, v in saved.items() if k not in offered}
        for row in self.box.rows:
            picked = [self.cleaned_data[f"{row.kind}-{r}"] for r in range(1, RANKS + 1)]
            ranked = list(dict.fromkeys(i for i in picked if i))  # a repeat adds nothing
            if ranked:
                targets[row.kind] = ranked
        out["event_targets"] = targets
        return out


@require_POST
def orders_events(request: HttpRequest, slug: str) -> HttpResponse:
    """Save the random-event choices; back to the orders page with what was done or why not."""
    viewer = campaign_viewer(request, slug)
    require_player(viewer)
    page = orders_page_get_for_player(viewer=viewer, turn=turn_current(campaign=viewer.campaign))
    if refused := stale_refusal(request, viewer, page):
        return refused
    back = reverse("campaign:orders", args=(viewer.campaign.slug,)) + "#orders-events"
    box = page.event_choices
    form = EventChoicesForm(request.POST, box=box)
    if not box.show or not form.is_valid():
        messages.error(
            request,
            _("Choose whether you roll again, and only forces or holdings of yours, then save."),
            extra_tags=TAG,
        )
        return HttpResponseRedirect(back)
    choices_save_and_tell(
        request,
        page,
        viewer.user,
        form.choices(dict(page.orders.event_targets)),
        saved=_("Choices saved."),
        closed=_("The turn is no longer open: your choices were not saved."),
        tag=TAG,
    )
    return HttpResponseRedirect(back)
