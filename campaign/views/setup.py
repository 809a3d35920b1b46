"""Set-up pages (spec §2): new campaign, map editor, map import, territory, holdings, options,
players, invitations, joining, rosters and the start. One view per page; an htmx request gets
the page's fragment (`"page.html#part"`). Every write goes through `campaign.services_setup`,
whose refusals are shown beside the field they concern.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import timedelta
from enum import Enum
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from campaign import adapters
from campaign import services_setup as setup
from campaign.access import NotAllowed, Viewer, campaign_viewer, require_gm
from campaign.models import (
    Campaign,
    Command,
    Force,
    Holding,
    Individual,
    Invitation,
    Membership,
    Player,
    Side,
    Square,
    Unit,
)
from campaign.services import ServiceError
from rules import types as R
from rules.codec import from_data
from rules.setup import RACE_HOLDING_TERRAIN, validate_force_organisation

L = gettext_lazy
CELL = 32  # SVG units per map square

# --- forms -----------------------------------------------------------------------------------


ORDER_CHOICES = setup.enum_choices(s for s in R.Status if s.is_order)  # R2.6.1


class NewCampaignForm(forms.Form):
    name = forms.CharField(label=L("Name"), max_length=200)
    slug = forms.SlugField(
        label=L("Short name for addresses"),
        max_length=50,
        help_text=L("Lower-case letters, numbers and hyphens, e.g. wend-valley."),
    )
    source = forms.ChoiceField(
        label=L("Start from"),
        choices=[
            ("", L("Scratch: draw the map, place holdings, write the rosters")),
            ("incursion", L("The Incursion scenario (§11): ready to play")),
        ],
        required=False,
        widget=forms.RadioSelect,
    )
    width = forms.IntegerField(
        label=L("Map width (squares)"), min_value=setup.MAP_MIN, max_value=setup.MAP_MAX
    )
    height = forms.IntegerField(
        label=L("Map height (squares)"), min_value=setup.MAP_MIN, max_value=setup.MAP_MAX
    )
    fog_of_war = forms.BooleanField(
        label=L("Fog of war"),
        required=False,
        help_text=L("Players see enemy forces only where their own forces and holdings watch."),
    )
    description = forms.CharField(label=L("Description"), required=False, widget=forms.Textarea)


class SquareForm(forms.Form):
    x = forms.IntegerField(label=L("Column (x)"), min_value=0)
    y = forms.IntegerField(label=L("Row (y)"), min_value=0)
    features = forms.MultipleChoiceField(
        label=L("Features (none: open ground)"),
        choices=setup.enum_choices(f for f in R.Feature if f is not R.Feature.OPEN),
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    zone = forms.ChoiceField(label=L("Territory of"), required=False)

    def __init__(self, *args: Any, players: Iterable[Player] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["zone"].choices = [("", _("Neutral")), *((p.key, p.name) for p in players)]


class ImportForm(forms.Form):
    data = forms.CharField(
        label=L("Map text"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 10, "spellcheck": "false"}),
    )
    file = forms.FileField(label=L("or a file"), required=False)
    format = forms.ChoiceField(
        label=L("Format"),
        choices=[("", L("Guess (JSON starts with {)")), ("json", "JSON"), ("csv", "CSV")],
        required=False,
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        upload = data.get("file")
        if upload is not None:
            try:
                data["data"] = upload.read().decode("utf-8-sig")
            except UnicodeDecodeError:
                self.add_error("file", _("The file is not UTF-8 text."))
        if not data.get("data", "").strip() and not self.errors:
            self.add_error("data", _("Paste a map or choose a file."))
        return data


class TerritoryForm(forms.Form):
    axis = forms.ChoiceField(
        label=L("Cut the map"),
        choices=[
            ("x", L("Into columns: west, centre, east")),
            ("y", L("Into rows: north, centre, south")),
        ],
        widget=forms.RadioSelect,
    )
    west_player = forms.ChoiceField(label=L("West (or north) third goes to"))
    east_player = forms.ChoiceField(label=L("East (or south) third goes to"))

    def __init__(self, *args: Any, players: Iterable[Player] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices = [(p.key, p.name) for p in players]
        self.fields["west_player"].choices = choices
        self.fields["east_player"].choices = choices


class HoldingForm(forms.Form):
    player = forms.ChoiceField(label=L("Army"))
    name = forms.CharField(label=L("Name"), max_length=100, required=False)
    x = forms.IntegerField(label=L("Column (x)"), min_value=0)
    y = forms.IntegerField(label=L("Row (y)"), min_value=0)
    capital = forms.BooleanField(label=L("Capital"), required=False)
    feature = forms.ChoiceField(
        label=L("Holding feature (§2.4, the 2D6 result)"),
        required=False,
        choices=[("", "—"), *setup.HOLDING_FEATURE_CHOICES],
    )

    def __init__(
        self, *args: Any, players: Iterable[Player] = (), features: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.fields["player"].choices = [(p.key, p.name) for p in players]
        if not features:
            del self.fields["feature"]


class SideForm(forms.Form):
    name = forms.CharField(label=L("Side name"), max_length=100)


class PlayerForm(forms.Form):
    name = forms.CharField(label=L("Army name"), max_length=100)
    side = forms.ChoiceField(label=L("Side"))
    race = forms.CharField(
        label=L("Race"),
        max_length=100,
        required=False,
        help_text=L("Dwarves, Wood Elves, Goblins and Orcs may build on their own terrain."),
        widget=forms.TextInput(attrs={"list": "races"}),
    )
    colour = forms.CharField(
        label=L("Colour"),
        initial=setup.DEFAULT_COLOUR,
        widget=forms.TextInput(attrs={"type": "color"}),
    )
    initial_points = forms.IntegerField(
        label=L("Army points"), min_value=0, initial=0, help_text=L("The agreed army value (§1.1).")
    )
    tribal = forms.BooleanField(label=L("Tribal or fanatic"), required=False)
    light = forms.BooleanField(
        label=L("Light side"),
        required=False,
        initial=True,
        help_text=L("For holding features (§2.4)."),
    )

    def __init__(self, *args: Any, sides: Iterable[Side] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["side"].choices = [(s.key, s.name) for s in sides]


class InvitationForm(forms.Form):
    role = forms.ChoiceField(label=L("Role"), choices=Membership.Role.choices)
    target = forms.ChoiceField(label=L("Army or side"), required=False)
    max_uses = forms.IntegerField(label=L("Uses allowed"), min_value=1, initial=1)
    expires_in_days = forms.IntegerField(
        label=L("Expires after (days)"),
        min_value=1,
        max_value=365,
        required=False,
        initial=14,
        help_text=L("Leave empty for a link that never expires."),
    )

    def __init__(
        self, *args: Any, players: Iterable[Player] = (), sides: Iterable[Side] = (), **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.fields["target"].choices = [
            ("", "—"),
            *((f"player:{p.key}", _("Army: %(name)s") % {"name": p.name}) for p in players),
            *((f"side:{s.key}", _("New army on side: %(name)s") % {"name": s.name}) for s in sides),
        ]


class OptionsForm(forms.Form):
    """Every campaign option (`rules.types.Options`) with its rule and explanation."""

    def __init__(self, *args: Any, options: R.Options, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for spec in setup.OPTION_SPECS:
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
                field = forms.IntegerField(min_value=spec.minimum, required=default is not None)
            field.label = spec.name
            field.help_text = spec.help
            field.initial = current
            self.fields[spec.name] = field


class ForceForm(forms.Form):
    name = forms.CharField(label=L("Force name"), max_length=100, required=False)
    x = forms.IntegerField(label=L("Column (x)"), min_value=0)
    y = forms.IntegerField(label=L("Row (y)"), min_value=0)
    status = forms.ChoiceField(label=L("Initial order (R2.6.1)"), choices=ORDER_CHOICES)
    leader = forms.ChoiceField(
        label=L("Leader among generals of equal CV (R2.5.4)"), required=False
    )

    def __init__(self, *args: Any, generals: Iterable[Command] | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        if generals is None:
            del self.fields["leader"]
        else:
            self.fields["leader"].choices = [
                ("", _("The first listed")),
                *((c.general_key, c.general_name or c.general_key) for c in generals),
            ]


class CommandForm(forms.Form):
    general_name = forms.CharField(label=L("General"), max_length=100)
    general_cv = forms.IntegerField(
        label=L("Command value (CV)"), min_value=0, help_text=L("From 1 to 6.")
    )
    general_points = forms.IntegerField(label=L("General's points"), min_value=0, initial=0)
    general_mounted = forms.BooleanField(label=L("Mounted"), required=False)


class UnitForm(forms.Form):
    type = forms.CharField(label=L("Unit type"), max_length=100)
    speciality = forms.ChoiceField(label=L("Speciality"), choices=setup.enum_choices(R.Speciality))
    quality = forms.ChoiceField(label=L("Quality"), choices=setup.enum_choices(R.Quality))
    figures = forms.IntegerField(label=L("Figures"), min_value=1)
    points_per_figure = forms.IntegerField(label=L("Points per figure"), min_value=0, initial=0)
    mercenary = forms.BooleanField(label=L("Mercenary or allied"), required=False)
    missile = forms.BooleanField(label=L("Missile weapons"), required=False)
    mounted = forms.BooleanField(label=L("Mounted"), required=False)


class NewUnitForm(UnitForm):
    command = forms.ChoiceField(label=L("Command"))

    field_order = ["command"]

    def __init__(self, *args: Any, commands: Iterable[Command] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["command"].choices = [(c.key, c.general_name or c.key) for c in commands]


class IndividualForm(forms.Form):
    kind = forms.ChoiceField(label=L("Character"), choices=setup.enum_choices(R.IndividualKind))
    name = forms.CharField(label=L("Name"), max_length=100, required=False)
    points = forms.IntegerField(label=L("Points"), min_value=0, initial=0)
    mounted = forms.BooleanField(label=L("Mounted"), required=False)
    magic_points = forms.IntegerField(
        label=L("Magic points"), min_value=0, initial=0, help_text=L("For wizards (R2.5.8).")
    )


def _show_errors(error: setup.InvalidSetup, *forms_: forms.Form) -> None:
    """Put each refusal beside its field, in the first form that has it; the rest above the
    first form."""
    for field, msgs in error.errors.items():
        target = next((f for f in forms_ if field is not None and field in f.fields), None)
        for m in msgs:
            (target or forms_[0]).add_error(field if target else None, m)


def _service_error(request: HttpRequest, e: ServiceError, *forms_: forms.Form) -> None:
    """Show a refusal on the bound forms it concerns, or as a message when none is bound (a
    delete button's refusal)."""
    bound = [f for f in forms_ if f.is_bound]
    if not bound:
        messages.error(request, str(e))
    elif isinstance(e, setup.InvalidSetup):
        _show_errors(e, *bound)
    else:
        bound[0].add_error(None, str(e))


# --- access ----------------------------------------------------------------------------------


def _gm(request: HttpRequest, slug: str, *, setup_only: bool = True) -> Viewer:
    viewer = campaign_viewer(request, slug)
    require_gm(viewer)
    if setup_only:
        _require_setup(viewer)
    return viewer


def _require_setup(viewer: Viewer) -> None:
    if not viewer.campaign.setup_open:
        raise NotAllowed(_("The set-up of this campaign is closed."))


def _page(request: HttpRequest, viewer: Viewer, title: str, **context: Any) -> dict[str, Any]:
    return {"campaign": viewer.campaign, "viewer": viewer, "page_title": title, **context}


def _render(
    request: HttpRequest, template: str, context: dict[str, Any], *, status: int = 200
) -> HttpResponse:
    return render(request, template, context, status=status)


# --- the map ---------------------------------------------------------------------------------

BASE_ORDER = (  # the terrain that colours a square, most telling first
    "mountain",
    "swamp",
    "jungle",
    "forest",
    "desert",
    "wasteland",
    "hill",
    "cultivated",
    "uncultivated",
)
GLYPHS = {"bridge": "=", "pass": ")"}


def map_grid(
    campaign: Campaign,
    *,
    editable: bool,
    selected: tuple[int, int] | None = None,
    holdings: Iterable[Holding] | None = None,
) -> dict[str, Any]:
    """What the SVG map needs: one entry per square, with its colour class, overlays, zone
    colour, holding (all, or the given ones) and a title for screen readers."""
    players = {p.key: p for p in Player.objects.filter(campaign=campaign)}
    if holdings is None:
        holdings = Holding.objects.filter(campaign=campaign)
    by_square = {(h.x, h.y): h for h in holdings}
    squares = []
    for sq in Square.objects.filter(campaign=campaign).order_by("y", "x"):
        feats = set(sq.features)
        base = next((b for b in BASE_ORDER if b in feats), "open")
        zone = players.get(sq.zone)
        holding = by_square.get((sq.x, sq.y))
        owner = next((p for p in players.values() if holding and p.pk == holding.owner_id), None)
        label = ", ".join(str(setup.LABELS[R.Feature(f)]) for f in sorted(feats)) or _("open")
        title = f"({sq.x}, {sq.y}) {label}"
        if zone:
            title += " · " + _("territory of %(p)s") % {"p": zone.name}
        if holding:
            title += " · " + (holding.name or holding.key)
        squares.append(
            {
                "x": sq.x,
                "y": sq.y,
                "px": sq.x * CELL,
                "py": sq.y * CELL,
                "base": base,
                "river": "river" in feats,
                "road": bool(feats & {"road", "track"}),
                "glyph": "".join(GLYPHS[g] for g in ("bridge", "pass") if g in feats),
                "zone_colour": zone.colour if zone else "",
                "holding": holding,
                "holding_colour": owner.colour if owner else "",
                "title": title,
                "selected": selected == (sq.x, sq.y),
                "vals": json.dumps({"x": sq.x, "y": sq.y}),
            }
        )
    return {
        "squares": squares,
        "cell": CELL,
        "half": CELL // 2,
        "svg_width": campaign.width * CELL,
        "svg_height": campaign.height * CELL,
        "min_width": campaign.width * 22,
        "max_width": campaign.width * 56,
        "editable": editable,
        "columns": range(campaign.width),
        "rows": range(campaign.height),
    }


def _brushes(players: Iterable[Player]) -> list[dict[str, str]]:
    """Every brush: clearing, each feature, each army's territory and neutral ground; with
    the css class or colour of its swatch."""
    out = [{"value": "clear", "label": _("Clear (open ground)"), "css": "b-open", "colour": ""}]
    out += [
        {
            "value": f"feature:{f.value}",
            "label": setup.LABELS[f],
            "css": f"b-{f.value}",
            "colour": "",
        }
        for f in R.Feature
        if f is not R.Feature.OPEN
    ]
    out += [
        {
            "value": f"zone:{p.key}",
            "label": _("Territory: %(p)s") % {"p": p.name},
            "css": "",
            "colour": p.colour,
        }
        for p in players
    ]
    out.append({"value": "zone:", "label": _("Territory: neutral"), "css": "b-open", "colour": ""})
    return out


def _coord(request: HttpRequest) -> tuple[int, int] | None:
    try:
        return int(request.GET["x"]), int(request.GET["y"])
    except (KeyError, ValueError):
        return None


def setup_map(request: HttpRequest, slug: str) -> HttpResponse:
    """The map editor: pick a brush, click squares; or set one square with the form."""
    viewer = _gm(request, slug)
    campaign = viewer.campaign
    players = list(Player.objects.filter(campaign=campaign))
    selected = _coord(request)
    initial: dict[str, Any] = {}
    if selected is not None:
        sq = Square.objects.filter(campaign=campaign, x=selected[0], y=selected[1]).first()
        if sq is not None:
            initial = {"x": sq.x, "y": sq.y, "features": sq.features, "zone": sq.zone}
    brush = request.GET.get("brush", "feature:forest")
    context = _page(
        request,
        viewer,
        _("Map editor"),
        grid=map_grid(campaign, editable=True, selected=selected),
        brushes=_brushes(players),
        brush=brush,
        square_form=SquareForm(initial=initial, players=players),
    )
    if request.htmx:
        return _render(request, "campaign/setup_map.html#map-grid", context)
    return _render(request, "campaign/setup_map.html", context)


@require_POST
def setup_square(request: HttpRequest, slug: str) -> HttpResponse:
    """Change one square: a click with a brush toggles that feature (htmx answers with the
    redrawn map), the plain form sets all its features and its territory."""
    viewer = _gm(request, slug)
    campaign = viewer.campaign
    players = list(Player.objects.filter(campaign=campaign))
    error = ""
    x = y = None
    try:
        x, y = int(request.POST["x"]), int(request.POST["y"])
    except (KeyError, ValueError):
        error = _("Say which square: x and y.")
    try:
        if error:
            raise setup.InvalidSetup(error)
        square = Square.objects.filter(campaign=campaign, x=x, y=y).first()
        if square is None:
            raise setup.InvalidSetup(_("Square (%(x)d, %(y)d) is off the map.") % {"x": x, "y": y})
        brush = request.POST.get("brush")
        if brush is not None:
            _brush_apply(campaign, square, brush)
        else:
            form = SquareForm(request.POST, players=players)
            if not form.is_valid():
                raise setup.InvalidSetup([e for errs in form.errors.values() for e in errs])
            setup.square_features_set(
                campaign=campaign, x=x, y=y, features=form.cleaned_data["features"]
            )
            if form.cleaned_data["zone"] != square.zone:
                setup.square_zone_set(campaign=campaign, x=x, y=y, zone=form.cleaned_data["zone"])
    except ServiceError as e:
        error = str(e)
    if request.htmx:
        context = _page(
            request,
            viewer,
            _("Map editor"),
            grid=map_grid(campaign, editable=True),
            map_error=error,
        )
        return _render(request, "campaign/setup_map.html#map-grid", context)
    if error:
        messages.error(request, error)
    else:
        messages.success(request, _("Square (%(x)d, %(y)d) saved.") % {"x": x, "y": y})
    url = reverse("campaign:setup-map", args=[campaign.slug])
    if x is not None and y is not None:
        url += f"?x={x}&y={y}#square-form"
    return redirect(url)


def _brush_apply(campaign: Campaign, square: Square, brush: str) -> None:
    kind, _sep, value = brush.partition(":")
    if kind == "clear":
        setup.square_features_set(campaign=campaign, x=square.x, y=square.y, features=[])
    elif kind == "feature":
        feats = set(square.features)
        feats.symmetric_difference_update({value})
        setup.square_features_set(campaign=campaign, x=square.x, y=square.y, features=feats)
    elif kind == "zone":
        zone = "" if square.zone == value else value
        setup.square_zone_set(campaign=campaign, x=square.x, y=square.y, zone=zone)
    else:
        raise setup.InvalidSetup(_("Unknown brush %(b)r.") % {"b": brush})


def setup_import(request: HttpRequest, slug: str) -> HttpResponse:
    """Import a whole map from JSON or CSV text (the formats are explained on the page)."""
    viewer = _gm(request, slug)
    campaign = viewer.campaign
    form = ImportForm(request.POST or None, request.FILES or None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                parsed = setup.map_import(
                    campaign=campaign,
                    data=form.cleaned_data["data"],
                    format=form.cleaned_data["format"] or None,
                )
            except ServiceError as e:
                _service_error(request, e, form)
            else:
                messages.success(
                    request,
                    _("Map imported: %(w)d × %(h)d squares.")
                    % {"w": parsed.width, "h": parsed.height},
                )
                return redirect("campaign:setup-map", campaign.slug)
        status = 400
    players = list(Player.objects.filter(campaign=campaign).values_list("key", flat=True))
    example_zone = players[0] if players else "red"
    context = _page(
        request,
        viewer,
        _("Import a map"),
        form=form,
        example_zone=example_zone,
        features=[f.value for f in R.Feature],
    )
    return _render(request, "campaign/setup_import.html", context, status=status)


def setup_territory(request: HttpRequest, slug: str) -> HttpResponse:
    """R2.2: the map in thirds; each outer third is one player's friendly territory."""
    viewer = _gm(request, slug)
    campaign = viewer.campaign
    players = list(Player.objects.filter(campaign=campaign).select_related("side"))
    form = TerritoryForm(request.POST or None, players=players, initial={"axis": "x"})
    status = 200
    if request.method == "POST":
        if form.is_valid():
            by_key = {p.key: p for p in players}
            try:
                setup.territory_thirds_apply(
                    campaign=campaign,
                    axis=form.cleaned_data["axis"],
                    west_player=by_key[form.cleaned_data["west_player"]],
                    east_player=by_key[form.cleaned_data["east_player"]],
                )
            except ServiceError as e:
                _service_error(request, e, form)
            else:
                messages.success(request, _("Territory divided."))
                return redirect("campaign:setup-territory", campaign.slug)
        status = 400
    context = _page(
        request,
        viewer,
        _("Territory"),
        form=form,
        players=players,
        thirds={
            "x": setup.thirds_describe(campaign, "x"),
            "y": setup.thirds_describe(campaign, "y"),
        },
        grid=map_grid(campaign, editable=False),
    )
    return _render(request, "campaign/setup_territory.html", context, status=status)


def setup_holdings(request: HttpRequest, slug: str) -> HttpResponse:
    """R2.3: place and remove holdings. The GM places any army's; a player his own."""
    viewer = campaign_viewer(request, slug)
    campaign = viewer.campaign
    if viewer.is_gm:
        players = list(Player.objects.filter(campaign=campaign))
    elif viewer.is_player:
        players = [viewer.player]
    else:
        raise NotAllowed(_("Only the game master and the players place holdings."))
    _require_setup(viewer)
    options = from_data(R.Options, campaign.options)
    keys = {p.key for p in players}
    form = HoldingForm(
        request.POST if request.POST.get("action") == "place" else None,
        players=players,
        features=options.holding_features,
    )
    status = 200
    if request.method == "POST":
        action = request.POST.get("action")
        if action == "remove":
            holding = get_object_or_404(Holding, campaign=campaign, key=request.POST.get("key"))
            if holding.owner.key not in keys:
                raise NotAllowed(_("That holding is not yours."))
            setup.holding_remove(holding=holding)
            messages.success(request, _("Holding removed."))
            return redirect("campaign:setup-holdings", campaign.slug)
        if action != "place":
            raise Http404("Unknown action.")
        if form.is_valid():
            d = form.cleaned_data
            player = next(p for p in players if p.key == d["player"])
            try:
                holding = setup.holding_place(
                    campaign=campaign,
                    player=player,
                    x=d["x"],
                    y=d["y"],
                    name=d["name"],
                    capital=d["capital"],
                    feature=d.get("feature", ""),
                )
            except ServiceError as e:
                _service_error(request, e, form)
            else:
                messages.success(
                    request, _("%(name)s placed.") % {"name": holding.name or holding.key}
                )
                return redirect("campaign:setup-holdings", campaign.slug)
        status = 400
    holdings = Holding.objects.filter(campaign=campaign).select_related("owner")
    if not viewer.is_gm:
        # a player sees his side's holdings; the enemy's only without fog of war
        holdings = holdings.filter(owner__side=viewer.player.side)
    holdings = list(holdings)
    for h in holdings:
        h.feature_label = setup.HOLDING_FEATURE_LABELS.get(h.feature, h.feature)
    context = _page(
        request,
        viewer,
        _("Holdings"),
        form=form,
        holdings=holdings,
        removable=keys,
        grid=map_grid(
            campaign,
            editable=False,
            holdings=holdings if campaign.fog_of_war and not viewer.is_gm else None,
        ),
    )
    return _render(request, "campaign/setup_holdings.html", context, status=status)


def setup_options(request: HttpRequest, slug: str) -> HttpResponse:
    """Every campaign option with its rule and a one-line explanation. Members read them; the
    GM changes them while set-up is open."""
    viewer = campaign_viewer(request, slug)
    campaign = viewer.campaign
    options = from_data(R.Options, campaign.options)
    editable = viewer.is_gm and campaign.setup_open
    if request.method == "POST" and not editable:
        require_gm(viewer)
        _require_setup(viewer)
    form = OptionsForm(request.POST or None, options=options)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                setup.options_update(campaign=campaign, data=form.cleaned_data)
            except ServiceError as e:
                _service_error(request, e, form)
            else:
                messages.success(request, _("Options saved."))
                return redirect("campaign:setup-options", campaign.slug)
        status = 400
    rows = []
    for spec in setup.OPTION_SPECS:
        value = getattr(options, spec.name)
        rows.append(
            {
                "spec": spec,
                "field": form[spec.name],
                "value": _option_display(spec, value.value if isinstance(value, Enum) else value),
                "default": _option_display(spec, spec.default),
            }
        )
    context = _page(request, viewer, _("Options"), form=form, rows=rows, editable=editable)
    return _render(request, "campaign/setup_options.html", context, status=status)


def _option_display(spec: setup.OptionSpec, value: Any) -> str:
    if isinstance(value, bool):
        return _("on") if value else _("off")
    if value is None:
        return _("no limit")
    for v, label in spec.choices:
        if v == value:
            return str(label)
    return str(value)


def setup_players(request: HttpRequest, slug: str) -> HttpResponse:
    """Sides (alliances) and their armies: name, race, colour, points."""
    viewer = _gm(request, slug)
    campaign = viewer.campaign
    sides = list(Side.objects.filter(campaign=campaign))
    action = request.POST.get("action", "")
    edit_key = request.GET.get("edit") or request.POST.get("key", "")
    editing = (
        Player.objects.filter(campaign=campaign, key=edit_key).select_related("side").first()
        if edit_key and action in ("", "player-update")
        else None
    )
    side_form = SideForm(request.POST if action == "side-create" else None, prefix="side")
    player_form = PlayerForm(
        request.POST if action in ("player-create", "player-update") else None,
        sides=sides,
        initial=_player_initial(editing) if editing else {"side": sides[0].key if sides else ""},
    )
    status = 200
    if request.method == "POST":
        try:
            done = _players_post(request, campaign, action, side_form, player_form, editing)
        except ServiceError as e:
            _service_error(request, e, player_form if action.startswith("player") else side_form)
            done = None
        if done:
            messages.success(request, done)
            return redirect("campaign:setup-players", campaign.slug)
        status = 400
    players = Player.objects.filter(campaign=campaign).select_related("side")
    members = {
        m.player_id: m.user.get_username()
        for m in Membership.objects.filter(campaign=campaign, player__isnull=False).select_related(
            "user"
        )
    }
    context = _page(
        request,
        viewer,
        _("Sides and armies"),
        sides=sides,
        players=[(p, members.get(p.pk, "")) for p in players],
        side_form=side_form,
        player_form=player_form,
        editing=editing,
        races=[
            (race, ", ".join(sorted(f.value for f in terrain)))
            for race, terrain in RACE_HOLDING_TERRAIN.items()
        ],
    )
    return _render(request, "campaign/setup_players.html", context, status=status)


def _player_initial(p: Player) -> dict[str, Any]:
    return {
        "name": p.name,
        "side": p.side.key,
        "race": p.race,
        "colour": p.colour,
        "initial_points": p.initial_points,
        "tribal": p.tribal,
        "light": p.light,
    }


def _players_post(
    request: HttpRequest,
    campaign: Campaign,
    action: str,
    side_form: SideForm,
    player_form: PlayerForm,
    editing: Player | None,
) -> str | None:
    """Carry out one action of the players page; the success message, or None."""
    if action == "side-create":
        if side_form.is_valid():
            side = setup.side_create(campaign=campaign, name=side_form.cleaned_data["name"])
            return _("Side %(name)s created.") % {"name": side.name}
        return None
    if action == "side-delete":
        side = get_object_or_404(Side, campaign=campaign, key=request.POST.get("key"))
        setup.side_delete(side=side)
        return _("Side deleted.")
    if action == "player-delete":
        player = get_object_or_404(Player, campaign=campaign, key=request.POST.get("key"))
        setup.player_delete(player=player)
        return _("Army deleted.")
    if action in ("player-create", "player-update"):
        if action == "player-update" and editing is None:
            raise Http404("No such army.")
        if not player_form.is_valid():
            return None
        d = dict(player_form.cleaned_data)
        d["side"] = get_object_or_404(Side, campaign=campaign, key=d["side"])
        if editing is not None:
            setup.player_update(player=editing, **d)
            return _("%(name)s saved.") % {"name": editing.name}
        player = setup.player_create(campaign=campaign, **d)
        return _("%(name)s created.") % {"name": player.name}
    raise Http404("Unknown action.")


# --- invitations -----------------------------------------------------------------------------


def invite(request: HttpRequest, slug: str) -> HttpResponse:
    """Invitation links: each makes its guest a player of an army (or of a new army on a
    side, during set-up), an observer or a co-GM."""
    viewer = _gm(request, slug, setup_only=False)
    campaign = viewer.campaign
    players = list(Player.objects.filter(campaign=campaign))
    sides = list(Side.objects.filter(campaign=campaign)) if campaign.setup_open else []
    action = request.POST.get("action", "")
    form = InvitationForm(
        request.POST if action == "create" else None,
        players=players,
        sides=sides,
        initial={"role": Membership.Role.PLAYER},
    )
    status = 200
    if request.method == "POST":
        if action == "revoke":
            inv = get_object_or_404(Invitation, campaign=campaign, pk=request.POST.get("id"))
            setup.invitation_revoke(invitation=inv)
            messages.success(request, _("Invitation withdrawn."))
            return redirect("campaign:invite", campaign.slug)
        if action != "create":
            raise Http404("Unknown action.")
        if form.is_valid():
            d = form.cleaned_data
            kind, _sep, key = d["target"].partition(":")
            days = d["expires_in_days"]
            try:
                setup.invitation_create(
                    campaign=campaign,
                    role=d["role"],
                    player=next((p for p in players if kind == "player" and p.key == key), None),
                    side=next((s for s in sides if kind == "side" and s.key == key), None),
                    max_uses=d["max_uses"],
                    expires=timezone.now() + timedelta(days=days) if days else None,
                    created_by=request.user,
                )
            except ServiceError as e:
                _service_error(request, e, form)
            else:
                messages.success(request, _("Invitation created: copy its link below."))
                return redirect("campaign:invite", campaign.slug)
        status = 400
    now = timezone.now()
    invitations = [
        {
            "invitation": inv,
            "url": request.build_absolute_uri(reverse("campaign:join", args=[inv.token])),
            "state": _invitation_state(inv, now),
        }
        for inv in campaign.invitations.select_related("player", "side").order_by("-created_at")
    ]
    context = _page(request, viewer, _("Invitations"), form=form, invitations=invitations)
    return _render(request, "campaign/setup_invite.html", context, status=status)


def _invitation_state(inv: Invitation, now) -> str:
    if inv.revoked:
        return _("withdrawn")
    if inv.expires_at is not None and inv.expires_at <= now:
        return _("expired")
    if inv.uses >= inv.max_uses:
        return _("used up")
    return _("open")


@require_http_methods(["GET", "POST"])
def join(request: HttpRequest, token: str) -> HttpResponse:
    """Follow an invitation link: see what it offers, then join."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    invitation = get_object_or_404(
        Invitation.objects.select_related("campaign", "player", "side"), token=token
    )
    campaign = invitation.campaign
    if request.method == "POST":
        try:
            membership = setup.invitation_accept(token=token, user=request.user)
        except ServiceError as e:
            refusal = str(e)
        else:
            messages.success(request, _("Welcome to %(c)s.") % {"c": campaign.name})
            return redirect(_after_join(membership))
        status = 400
    else:
        refusal = setup.invitation_refusal(invitation=invitation, user=request.user)
        status = 200
    context = {
        "campaign": campaign,
        "invitation": invitation,
        "refusal": refusal,
        "page_title": _("Join %(c)s") % {"c": campaign.name},
    }
    return render(request, "campaign/join.html", context, status=status)


def _after_join(membership: Membership) -> str:
    """Where a new member starts: during set-up the page he has work on (a player his roster,
    a GM the map) or can read (an observer the options); afterwards the overview."""
    campaign = membership.campaign
    if not campaign.setup_open:
        return reverse("campaign:detail", args=[campaign.slug])
    page = {
        Membership.Role.PLAYER: "campaign:roster",
        Membership.Role.GM: "campaign:setup-map",
    }.get(membership.role, "campaign:setup-options")
    return reverse(page, args=[campaign.slug])


# --- rosters ---------------------------------------------------------------------------------


def _roster_player(viewer: Viewer, key: str | None) -> Player:
    """Whose roster the viewer may open: the GM any army's, a player only his own."""
    if viewer.is_gm:
        players = Player.objects.filter(campaign=viewer.campaign)
        player = players.filter(key=key).first() if key else players.first()
        if player is None:
            raise Http404("No such army.")
        return player
    if viewer.is_player and viewer.player is not None:
        if key and key != viewer.player.key:
            raise NotAllowed(_("You can open only your own roster."))
        return viewer.player
    raise NotAllowed(_("Only players keep rosters."))


def _force_summaries(campaign: Campaign, forces: Iterable[Force]) -> list[dict[str, Any]]:
    state = adapters.state_load(campaign=campaign)
    out = []
    for f in forces:
        rf = state.force(f.key)
        org = validate_force_organisation(rf)
        out.append(
            {
                "force": f,
                "state": rf,
                "status": setup.LABELS[rf.status],
                "problems": [p.message for p in org.problems] + setup.placement_problems(state, rf),
            }
        )
    return out


def roster(request: HttpRequest, slug: str) -> HttpResponse:
    """An army's forces (R2.5) and a form for a new force with its first command."""
    viewer = campaign_viewer(request, slug)
    campaign = viewer.campaign
    if viewer.is_gm and not Player.objects.filter(campaign=campaign).exists():
        messages.info(request, _("Create the armies first."))
        return redirect("campaign:setup-players", campaign.slug)
    player = _roster_player(viewer, request.GET.get("player") or request.POST.get("player"))
    editable = campaign.setup_open
    home = (
        Holding.objects.filter(campaign=campaign, owner=player)
        .order_by("-capital", "position")
        .first()
    )
    force_form = ForceForm(
        request.POST or None,
        initial={"x": home.x, "y": home.y, "status": "defend"} if home else {"status": "defend"},
    )
    command_form = CommandForm(request.POST or None)
    unit_form = UnitForm(request.POST or None, prefix="unit")
    status = 200
    if request.method == "POST":
        _require_setup(viewer)
        if all([force_form.is_valid(), command_form.is_valid(), unit_form.is_valid()]):
            f = force_form.cleaned_data
            try:
                force = setup.force_create(
                    player=player,
                    name=f["name"],
                    x=f["x"],
                    y=f["y"],
                    status=f["status"],
                    general=command_form.cleaned_data,
                    unit=unit_form.cleaned_data,
                )
            except ServiceError as e:
                _service_error(request, e, force_form, command_form, unit_form)
            else:
                messages.success(
                    request, _("Force %(name)s created.") % {"name": force.name or force.key}
                )
                return redirect("campaign:roster-force", campaign.slug, force.key)
        status = 400
    forces = Force.objects.filter(campaign=campaign, owner=player)
    summaries = _force_summaries(campaign, forces)
    points = sum(s["state"].points for s in summaries)
    context = _page(
        request,
        viewer,
        _("Roster of %(army)s") % {"army": player.name},
        player=player,
        players=Player.objects.filter(campaign=campaign) if viewer.is_gm else [],
        summaries=summaries,
        points=points,
        over_budget=bool(player.initial_points) and points > player.initial_points,
        editable=editable,
        force_form=force_form,
        command_form=command_form,
        unit_form=unit_form,
        holdings=Holding.objects.filter(campaign=campaign, owner__side=player.side),
    )
    return _render(request, "campaign/roster.html", context, status=status)


ROSTER_ACTIONS = (
    "force-update",
    "force-delete",
    "command-create",
    "command-update",
    "command-delete",
    "unit-create",
    "unit-update",
    "unit-delete",
    "individual-create",
    "individual-update",
    "individual-delete",
)


def roster_force(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    """One force: its order and square, its commands with their units, its individuals. Each
    change is checked against R2.5 and R2.6 and refused beside its field."""
    viewer = campaign_viewer(request, slug)
    campaign = viewer.campaign
    forces = Force.objects.select_related("owner").filter(campaign=campaign)
    if not viewer.is_gm:
        if not viewer.is_player:
            raise NotAllowed(_("You can open only your own forces."))
        # another army's force answers like a missing one: its existence is not revealed
        forces = forces.filter(owner=viewer.player)
    force = get_object_or_404(forces, key=key)
    action = request.POST.get("action", "")
    item = request.POST.get("item") or request.GET.get("edit", "")
    commands = list(force.commands.prefetch_related("units"))
    forms_ = _force_forms(
        force, commands, action if request.method == "POST" else "", item, request
    )
    status = 200
    if request.method == "POST":
        _require_setup(viewer)
        if action not in ROSTER_ACTIONS:
            raise Http404("Unknown action.")
        try:
            done = _roster_force_post(force, action, item, forms_)
        except ServiceError as e:
            _service_error(request, e, *forms_["active"])
            done = None
        if done:
            messages.success(request, done)
            if action == "force-delete":
                return HttpResponseRedirect(
                    reverse("campaign:roster", args=[campaign.slug])
                    + (f"?player={force.owner.key}" if viewer.is_gm else "")
                )
            return redirect("campaign:roster-force", campaign.slug, force.key)
        status = 400
        commands = list(force.commands.prefetch_related("units"))
    (summary,) = _force_summaries(campaign, [force])
    individuals = list(force.individuals.all())
    for i in individuals:
        i.kind_label = setup.LABELS[R.IndividualKind(i.kind)]
    context = _page(
        request,
        viewer,
        _("Force %(name)s") % {"name": force.name or force.key},
        force=force,
        summary=summary,
        commands=[{"command": c, "units": _labelled_units(c)} for c in commands],
        individuals=individuals,
        editable=campaign.setup_open,
        edit_item=item,
        **{k: v for k, v in forms_.items() if k != "active"},
    )
    if request.htmx and request.method == "GET" and item:
        return _render(request, "campaign/setup_force.html#edit-panel", context)
    return _render(request, "campaign/setup_force.html", context, status=status)


def _labelled_units(command: Command) -> list[Unit]:
    units = list(command.units.all())
    for u in units:
        u.speciality_label = setup.LABELS[R.Speciality(u.speciality)]
        u.quality_label = setup.LABELS[R.Quality(u.quality)]
    return units


def _item(force: Force, item: str):
    """The command, unit or individual of `force` with key `item`, or None."""
    if not item:
        return None
    return (
        Command.objects.filter(force=force, key=item).first()
        or Unit.objects.filter(command__force=force, key=item).select_related("command").first()
        or Individual.objects.filter(force=force, key=item).first()
    )


def _force_forms(
    force: Force, commands: list[Command], action: str, item: str, request: HttpRequest
) -> dict[str, Any]:
    """Every form of the force page, bound to the POST for the action being carried out; the
    edit panel holds the form of the command, unit or individual being edited."""
    post = request.POST

    def bound(*names: str) -> Mapping[str, Any] | None:
        return post if action in names else None

    force_form = ForceForm(
        bound("force-update"),
        generals=commands,
        initial={
            "name": force.name,
            "x": force.x,
            "y": force.y,
            "status": force.status,
            "leader": force.leader_key,
        },
    )
    new_command = CommandForm(bound("command-create"), prefix="command")
    new_command_unit = UnitForm(bound("command-create"), prefix="command-unit")
    new_unit = NewUnitForm(bound("unit-create"), prefix="unit", commands=commands)
    new_individual = IndividualForm(bound("individual-create"), prefix="individual")
    editing = _item(force, item)
    edit_form: forms.Form | None = None
    if isinstance(editing, Command):
        edit_form = CommandForm(
            bound("command-update"),
            prefix="edit",
            initial={f: getattr(editing, f) for f in setup.GENERAL_FIELDS},
        )
    elif isinstance(editing, Unit):
        edit_form = UnitForm(
            bound("unit-update"),
            prefix="edit",
            initial={f: getattr(editing, f) for f in setup.UNIT_FIELDS},
        )
    elif isinstance(editing, Individual):
        edit_form = IndividualForm(
            bound("individual-update"),
            prefix="edit",
            initial={f: getattr(editing, f) for f in setup.INDIVIDUAL_FIELDS},
        )
    active: list[forms.Form] = {
        "force-update": [force_form],
        "command-create": [new_command, new_command_unit],
        "unit-create": [new_unit],
        "individual-create": [new_individual],
    }.get(action, [edit_form] if edit_form is not None else [force_form])
    return {
        "force_form": force_form,
        "new_command": new_command,
        "new_command_unit": new_command_unit,
        "new_unit": new_unit,
        "new_individual": new_individual,
        "editing": editing,
        "edit_kind": type(editing).__name__.lower() if edit_form is not None else "",
        "edit_form": edit_form,
        "active": active,
    }


def _roster_force_post(force: Force, action: str, item: str, forms_: dict[str, Any]) -> str | None:
    """Carry out one action of the force page; the success message, or None if a form is
    invalid (its errors are on it)."""
    editing = forms_["editing"]
    if action == "force-update":
        form = forms_["force_form"]
        if not form.is_valid():
            return None
        d = form.cleaned_data
        setup.force_update(
            force=force,
            name=d["name"],
            x=d["x"],
            y=d["y"],
            status=d["status"],
            leader_key=d.get("leader", ""),
        )
        return _("Force saved.")
    if action == "force-delete":
        setup.force_delete(force=force)
        return _("Force deleted.")
    if action == "command-create":
        general, unit = forms_["new_command"], forms_["new_command_unit"]
        if not all([general.is_valid(), unit.is_valid()]):
            return None
        setup.command_create(force=force, general=general.cleaned_data, unit=unit.cleaned_data)
        return _("Command added.")
    if action == "unit-create":
        form = forms_["new_unit"]
        if not form.is_valid():
            return None
        d = dict(form.cleaned_data)
        command = get_object_or_404(Command, force=force, key=d.pop("command"))
        setup.unit_create(command=command, **d)
        return _("Unit added.")
    if action == "individual-create":
        form = forms_["new_individual"]
        if not form.is_valid():
            return None
        setup.individual_create(force=force, **form.cleaned_data)
        return _("Character added.")
    kind, _sep, verb = action.partition("-")
    expected = {"command": Command, "unit": Unit, "individual": Individual}[kind]
    if not isinstance(editing, expected):
        raise Http404("No such item in this force.")
    if verb == "delete":
        getattr(setup, f"{kind}_delete")(**{kind: editing})
        return _("Removed.")
    form = forms_["edit_form"]
    if not form.is_valid():
        return None
    getattr(setup, f"{kind}_update")(**{kind: editing}, **form.cleaned_data)
    return _("Saved.")


# --- new campaign and the start --------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def campaign_new(request: HttpRequest) -> HttpResponse:
    """Create a campaign: from scratch (then set it up) or from the Incursion scenario."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    form = NewCampaignForm(request.POST or None, initial={"width": 16, "height": 12, "source": ""})
    status = 200
    if request.method == "POST":
        if form.is_valid():
            d = form.cleaned_data
            try:
                campaign = setup.campaign_create_blank(
                    gm=request.user,
                    slug=d["slug"],
                    name=d["name"],
                    width=d["width"],
                    height=d["height"],
                    fog_of_war=d["fog_of_war"],
                    scenario=d["source"] or None,
                    description=d["description"],
                )
            except ServiceError as e:
                _service_error(request, e, form)
            else:
                messages.success(request, _("%(name)s created.") % {"name": campaign.name})
                if campaign.setup_open:
                    return redirect("campaign:setup-map", campaign.slug)
                return redirect("campaign:invite", campaign.slug)
        status = 400
    return render(
        request,
        "campaign/new.html",
        {"form": form, "page_title": _("New campaign")},
        status=status,
    )


def start(request: HttpRequest, slug: str) -> HttpResponse:
    """What still stops the campaign from starting, and the button that starts it."""
    viewer = _gm(request, slug)
    campaign = viewer.campaign
    problems: list[str] = []
    status = 200
    if request.method == "POST":
        try:
            turn = setup.campaign_start(campaign=campaign)
        except ServiceError as e:
            problems = e.messages if isinstance(e, setup.InvalidSetup) else [str(e)]
            status = 400
        else:
            messages.success(
                request,
                _("%(c)s has started: turn %(n)d is open for orders.")
                % {"c": campaign.name, "n": turn.number},
            )
            return redirect("campaign:detail", campaign.slug)
    else:
        problems = setup.campaign_setup_problems(campaign=campaign)
    players = Player.objects.filter(campaign=campaign).select_related("side")
    context = _page(
        request,
        viewer,
        _("Start the campaign"),
        problems=problems,
        players=players,
        unplayed=[p for p in players if not p.memberships.filter(role=Membership.Role.PLAYER)],
    )
    return _render(request, "campaign/setup_start.html", context, status=status)
