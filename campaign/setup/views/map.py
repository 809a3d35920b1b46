"""The set-up map pages: the map editor (brushes, one square), map import, the territory in
thirds (R2.2) and holdings (R2.3). They draw the campaign map as the play pages do
(`campaign.map`), without forces: the ground, the territory and the holdings."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any, cast

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

import rules as R
from campaign import adapters
from campaign.access import HtmxHttpRequest, NotAllowed, Viewer, campaign_viewer
from campaign.errors import ServiceError
from campaign.keys import key_asked
from campaign.map.build import map_model
from campaign.map.model import Clickable, MapModel
from campaign.models import Campaign, Holding, Player, Square
from campaign.setup import services as setup
from campaign.setup.forms import HoldingForm, ImportForm, SquareForm, TerritoryForm
from campaign.setup.map_import import map_import
from campaign.setup.views.pages import (
    bound_data,
    first_step,
    gm_viewer,
    page,
    refusal_show,
    require_setup,
)
from campaign.setup.views.roll_panel import Kind, rolls_panel
from campaign.text import labels


def setup_map_model(
    viewer: Viewer,
    *,
    editable: bool = False,
    selected: tuple[int, int] | None = None,
    pick: str = "",
) -> MapModel:
    """The campaign map for a set-up page: the ground, the territory and every holding (they
    are public, fog of war or not: R2.3.1 places them in turn on the shared map), no forces.
    `editable`: every square posts a click to the square editor with the chosen brush (htmx
    swaps the redrawn map in). `pick` (a form's
    id): a click on a square fills that form's x and y (the page's script; without
    JavaScript each square is a link that opens the page with them filled in)."""
    campaign = viewer.campaign
    state = adapters.state_load(campaign=campaign)
    state = replace(state, forces=())
    clickable = None
    if editable:
        clickable = Clickable(
            squares=tuple((x, y) for y in range(campaign.height) for x in range(campaign.width)),
            attrs={
                "hx-post": reverse("campaign:setup-square", args=[campaign.slug]),
                "hx-target": "#map-grid",
                "hx-swap": "outerHTML",
                "hx-include": "#brush-form",
            },
            link="?x={x}&y={y}#square-form",
        )
    elif pick:
        clickable = Clickable(
            squares=tuple((x, y) for y in range(campaign.height) for x in range(campaign.width)),
            attrs={"data-pick": pick},
            link=f"?x={{x}}&y={{y}}#{pick}",
        )
    highlight = {"selected": [selected]} if selected is not None else None
    return map_model(viewer=viewer, state=state, highlight=highlight, clickable=clickable)


def _brushes(players: Iterable[Player]) -> list[dict[str, str]]:
    """Every brush: clearing, each feature, each army's territory and neutral ground; with
    the css class or colour of its swatch."""
    out = [{"value": "clear", "label": _("Clear (open ground)"), "css": "b-open", "colour": ""}]
    out += [
        {
            "value": f"feature:{f.value}",
            "label": labels.FEATURE[f],
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


def setup_map(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """The map editor: pick a brush, click squares; or set one square with the form."""
    viewer = gm_viewer(request, slug)
    campaign = viewer.campaign
    players = list(Player.objects.filter(campaign=campaign))
    selected = _coord(request)
    initial: dict[str, Any] = {}
    if selected is not None:
        sq = Square.objects.filter(campaign=campaign, x=selected[0], y=selected[1]).first()
        if sq is not None:
            initial = {"x": sq.x, "y": sq.y, "features": sq.features, "zone": sq.zone}
    brush = request.GET.get("brush", "feature:forest")
    context = page(
        viewer,
        _("Map editor"),
        map=setup_map_model(viewer, editable=True, selected=selected),
        brushes=_brushes(players),
        brush=brush,
        square_form=SquareForm(initial=initial, players=players),
    )
    if request.htmx:
        return render(request, "campaign/setup_map.html#map-grid", context)
    return render(request, "campaign/setup_map.html", context)


@require_POST
def setup_square(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Change one square: a click with a brush toggles that feature (htmx answers with the
    redrawn map), the plain form sets all its features and its territory."""
    viewer = gm_viewer(request, slug)
    campaign = viewer.campaign
    players = list(Player.objects.filter(campaign=campaign))
    error = ""
    x = y = None
    try:
        x, y = int(request.POST["x"]), int(request.POST["y"])
    except (KeyError, ValueError):
        error = _("Say which square: x and y.")
    try:
        if x is None or y is None:  # the error says so
            raise ServiceError(error)
        square = Square.objects.filter(campaign=campaign, x=x, y=y).first()
        if square is None:
            raise ServiceError(_("Square (%(x)d, %(y)d) is off the map.") % {"x": x, "y": y})
        brush = request.POST.get("brush")
        if brush is not None:
            _brush_apply(campaign, square, brush)
        else:
            form = SquareForm(request.POST, players=players)
            if not form.is_valid():
                raise ServiceError([e for errs in form.errors.values() for e in errs])
            setup.square_features_set(
                campaign=campaign, x=x, y=y, features=form.cleaned_data["features"]
            )
            if form.cleaned_data["zone"] != square.zone:
                setup.square_zone_set(campaign=campaign, x=x, y=y, zone=form.cleaned_data["zone"])
    except ServiceError as e:
        error = str(e)
    if request.htmx:
        context = page(
            viewer,
            _("Map editor"),
            map=setup_map_model(viewer, editable=True),
            map_error=error,
        )
        return render(request, "campaign/setup_map.html#map-grid", context)
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
        value = key_asked(value)  # a player's key: what cannot be one is not found
        zone = "" if square.zone == value else value
        setup.square_zone_set(campaign=campaign, x=square.x, y=square.y, zone=zone)
    else:
        raise ServiceError(_("Unknown brush %(b)r.") % {"b": brush})


