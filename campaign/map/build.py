"""What one viewer may see of the campaign map, as a `MapModel` ready to draw.

Fog of war is applied here, on the server, through `campaign.fog`: a hidden enemy force is
simply not in the model, so the HTML, the JSON and anything else built from it cannot leak
it. The arrows of last turn's movement follow the same rule (none for a hidden force; an
enemy's path only from where the viewer's side could have seen it come), and so do the
battle markers (a player sees the battles his side fought and those in squares he watches).
Reads are a fixed number of queries whatever the size of the campaign: player colours,
sightings (fogged players only), the last turn's resolutions and, when that turn had
contacts, its battles.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.db import connections
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from battles.models import Battle
from campaign import adapters
from campaign.access import Viewer
from campaign.fog import Ghost, MapView, map_view_for, watched_squares
from campaign.map.model import (
    Clickable,
    ClickSquare,
    Layer,
    MapArrow,
    MapBattle,
    MapForce,
    MapGhost,
    MapHolding,
    MapModel,
    MapPlayer,
)
from campaign.map.queries import LastTurn, battle_rows, last_turn_get, movement, seen_path
from campaign.map.svg import (
    DEFAULT_COLOUR,
    HALF,
    PALETTE,
    TERRAIN_ORDER,
    S,
    arrow_path,
    grid_edges,
    grid_paths,
    links_path,
    slots,
    squares_path,
    zoc_path,
)
from campaign.models import Campaign, Player
from campaign.state_rows import derived
from campaign.text.labels import (
    FEATURE,
    STATUS,
    STATUS_MARKER,
    TERRITORY,
    WEATHER,
    battle_number,
    label,
)
from rules import CampaignState, Coord, Feature, Force, GameMap, Territory

_CSS_CLASS = re.compile(r"^[a-z][a-z0-9-]*$")


def map_model_for(
    *,
    viewer: Viewer,
    highlight: Mapping[str, Iterable[Coord]] | None = None,
    clickable: Clickable | None = None,
) -> MapModel:
    """The map of the viewer's campaign as it stands: loads the rules state (seven queries)
    and builds the model."""
    state = adapters.state_load(campaign=viewer.campaign)
    return map_model(viewer=viewer, state=state, highlight=highlight, clickable=clickable)


@dataclass(frozen=True)
class _Scene:
    """What every part of one viewer's map is built from."""

    viewer: Viewer
    state: CampaignState
    view: MapView
    side: str | None  # the viewer's side
    me: str | None  # the viewer's own army
    sides: Mapping[str, str]  # player → side
    colours: Mapping[str, str]  # player → colour
    names: Mapping[str, str]  # player → name
    forces: Mapping[str, Force]  # every force of the state, by id

    @property
    def relative(self) -> bool:
        """A player sees territory as friendly or enemy, the GM each owner's own."""
        return self.me is not None


def map_model(
    *,
    viewer: Viewer,
    state: CampaignState,
    highlight: Mapping[str, Iterable[Coord]] | None = None,
    clickable: Clickable | None = None,
) -> MapModel:
    """What `viewer` may see of `state`, ready to draw. `highlight` maps a CSS class (e.g.
    "legal", drawn as `hl hl-legal`) to squares; `clickable` makes squares clickable. Both
    come from the caller and are not filtered: pass only what the viewer may know."""
    players = _players(viewer.campaign, state)
    scene = _Scene(
        viewer=viewer,
        state=state,
        view=map_view_for(viewer=viewer, state=state),
        side=viewer.side_key,
        me=viewer.player.key if viewer.player is not None else None,
        sides={p.id: p.side for p in state.players},
        colours={p.key: p.colour for p in players},
        names={p.key: p.name for p in players},
        forces={f.id: f for f in state.forces},
    )
    gmap = state.map
    ground = _ground(scene)
    forces, ghosts = _counters(scene)
    last = last_turn_get(viewer.campaign.pk, jsonpath=_jsonpath())
    arrows, battles = _last_turn_marks(scene, last)
    clicks, click_attrs = _clicks(gmap, clickable)
    return MapModel(
        width=gmap.width,
        height=gmap.height,
        turn=state.turn,
        day=state.day,
        weather=state.weather.value,
        weather_label=label(WEATHER, state.weather),
        snow_levels=state.snow.levels,
        snowy_mountains=len(_snowy_mountains(state)),
        fog=viewer.campaign.fog_of_war,
        everything=scene.view.everything,
        viewer_role=viewer.role,
        viewer_side=scene.side,
        viewer_player=scene.me,
        relative_territory=scene.relative,
        players=players,
        **ground,
        highlights=_highlights(highlight),
        holdings=_holdings(scene),
        forces=forces,
        ghosts=ghosts,
        arrows=arrows,
        arrows_turn=last.number if last is not None else None,
        battles=battles,
        clickable=clicks,
        click_attrs=click_attrs,
        gmap=gmap,
        x_labels=_axis_labels(gmap.width),
        y_labels=_axis_labels(gmap.height),
    )


