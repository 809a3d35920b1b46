"""The set-up forms: a new campaign, the map editor and import, territory, holdings, sides
and armies, invitations, options, and a roster's forces, commands, units and characters."""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum
from typing import Any, cast

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

import rules as R
from campaign.models import Command, Membership, Player, Side
from campaign.setup.map_import import MAP_MAX, MAP_MIN, MAP_TEXT_MAX
from campaign.setup.options import OPTION_SPECS
from campaign.setup.services import DEFAULT_COLOUR, HOLDING_FEATURE_CHOICES
from campaign.text import labels
from campaign.text_input import TextField

ORDER_CHOICES = labels.choices(labels.STATUS, [s for s in R.Status if s.is_order])  # R2.6.1


def choice_field(form: forms.Form, name: str) -> forms.ChoiceField:
    """The form's field `name`, declared as a `ChoiceField` (`form.fields` types it `Field`),
    for the choices only known when the form is made."""
    return cast(forms.ChoiceField, form.fields[name])


# far above any army, well inside the database's integers: a typo is refused, never a crash
POINTS_MAX = 1_000_000
DESCRIPTION_MAX_LENGTH = 5000


class NewCampaignForm(forms.Form):
    name = TextField(label=gettext_lazy("Name"), max_length=200)
    slug = forms.SlugField(
        label=gettext_lazy("Short name for addresses"),
        max_length=50,
        help_text=gettext_lazy("Lower-case letters, numbers and hyphens, e.g. wend-valley."),
    )
    source = forms.ChoiceField(
        label=gettext_lazy("Start from"),
        choices=[
            ("", gettext_lazy("Scratch: draw the map, place holdings, write the rosters")),
            (
                "incursion",
                gettext_lazy(
                    "The Incursion scenario (§11): its map, holdings and sample armies; the "
                    "players review their rosters, then you start"
                ),
            ),
        ],
        required=False,
        widget=forms.RadioSelect,
    )
    width = forms.IntegerField(
        label=gettext_lazy("Map width (squares)"), min_value=MAP_MIN, max_value=MAP_MAX
    )
    height = forms.IntegerField(
        label=gettext_lazy("Map height (squares)"), min_value=MAP_MIN, max_value=MAP_MAX
    )
    fog_of_war = forms.BooleanField(
        label=gettext_lazy("Fog of war"),
        required=False,
        help_text=gettext_lazy(
            "Players see enemy forces only where their own forces and holdings watch."
        ),
    )
    auto_close = forms.BooleanField(
        label=gettext_lazy("Close each turn automatically when everyone has confirmed"),
        required=False,
        help_text=gettext_lazy(
            "Off: you close each turn yourself, or its deadline does. You can change this "
            "on the overview at any time."
        ),
    )
    description = TextField(
        label=gettext_lazy("Description"),
        required=False,
        max_length=DESCRIPTION_MAX_LENGTH,
        widget=forms.Textarea,
    )