def setup_import(request: HttpRequest, slug: str) -> HttpResponse:
    """Import a whole map from JSON or CSV text (the formats are explained on the page)."""
    viewer = gm_viewer(request, slug)
    campaign = viewer.campaign
    form = ImportForm(bound_data(request), bound_data(request, files=True))
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                parsed = map_import(
                    campaign=campaign,
                    data=form.cleaned_data["data"],
                    format=form.cleaned_data["format"] or None,
                )
            except ServiceError as e:
                refusal_show(request, e, form)
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
    context = page(
        viewer,
        _("Import a map"),
        form=form,
        example_zone=example_zone,
        features=[f.value for f in R.Feature],
    )
    return render(request, "campaign/setup_import.html", context, status=status)


def setup_territory(request: HttpRequest, slug: str) -> HttpResponse:
    """R2.2: the map in thirds; each outer third is one player's friendly territory."""
    viewer = gm_viewer(request, slug)
    campaign = viewer.campaign
    players = list(Player.objects.filter(campaign=campaign).select_related("side"))
    form = TerritoryForm(bound_data(request), players=players, initial={"axis": "x"})
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
                refusal_show(request, e, form)
            else:
                messages.success(request, _("Territory divided."))
                return redirect("campaign:setup-territory", campaign.slug)
        status = 400
    first = None
    if len({p.side_id for p in players}) < 2:
        first = first_step(
            viewer,
            _("Create at least two armies on opposing sides first: each outer third is one's."),
            "campaign:setup-players",
            _("Sides and armies"),
        )
    context = page(
        viewer,
        _("Territory"),
        first=first,
        form=form,
        players=players,
        thirds={
            "x": setup.thirds_describe(campaign, "x"),
            "y": setup.thirds_describe(campaign, "y"),
        },
        map=setup_map_model(viewer),
        rolls=rolls_panel(viewer, (Kind.TERRITORY,)),
    )
    return render(request, "campaign/setup_territory.html", context, status=status)