def _jsonpath() -> bool:
    """Whether the database filters JSON itself (`jsonb_path_query_array`)."""
    return connections[Player.objects.db].vendor == "postgresql"


def _players(campaign: Campaign, state: CampaignState) -> tuple[MapPlayer, ...]:
    """The armies with their colours; one left with the default grey (a generated campaign)
    gets a colour of the palette, so that armies can be told apart."""
    rows = Player.objects.filter(campaign=campaign).values_list("key", "colour", "side__name")
    colours = {k: c for k, c, _s in rows}
    side_names = {k: s for k, _c, s in rows}
    for i, p in enumerate(state.players):
        if colours.get(p.id, DEFAULT_COLOUR).lower() == DEFAULT_COLOUR:
            colours[p.id] = PALETTE[i % len(PALETTE)]
    return tuple(
        MapPlayer(
            p.id,
            p.name or p.id,
            p.side,
            side_names.get(p.id, p.side),
            colours.get(p.id, DEFAULT_COLOUR),
        )
        for p in state.players
    )


def _ground(scene: _Scene) -> dict[str, Any]:
    """Terrain, territory, snow, the linear features and the grid, as path data. All but the
    snow (a campaign field) come of the map and the armies alone, which do not change in
    play: worked out once for the same decoded rows, language and viewer's army."""
    what = ("map-ground", scene.me, get_language(), tuple(sorted(scene.colours.items())))
    parts = (scene.state.map, scene.state.players)
    ground = derived(what, parts, lambda: _ground_of_map(scene))
    return {**ground, "snow": _snow(scene.state)}


def _ground_of_map(scene: _Scene) -> dict[str, Any]:
    gmap = scene.state.map
    w, h = gmap.width, gmap.height
    terrain_grid: list[str | None] = [None] * (w * h)
    linear: dict[Feature, list[Coord]] = defaultdict(list)
    bases: dict[frozenset[Feature], str | None] = {}  # a map has only a few feature sets
    for c, feats in gmap.features.items():
        base = bases.get(feats, "")
        if base == "":
            t = next((t for t in TERRAIN_ORDER if t in feats), None)
            base = bases[feats] = t.value if t is not None else None
        terrain_grid[c[1] * w + c[0]] = base
        if len(feats) == 1 and base is not None:
            continue  # plain terrain: no river, road, bridge or pass
        for f in LINEAR & feats:
            linear[f].append(c)
    paths = grid_paths(terrain_grid, w)
    territory, tints = _territory(scene)
    return {
        "terrain": tuple(
            Layer(f"terrain t-{t.value}", paths[t.value], label=label(FEATURE, t))
            for t in TERRAIN_ORDER
            if t.value in paths
        ),
        "territory": territory,
        "tints": tints,
        "rivers_d": links_path(set(linear[Feature.RIVER])),
        # §6.11 [NARAN] waterways (R6.11.7): navigable stretches under the river line, marks
        "navigable_d": links_path(
            set(linear[Feature.NAVIGABLE]) | set(linear[Feature.SHIP_NAVIGABLE])
        ),
        "ship_navigable_d": links_path(set(linear[Feature.SHIP_NAVIGABLE])),
        "rapids_d": "".join(
            f"M{x * S + dx} {y * S + 3}l2 1.5l-2 1.5l2 1.5"
            for x, y in linear[Feature.RAPIDS]
            for dx in (2, 6)
        ),
        "mouths_d": "".join(
            f"M{x * S + 3} {y * S + 2}h4l-2 3z" for x, y in linear[Feature.RIVER_MOUTH]
        ),
        "reefs_d": "".join(
            f"M{x * S + 2} {y * S + 2}h1M{x * S + 6} {y * S + 4}h1M{x * S + 3} {y * S + 7}h1"
            for x, y in linear[Feature.REEFS]
        ),
        "roads_d": links_path(set(linear[Feature.ROAD])),
        "tracks_d": links_path(set(linear[Feature.TRACK])),
        "bridges_d": "".join(
            f"M{x * S + 2} {y * S + 3}h6M{x * S + 2} {y * S + 7}h6"
            for x, y in linear[Feature.BRIDGE]
        ),
        "passes_d": "".join(f"M{x * S + 2} {y * S + 7}l3 -4l3 4" for x, y in linear[Feature.PASS]),
        "grid_d": "".join(f"M{x * S} 0v{h * S}" for x in range(1, w))
        + "".join(f"M0 {y * S}h{w * S}" for y in range(1, h)),
    }


