"""The set-up-rolls panel of a set-up page (templates/campaign/includes/setup_rolls.html):
the rolls made there, and for the GM the buttons of those still to make."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

import rules as R
from campaign import adapters
from campaign.access import Viewer
from campaign.models import Holding, Player, SetupRoll
from campaign.setup.forms import choice_field
from campaign.setup.rolls import OPPOSED, setup_rolls_lines

Kind = SetupRoll.Kind
BUTTON = {
    Kind.CLIMATE: gettext_lazy("Roll the climate zone (1D6, R4.1.1)"),
    Kind.SEASON: gettext_lazy("Roll the season (1D6, R4.1.2)"),
    Kind.TERRITORY: gettext_lazy("Roll for the choice of territory (1D6 each, R2.2.3)"),
    Kind.PLACEMENT: gettext_lazy("Roll for the order of placement (1D6 each, R2.3.1)"),
}
FEATURE_BUTTON = gettext_lazy("Roll the feature of %(holding)s (2D6, R2.4)")


class OpponentsForm(forms.Form):
    first = forms.ChoiceField(label=gettext_lazy("One army"))
    second = forms.ChoiceField(label=gettext_lazy("rolls against"))

    def __init__(self, *args: Any, players: list[Player], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices = [(p.key, p.name) for p in players]
        choice_field(self, "first").choices = choices
        choice_field(self, "second").choices = choices
        sides: dict[int, str] = {}
        for p in players:  # by default the first army of the first two sides
            sides.setdefault(p.side_id, p.key)
        keys = list(sides.values())
        if len(keys) >= 2 and not self.is_bound:
            self.initial = {"first": keys[0], "second": keys[1]}


def rolls_panel(viewer: Viewer, kinds: tuple[str, ...]) -> dict[str, Any]:
    """What the page's set-up-rolls panel shows: the rolls made, and the buttons of those still
    to make (the GM's, while set-up is open)."""
    campaign = viewer.campaign
    lines = setup_rolls_lines(campaign=campaign, kinds=kinds)
    made = {line.kind for line in lines}
    buttons, notes = [], []
    if viewer.is_gm and campaign.setup_open:
        options = adapters.options_of(campaign)
        players = None
        for kind in kinds:
            if kind == Kind.FEATURE:
                buttons += _feature_buttons(campaign, options, lines)
                continue
            if kind in made:
                continue
            if kind in (Kind.CLIMATE, Kind.SEASON) and not options.weather_phase:
                if kind == Kind.CLIMATE:
                    notes.append(
                        _(
                            "Turn on the weather phase above and save: then you can roll the "
                            "climate zone and the season here."
                        )
                    )
                continue
            if kind == Kind.SEASON and options.climate in R.SEASON_FIXED:
                continue  # R4.1.2–3: a cold zone or a desert has its season without a die
            form = None
            if kind in OPPOSED:
                if players is None:
                    players = list(Player.objects.filter(campaign=campaign))
                if len({p.side_id for p in players}) < 2:
                    continue
                form = OpponentsForm(players=players)
            buttons.append({"kind": kind, "label": BUTTON[Kind(kind)], "form": form})
    return {"lines": lines, "buttons": buttons, "notes": notes}


def _feature_buttons(campaign: Any, options: R.Options, lines: list[Any]) -> list[dict[str, Any]]:
    """R2.4: one 2D6 for each holding still without a feature, when the option is on."""
    if not options.holding_features:
        return []
    rolled = {line.target for line in lines if line.kind == Kind.FEATURE}
    return [
        {
            "kind": Kind.FEATURE,
            "label": FEATURE_BUTTON % {"holding": h.name or h.key},
            "form": None,
            "holding": h.key,
        }
        for h in Holding.objects.filter(campaign=campaign, feature="").order_by("key")
        if h.key not in rolled
    ]