def _holding_players(viewer: Viewer) -> list[Player]:
    """Whose holdings the viewer places: the GM any army's, a player his own."""
    require_setup(viewer)
    if viewer.is_gm:
        return list(Player.objects.filter(campaign=viewer.campaign))
    if viewer.is_player and viewer.player is not None:
        return [viewer.player]
    raise NotAllowed(_("Only the game master and the players place holdings."))


@require_http_methods(["GET", "HEAD", "POST"])
def setup_holdings(request: HttpRequest, slug: str) -> HttpResponse:
    """R2.3: the holdings, and a form to place one. The GM places any army's; a player his
    own."""
    viewer = campaign_viewer(request, slug)
    campaign = viewer.campaign
    players = _holding_players(viewer)
    options = adapters.options_of(campaign)
    picked = _coord(request)
    form = HoldingForm(
        request.POST if request.method == "POST" else None,
        players=players,
        features=options.holding_features,
        naval=options.naval_movement,
        initial={"x": picked[0], "y": picked[1]} if picked else None,
    )
    status = 200
    if request.method == "POST":
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
                    port=bool(d.get("port")),
                )
            except ServiceError as e:
                refusal_show(request, e, form)
            else:
                messages.success(request, _("%(name)s placed.") % {"name": holding_name(holding)})
                return redirect("campaign:setup-holdings", campaign.slug)
        status = 400
    found = Holding.objects.filter(campaign=campaign).select_related("owner")
    if not viewer.is_gm:
        # a player lists his side's holdings (their features are theirs, R2.4); the map
        # shows every army's
        assert viewer.player is not None  # `_holding_players` lets in the GM and players only
        found = found.filter(owner__side=viewer.player.side)
    holdings = list(found)
    for h in holdings:
        # the template reads the name beside the holding's fields
        cast(Any, h).feature_label = (
            labels.label(labels.HOLDING_FEATURE, h.feature) if h.feature else ""
        )
    context = page(
        viewer,
        _("Holdings"),
        first=_holdings_first(viewer, players),
        form=form,
        holdings=holdings,
        removable={p.key for p in players},
        map=setup_map_model(viewer, selected=picked, pick="holding-form"),
        rolls=rolls_panel(viewer, (Kind.PLACEMENT, Kind.FEATURE)),
    )
    return render(request, "campaign/setup_holdings.html", context, status=status)


def _holdings_first(viewer: Viewer, players: list[Player]) -> dict[str, str] | None:
    """What the holdings need first: an army to own them, and its friendly third to stand in
    (R2.3.2)."""
    if not players:
        return first_step(
            viewer,
            _("Create the armies first: every holding belongs to one."),
            "campaign:setup-players",
            _("Sides and armies"),
        )
    zoned = Square.objects.filter(campaign=viewer.campaign, zone__in=[p.key for p in players])
    if not zoned.exists():
        if not viewer.is_gm:
            return first_step(
                viewer, _("The game master has not given your army its territory yet.")
            )
        return first_step(
            viewer,
            _("Divide the territory first: holdings stand in their army's friendly third."),
            "campaign:setup-territory",
            _("Territory"),
        )
    return None


def holding_name(holding: Holding) -> str:
    """A holding as people call it: its name, or where it stands."""
    return holding.name or _("The holding at (%(x)d, %(y)d)") % {"x": holding.x, "y": holding.y}


@require_POST
def setup_holding_remove(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    viewer = campaign_viewer(request, slug)
    players = _holding_players(viewer)
    holding = get_object_or_404(Holding, campaign=viewer.campaign, key=key)
    if holding.owner.key not in {p.key for p in players}:
        raise NotAllowed(_("That holding is not yours."))
    setup.holding_remove(holding=holding)
    messages.success(request, _("Holding removed."))
    return redirect("campaign:setup-holdings", viewer.campaign.slug)