LINEAR = frozenset(
    {
        Feature.RIVER,
        Feature.ROAD,
        Feature.TRACK,
        Feature.BRIDGE,
        Feature.PASS,
        Feature.NAVIGABLE,
        Feature.SHIP_NAVIGABLE,
        Feature.RAPIDS,
        Feature.RIVER_MOUTH,
        Feature.REEFS,
    }
)


def _territory(scene: _Scene) -> tuple[tuple[Layer, ...], dict[str, str]]:
    """The friendly thirds (R2.2): for a player, friendly and enemy ground; for anyone else,
    each owner's ground in his colour. Also zone → its tint for this viewer."""
    state, gmap = scene.state, scene.state.map
    w = gmap.width
    zone_grid: list[str | None] = [None] * (w * gmap.height)
    tints: dict[str, str] = {}  # the tint depends on the zone only
    me = scene.me  # relative to the viewer's army when he has one (`scene.relative`)
    for c, zone in gmap.zones.items():
        tint = tints.get(zone)
        if tint is None:
            tint = tints[zone] = state.territory(me, c).value if me is not None else zone
        if tint != Territory.NEUTRAL.value:
            zone_grid[c[1] * w + c[0]] = tint
    paths, edges = grid_paths(zone_grid, w), grid_edges(zone_grid, w)
    if scene.relative:
        layers = tuple(
            Layer(
                f"territory terr-{t}", paths[t], label=label(TERRITORY, t), edges_d=edges.get(t, "")
            )
            for t in (Territory.FRIENDLY.value, Territory.ENEMY.value)
            if t in paths
        )
    else:
        owners = {p.id: p.name or p.id for p in state.players}
        layers = tuple(
            Layer(
                "territory terr-owner",
                paths[zone],
                fill=scene.colours.get(zone, DEFAULT_COLOUR),
                label=owners.get(zone, zone),
                edges_d=edges.get(zone, ""),
            )
            for zone in sorted(paths)
        )
    return layers, tints


def _snowy_mountains(state: CampaignState) -> list[Coord]:
    features = state.map.features
    return [
        c for c, v in state.snow.mountain.items() if v and Feature.MOUNTAIN in features.get(c, ())
    ]


def _snow(state: CampaignState) -> tuple[Layer, ...]:
    """Snow over the whole map, or on the mountains that hold it (§11.5)."""
    w, h = state.map.width, state.map.height
    if state.snow.levels:
        return (Layer("snow", f"M0 0h{w * S}v{h * S}h-{w * S}z"),)
    snowy = _snowy_mountains(state)
    return (Layer("snow", squares_path(snowy)),) if snowy else ()


def _highlights(highlight: Mapping[str, Iterable[Coord]] | None) -> tuple[Layer, ...]:
    layers = []
    for css, squares in (highlight or {}).items():
        if not _CSS_CLASS.match(css):
            raise ValueError(f"not a CSS class name: {css!r}")
        sq = tuple(sorted(set(squares), key=lambda c: (c[1], c[0])))
        if sq:
            layers.append(Layer(f"hl hl-{css}", squares_path(sq), squares=sq))
    return tuple(layers)