class SquareForm(forms.Form):
    x = forms.IntegerField(label=gettext_lazy("Column (x)"), min_value=0, max_value=MAP_MAX)
    y = forms.IntegerField(label=gettext_lazy("Row (y)"), min_value=0, max_value=MAP_MAX)
    features = forms.MultipleChoiceField(
        label=gettext_lazy("Features (none: open ground)"),
        choices=labels.choices(labels.FEATURE, [f for f in R.Feature if f is not R.Feature.OPEN]),
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    zone = forms.ChoiceField(label=gettext_lazy("Territory of"), required=False)

    def __init__(self, *args: Any, players: Iterable[Player] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choice_field(self, "zone").choices = [
            ("", _("Neutral")),
            *((p.key, p.name) for p in players),
        ]


class ImportForm(forms.Form):
    # the form's metaclass moves its fields into `base_fields`: this one does not replace the
    # bound data, `BaseForm.data`, as the stubs take it to
    data = TextField(  # type: ignore[assignment]
        label=gettext_lazy("Map text"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 10, "spellcheck": "false"}),
    )
    file = forms.FileField(label=gettext_lazy("or a file"), required=False)
    format = forms.ChoiceField(
        label=gettext_lazy("Format"),
        choices=[
            ("", gettext_lazy("Guess (JSON starts with {)")),
            ("json", "JSON"),
            ("csv", "CSV"),
        ],
        required=False,
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        assert data is not None  # `Form.clean` returns the cleaned data
        upload = data.get("file")
        too_long = _("A map is at most a million characters long: this one is far too long.")
        if upload is not None and (upload.size or 0) > MAP_TEXT_MAX * 4:  # UTF-8: 4 bytes a char
            self.add_error("file", too_long)
            return data
        if upload is not None:
            try:
                data["data"] = upload.read().decode("utf-8-sig")
            except UnicodeDecodeError:
                self.add_error("file", _("The file is not UTF-8 text."))
        if len(data.get("data") or "") > MAP_TEXT_MAX:
            self.add_error("file" if upload is not None else "data", too_long)
        elif not data.get("data", "").strip() and not self.errors:
            self.add_error("data", _("Paste a map or choose a file."))
        return data


class TerritoryForm(forms.Form):
    axis = forms.ChoiceField(
        label=gettext_lazy("Cut the map"),
        choices=[
            ("x", gettext_lazy("Into columns: west, centre, east")),
            ("y", gettext_lazy("Into rows: north, centre, south")),
        ],
        widget=forms.RadioSelect,
    )
    west_player = forms.ChoiceField(label=gettext_lazy("West (or north) third goes to"))
    east_player = forms.ChoiceField(label=gettext_lazy("East (or south) third goes to"))

    def __init__(self, *args: Any, players: Iterable[Player] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices = [(p.key, p.name) for p in players]
        choice_field(self, "west_player").choices = choices
        choice_field(self, "east_player").choices = choices


class HoldingForm(forms.Form):
    player = forms.ChoiceField(label=gettext_lazy("Army"))
    name = TextField(label=gettext_lazy("Name"), max_length=100, required=False)
    x = forms.IntegerField(label=gettext_lazy("Column (x)"), min_value=0, max_value=MAP_MAX)
    y = forms.IntegerField(label=gettext_lazy("Row (y)"), min_value=0, max_value=MAP_MAX)
    capital = forms.BooleanField(label=gettext_lazy("Capital"), required=False)
    port = forms.BooleanField(
        label=gettext_lazy("Port: its force on Defend receives two free ships a turn (R6.11.1–2)"),
        required=False,
    )
    feature = forms.ChoiceField(
        label=gettext_lazy("Holding feature (§2.4, the 2D6 result)"),
        required=False,
        choices=[("", "—"), *HOLDING_FEATURE_CHOICES],
    )

    def __init__(
        self,
        *args: Any,
        players: Iterable[Player] = (),
        features: bool = False,
        naval: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        choice_field(self, "player").choices = [(p.key, p.name) for p in players]
        if not features:
            del self.fields["feature"]
        if not naval:  # ports only matter with naval movement (§6.11)
            del self.fields["port"]


class SideForm(forms.Form):
    name = TextField(label=gettext_lazy("Side name"), max_length=100)


class PlayerForm(forms.Form):
    name = TextField(label=gettext_lazy("Army name"), max_length=100)
    side = forms.ChoiceField(label=gettext_lazy("Side"))
    race = TextField(
        label=gettext_lazy("Race"),
        max_length=100,
        required=False,
        help_text=gettext_lazy(
            "Dwarves, Wood Elves, Goblins and Orcs may build on their own terrain."
        ),
        widget=forms.TextInput(attrs={"list": "races"}),
    )
    colour = TextField(
        label=gettext_lazy("Colour"),
        initial=DEFAULT_COLOUR,
        widget=forms.TextInput(attrs={"type": "color"}),
    )
    initial_points = forms.IntegerField(
        label=gettext_lazy("Army points"),
        min_value=0,
        max_value=POINTS_MAX,
        initial=0,
        help_text=gettext_lazy("The agreed army value (§1.1)."),
    )
    tribal = forms.BooleanField(label=gettext_lazy("Tribal or fanatic"), required=False)
    light = forms.BooleanField(
        label=gettext_lazy("Light side"),
        required=False,
        initial=True,
        help_text=gettext_lazy("For holding features (§2.4)."),
    )

    def __init__(self, *args: Any, sides: Iterable[Side] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choice_field(self, "side").choices = [(s.key, s.name) for s in sides]


class InvitationForm(forms.Form):
    role = forms.ChoiceField(label=gettext_lazy("Role"), choices=Membership.Role.choices)
    target = forms.ChoiceField(label=gettext_lazy("Army or side"), required=False)
    max_uses = forms.IntegerField(
        label=gettext_lazy("Uses allowed"), min_value=1, max_value=1000, initial=1
    )
    expires_in_days = forms.IntegerField(
        label=gettext_lazy("Expires after (days)"),
        min_value=1,
        max_value=365,
        required=False,
        initial=14,
        help_text=gettext_lazy("Leave empty for a link that never expires."),
    )
    email = forms.EmailField(
        label=gettext_lazy("Send the link to (email, optional)"),
        required=False,
        help_text=gettext_lazy(
            "The guest gets the link by email; without an address, copy the link below and "
            "send it yourself."
        ),
    )

    def __init__(
        self, *args: Any, players: Iterable[Player] = (), sides: Iterable[Side] = (), **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        choice_field(self, "target").choices = [
            ("", "—"),
            *((f"player:{p.key}", _("Army: %(name)s") % {"name": p.name}) for p in players),
            *((f"side:{s.key}", _("New army on side: %(name)s") % {"name": s.name}) for s in sides),
        ]


class OptionsForm(forms.Form):
    """Every campaign option (`rules.types.Options`) with its rule and explanation."""

    def __init__(self, *args: Any, options: R.Options, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for spec in OPTION_SPECS:
            current = getattr(options, spec.name)
            if isinstance(current, Enum):
                current = current.value
            default = spec.default
            field: forms.Field
            if spec.choices:
                field = forms.ChoiceField(choices=spec.choices)
            elif isinstance(default, bool):
                field = forms.BooleanField(required=False)
            else:
                field = forms.IntegerField(
                    min_value=spec.minimum, max_value=POINTS_MAX, required=default is not None
                )
            field.label = spec.name
            field.help_text = spec.help
            field.initial = current
            self.fields[spec.name] = field


class ForceForm(forms.Form):
    name = TextField(label=gettext_lazy("Force name"), max_length=100, required=False)
    x = forms.IntegerField(label=gettext_lazy("Column (x)"), min_value=0, max_value=MAP_MAX)
    y = forms.IntegerField(label=gettext_lazy("Row (y)"), min_value=0, max_value=MAP_MAX)
    status = forms.ChoiceField(label=gettext_lazy("Initial order (R2.6.1)"), choices=ORDER_CHOICES)
    leader = forms.ChoiceField(
        label=gettext_lazy("Leader among generals of equal CV (R2.5.4)"), required=False
    )
    ships = forms.IntegerField(
        label=gettext_lazy("Ships (R6.11.2: 100 points each beyond a port's free ones)"),
        help_text=gettext_lazy(
            "A ship carries 10 figures on foot, 5 mounted, or one artillery piece, flyer or "
            "creature (R6.11.3); the force sails only if its ships carry it all."
        ),
        min_value=0,
        max_value=99,
        required=False,
    )
    boats = forms.IntegerField(
        label=gettext_lazy("Boats (R6.11.4: 10 points each)"),
        help_text=gettext_lazy(
            "Boats, canoes or pirogues for navigable rivers: each carries 2 figures on foot."
        ),
        min_value=0,
        max_value=999,
        required=False,
    )
    rafts = forms.IntegerField(
        label=gettext_lazy("Rafts (R6.11.4: 20 points each)"),
        help_text=gettext_lazy(
            "Rafts or barges: each carries 2 mounted figures, or one war machine or creature."
        ),
        min_value=0,
        max_value=999,
        required=False,
    )
    sea_folk = forms.BooleanField(
        label=gettext_lazy("Pirate force (R6.11.6)"),
        help_text=gettext_lazy(
            "Wholly of sea-folk mercenaries (pirates, corsairs, buccaneers): it may exist "
            "without a regular command and gets all its ships free; foot only, or cavalry and "
            "artillery together at most a third of its points."
        ),
        required=False,
    )

    def __init__(
        self,
        *args: Any,
        generals: Iterable[Command] | None = None,
        naval: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        if not naval:  # ships only matter with naval movement (§6.11)
            for name in ("ships", "boats", "rafts", "sea_folk"):
                del self.fields[name]
        if generals is None:
            del self.fields["leader"]
        else:
            choice_field(self, "leader").choices = [
                ("", _("The first listed")),
                *((c.general_key, c.general_name or c.general_key) for c in generals),
            ]


class CommandForm(forms.Form):
    general_name = TextField(label=gettext_lazy("General"), max_length=100)
    general_cv = forms.IntegerField(
        label=gettext_lazy("Command value (CV)"),
        min_value=0,
        max_value=99,
        help_text=gettext_lazy("From 1 to 6."),
    )
    general_points = forms.IntegerField(
        label=gettext_lazy("General's points"), min_value=0, max_value=POINTS_MAX, initial=0
    )
    general_mounted = forms.BooleanField(label=gettext_lazy("Mounted"), required=False)


class UnitForm(forms.Form):
    type = TextField(label=gettext_lazy("Unit type"), max_length=100)
    speciality = forms.ChoiceField(
        label=gettext_lazy("Speciality"), choices=labels.choices(labels.SPECIALITY)
    )
    quality = forms.ChoiceField(
        label=gettext_lazy("Quality"), choices=labels.choices(labels.QUALITY)
    )
    figures = forms.IntegerField(label=gettext_lazy("Figures"), min_value=1, max_value=10_000)
    points_per_figure = forms.IntegerField(
        label=gettext_lazy("Points per figure"), min_value=0, max_value=POINTS_MAX, initial=0
    )
    mercenary = forms.BooleanField(label=gettext_lazy("Mercenary or allied"), required=False)
    missile = forms.BooleanField(label=gettext_lazy("Missile weapons"), required=False)
    mounted = forms.BooleanField(label=gettext_lazy("Mounted"), required=False)
    min_figures = forms.IntegerField(
        label=gettext_lazy("Minimum size"),
        min_value=0,
        max_value=10_000,
        initial=0,
        required=False,
        help_text=gettext_lazy(
            "The army list's minimum number of figures, for new units formed from a "
            "regrouping pool (R8.3.3); 0 if none is formed."
        ),
    )
    leader_points = forms.IntegerField(
        label=gettext_lazy("Leader's points"),
        min_value=0,
        max_value=POINTS_MAX,
        initial=0,
        required=False,
        help_text=gettext_lazy("What its mandatory Leader costs beyond his figure (R8.3.3)."),
    )


class NewUnitForm(UnitForm):
    command = forms.ChoiceField(label=gettext_lazy("Command"))

    field_order = ["command"]

    def __init__(self, *args: Any, commands: Iterable[Command] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choice_field(self, "command").choices = [(c.key, c.general_name or c.key) for c in commands]


class IndividualForm(forms.Form):
    kind = forms.ChoiceField(
        label=gettext_lazy("Character"), choices=labels.choices(labels.INDIVIDUAL_KIND)
    )
    name = TextField(label=gettext_lazy("Name"), max_length=100, required=False)
    points = forms.IntegerField(
        label=gettext_lazy("Points"), min_value=0, max_value=POINTS_MAX, initial=0
    )
    mounted = forms.BooleanField(label=gettext_lazy("Mounted"), required=False)
    magic_points = forms.IntegerField(
        label=gettext_lazy("Magic points"),
        min_value=0,
        max_value=POINTS_MAX,
        initial=0,
        help_text=gettext_lazy("For wizards (R2.5.8)."),
    )