def _holdings(scene: _Scene) -> tuple[MapHolding, ...]:
    """Every holding with its owner (public); a sacked one stays on the map, marked, while
    its loot is carried off."""
    out = []
    for hd in scene.state.holdings:
        if hd.destroyed:
            continue
        name = hd.name or hd.id
        owner = scene.names.get(hd.owner, hd.owner)
        if hd.capital:
            title = _("%(name)s, capital of %(owner)s") % {"name": name, "owner": owner}
        else:
            title = _("%(name)s, holding of %(owner)s") % {"name": name, "owner": owner}
        if hd.sacked:
            title = _("%(holding)s (sacked)") % {"holding": title}
        out.append(
            MapHolding(
                hd.id,
                name,
                hd.square,
                hd.owner,
                owner,
                scene.colours.get(hd.owner, DEFAULT_COLOUR),
                hd.capital,
                hd.sacked,
                title,
                hd.square[0] * S,
                hd.square[1] * S,
            )
        )
    return tuple(out)


@dataclass(frozen=True)
class _Slot:
    """Where one counter goes in its square (several share a square)."""

    square: Coord
    tx: float
    ty: float
    size: float
    font: float


def _counters(scene: _Scene) -> tuple[tuple[MapForce, ...], tuple[MapGhost, ...]]:
    """The forces the viewer sees and the ghosts of the others, sharing the counter slots of
    their square; forces in the state's order, whatever the stacking. Worked out once for
    the same decoded rows and everything else they are drawn from (the viewer's army and
    side, the ghosts, names, colours, the turn, the language)."""
    what = (
        "map-counters",
        scene.me,
        scene.side,
        scene.view.everything,
        scene.view.ghosts,
        scene.state.turn,
        tuple(sorted(scene.colours.items())),
        tuple(sorted(scene.names.items())),
        get_language(),
    )
    parts = (scene.state.forces, scene.state.players, scene.state.holdings, scene.state.map)
    return derived(what, parts, lambda: _counters_of(scene))


def _counters_of(scene: _Scene) -> tuple[tuple[MapForce, ...], tuple[MapGhost, ...]]:
    stacks: dict[Coord, list[Force | Ghost]] = defaultdict(list)
    for f in scene.view.forces:
        stacks[f.square].append(f)
    for g in scene.view.ghosts:
        stacks[g.square].append(g)
    forces: list[MapForce] = []
    ghosts: list[MapGhost] = []
    for square in sorted(stacks, key=lambda c: (c[1], c[0])):
        items = stacks[square]
        size, offsets = slots(len(items))
        ox, oy = square[0] * S, square[1] * S
        for item, (dx, dy) in zip(items, offsets, strict=True):
            slot = _Slot(
                square, round(ox + dx, 2), round(oy + dy, 2), round(size, 2), round(size * 0.4, 2)
            )
            if isinstance(item, Ghost):
                ghosts.append(_ghost(scene, item, slot))
            else:
                forces.append(_force(scene, item, slot))
    order = {f.id: i for i, f in enumerate(scene.state.forces)}
    forces.sort(key=lambda mf: order[mf.key])
    return tuple(forces), tuple(ghosts)


def _ghost(scene: _Scene, item: Ghost, slot: _Slot) -> MapGhost:
    seen = scene.forces.get(item.force_key)
    owner = seen.owner if seen is not None else ""
    name = (seen.name or seen.id) if seen is not None else ""
    ago = item.turns_ago(scene.state.turn)
    when = (
        ngettext("last seen %(n)d turn ago", "last seen %(n)d turns ago", ago) % {"n": ago}
        if ago
        else _("last seen this turn")
    )
    title = _("%(name)s (%(owner)s): %(when)s, square (%(x)d, %(y)d)") % {
        "name": name or _("Enemy force"),
        "owner": scene.names.get(owner, owner),
        "when": when,
        "x": slot.square[0],
        "y": slot.square[1],
    }
    return MapGhost(
        item.force_key,
        name,
        slot.square,
        owner,
        scene.colours.get(owner, DEFAULT_COLOUR),
        item.turn_number,
        ago,
        item.status,
        item.figures,
        title,
        slot.tx,
        slot.ty,
        slot.size,
        slot.font,
    )


def _force(scene: _Scene, f: Force, slot: _Slot) -> MapForce:
    if scene.me is not None and f.owner == scene.me:
        relation = "own"
    elif scene.side is not None:
        relation = "ally" if scene.sides.get(f.owner) == scene.side else "enemy"
    else:
        relation = ""
    name = f.name or f.id
    owner = scene.names.get(f.owner, f.owner)
    status = label(STATUS, f.status)
    title = _("%(name)s (%(owner)s): %(status)s, %(figures)d figures, square (%(x)d, %(y)d)") % {
        "name": name,
        "owner": owner,
        "status": status,
        "figures": f.figures,
        "x": slot.square[0],
        "y": slot.square[1],
    }
    gmap = scene.state.map
    return MapForce(
        f.id,
        name,
        slot.square,
        f.owner,
        owner,
        scene.colours.get(f.owner, DEFAULT_COLOUR),
        f.status.value,
        status,
        str(STATUS_MARKER[f.status]),
        f.status.is_order,
        f.figures,
        relation,
        tuple(gmap.neighbours(slot.square)),  # R6.6.1, in (y, x) order
        title,
        slot.tx,
        slot.ty,
        slot.size,
        slot.font,
        zoc_path(slot.square, gmap.width, gmap.height),
    )


def _last_turn_marks(
    scene: _Scene, last: LastTurn | None
) -> tuple[tuple[MapArrow, ...], tuple[MapBattle, ...]]:
    """Last turn's moves as arrows and its battles as markers, as the viewer may know them:
    no trace of a hidden force, an enemy's path only from where his side could have seen it
    come, the battles his side fought and those in squares he watches."""
    if last is None:
        return (), ()
    view, side, sides = scene.view, scene.side, scene.sides
    force_by_id = scene.forces
    watched: frozenset[Coord] = frozenset()
    if not view.everything and side is not None:
        watched = watched_squares(scene.state, side)
    visible = {f.id for f in view.forces}
    arrows = []
    for fid, kind, points in movement(last):
        if not view.everything:
            if fid not in visible:
                continue
            if sides.get(force_by_id[fid].owner) != side:
                points = seen_path(points, watched)
        if len(points) < 2:
            continue
        owner = force_by_id[fid].owner if fid in force_by_id else ""
        colour = scene.colours.get(owner, "#555555")
        arrows.append(MapArrow(fid, kind, tuple(points), colour, arrow_path(points)))
    battles = []
    for key, x, y, status, bplayers in battle_rows(last, jsonpath=_jsonpath()):
        if not view.everything:
            fought = side is not None and any(sides.get(p) == side for p in bplayers)
            if not fought and (x, y) not in watched:
                continue
        if status == Battle.Status.PENDING:
            title = _("Battle %(key)s in square (%(x)d, %(y)d), waiting for its result")
        else:
            title = _("Battle %(key)s in square (%(x)d, %(y)d), fought")
        title %= {"key": battle_number(key), "x": x, "y": y}
        battles.append(
            MapBattle(key, (x, y), status, last.number, title, x * S + HALF, y * S + HALF)
        )
    return tuple(arrows), tuple(battles)


def _clicks(
    gmap: GameMap, clickable: Clickable | None
) -> tuple[tuple[ClickSquare, ...], tuple[tuple[str, str], ...]]:
    if clickable is None:
        return (), ()
    click_label = _("Square (%(x)d, %(y)d)")
    clicks = tuple(
        ClickSquare(
            x,
            y,
            x * S,
            y * S,
            click_label % {"x": x, "y": y},
            clickable.link.format(x=x, y=y) if clickable.link else "",
        )
        for x, y in sorted(set(clickable.squares), key=lambda c: (c[1], c[0]))
        if gmap.on_map((x, y))
    )
    return clicks, tuple(sorted(clickable.attrs.items()))


def _axis_labels(size: int) -> tuple[tuple[int, int], ...]:
    """(value, position) of the coordinates along one edge: every one, or every fifth on a
    big map."""
    step = 1 if size <= 24 else 5
    return tuple((v, v * S + HALF) for v in range(0, size, step))
