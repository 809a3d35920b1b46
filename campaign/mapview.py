"""The campaign map as one viewer may see it: a render-ready model built from the rules state.

`map_model` decides what goes on the map for a viewer and precomputes its SVG geometry.
Fog of war is applied here, on the server, through `campaign.visibility`: a hidden enemy force
is simply not in the model, so the HTML, the JSON and anything else built from it cannot leak
it. The arrows of last turn's movement follow the same rule (none for a hidden force; an
enemy's path only from where the viewer's side could have seen it come), and so do the
battle markers (a player sees the battles his side fought and those in squares he watches).

Squares of one kind are drawn as one SVG `<path>` (runs of a row joined into one rectangle),
so a 64×64 map is a few dozen elements instead of thousands; forces, holdings and the other
markers are a few hundred at most. Reads are a fixed number of queries whatever the size of
the campaign: player colours, sightings (fogged players only), the last turn's resolutions
and, when that turn had contacts, its battles.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from html import escape
from itertools import groupby
from typing import Any

from django.db import connections
from django.db.models import F, Func, JSONField, Value
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from battles.models import Battle
from campaign import adapters
from campaign.access import Viewer
from campaign.models import Player, TurnResolution
from campaign.visibility import Ghost, map_view_for, watched_squares
from rules.types import CampaignState, Coord, Feature, GameMap, Status, Territory

S = 10  # SVG units per square: integer coordinates keep the path data short
HALF = S // 2

# The base colour of a square is its first feature in this order (open ground otherwise).
TERRAIN_ORDER: tuple[Feature, ...] = (
    Feature.MOUNTAIN,
    Feature.SWAMP,
    Feature.JUNGLE,
    Feature.FOREST,
    Feature.HILL,
    Feature.DESERT,
    Feature.WASTELAND,
    Feature.CULTIVATED,
    Feature.UNCULTIVATED,
)

DEFAULT_COLOUR = "#888888"  # campaign.models.Player.colour's default
PALETTE = (
    "#a8322d",
    "#2d5b8c",
    "#2f7d32",
    "#7b3f9e",
    "#c0661a",
    "#17877a",
    "#8c6d1f",
    "#b03a78",
    "#44546a",
    "#6b8e23",
    "#5d4037",
    "#1f6fb2",
)

_CSS_CLASS = re.compile(r"^[a-z][a-z0-9-]*$")
_CLICK_ATTR = re.compile(r"^(hx-[a-z-]+|data-[a-z0-9-]+|aria-[a-z-]+|title)$")


def feature_label(feature: Feature) -> str:
    return {
        Feature.OPEN: _("Open ground"),
        Feature.UNCULTIVATED: _("Uncultivated land"),
        Feature.CULTIVATED: _("Cultivated land"),
        Feature.HILL: _("Hills"),
        Feature.FOREST: _("Forest"),
        Feature.JUNGLE: _("Jungle"),
        Feature.MOUNTAIN: _("Mountains"),
        Feature.SWAMP: _("Swamp"),
        Feature.DESERT: _("Desert"),
        Feature.WASTELAND: _("Wasteland"),
        Feature.RIVER: _("River"),
        Feature.ROAD: _("Road"),
        Feature.TRACK: _("Track"),
        Feature.BRIDGE: _("Bridge"),
        Feature.PASS: _("Pass"),
    }[feature]


def status_labels() -> dict[Status, str]:
    """Status → its name, in the active language (built once per map: gettext is slow)."""
    return {
        Status.FULL_SPEED: _("Full Speed"),
        Status.PROBE: _("Probe"),
        Status.DEFEND: _("Defend"),
        Status.CONFUSED: _("Confused"),
        Status.UNSTEADY: _("Unsteady"),
        Status.SHATTERED: _("Shattered"),
    }


def status_markers() -> dict[Status, str]:
    """Status → the one-letter counter drawn on a force (reactions get a dashed border)."""
    return {
        Status.FULL_SPEED: pgettext("status counter for Full Speed", "F"),
        Status.PROBE: pgettext("status counter for Probe", "P"),
        Status.DEFEND: pgettext("status counter for Defend", "D"),
        Status.CONFUSED: pgettext("status counter for Confused", "C"),
        Status.UNSTEADY: pgettext("status counter for Unsteady", "U"),
        Status.SHATTERED: pgettext("status counter for Shattered", "S"),
    }


def weather_label(weather: str) -> str:
    return {
        "fine": _("Fine"),
        "light-rain": _("Light rain"),
        "heavy-rain": _("Heavy rain"),
        "storm": _("Storm"),
    }.get(weather, weather)


# --- the model -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Layer:
    """A set of squares drawn as one path: `css` classes, and a `fill` for per-player tints."""

    css: str
    d: str
    fill: str = ""
    label: str = ""
    squares: tuple[Coord, ...] = ()
    edges_d: str = ""  # its border, for territories


@dataclass(frozen=True)
class MapPlayer:
    key: str
    name: str
    side: str
    side_name: str
    colour: str


@dataclass(frozen=True)
class MapHolding:
    key: str
    name: str
    square: Coord
    owner: str
    owner_name: str
    colour: str
    capital: bool
    sacked: bool
    title: str
    px: int  # top-left corner of its square, in SVG units
    py: int

    @property
    def frame_x(self) -> float:
        return self.px + 0.6  # the frame's stroke stays inside the square

    @property
    def frame_y(self) -> float:
        return self.py + 0.6


class _Counter:
    """Where the two lines of a counter go: its letter above, a number below."""

    tx: float
    ty: float
    size: float

    @property
    def cx(self) -> float:
        return round(self.tx + self.size / 2, 2)

    @property
    def marker_y(self) -> float:
        return round(self.ty + self.size * 0.3, 2)

    @property
    def figures_y(self) -> float:
        return round(self.ty + self.size * 0.74, 2)


@dataclass(frozen=True)
class MapForce(_Counter):
    key: str
    name: str
    square: Coord
    owner: str
    owner_name: str
    colour: str
    status: str  # the rules value, e.g. "probe"
    status_label: str
    marker: str  # the counter's letter
    is_order: bool
    figures: int
    relation: str  # own / ally / enemy, relative to the viewer; "" for a viewer with no side
    zoc: tuple[Coord, ...]  # R6.6.1: the 8 squares around it, on the map
    title: str
    # geometry of its counter (several forces in a square share it) and of its zone
    tx: float
    ty: float
    size: float
    font: float
    zoc_d: str


@dataclass(frozen=True)
class MapGhost(_Counter):
    """An enemy force where the viewer's side last saw it."""

    force_key: str
    name: str
    square: Coord
    owner: str
    colour: str
    last_seen_turn: int
    turns_ago: int
    status: str
    figures: int
    title: str
    tx: float
    ty: float
    size: float
    font: float


@dataclass(frozen=True)
class MapArrow:
    force_key: str
    kind: str  # move / countermarch / after-battle
    points: tuple[Coord, ...]
    colour: str
    d: str


@dataclass(frozen=True)
class MapBattle:
    key: str
    square: Coord
    status: str  # pending / resolved
    turn: int
    title: str
    px: int  # centre of its square
    py: int


@dataclass(frozen=True)
class Clickable:
    """Squares the caller makes clickable (the orders page: legal moves). Every square gets
    `data-x`, `data-y` and `hx-vals` with its coordinates, plus the same `attrs` (e.g.
    `hx-post`, `hx-target`; only hx-*, data-*, aria-* and title are accepted)."""

    squares: tuple[Coord, ...]
    attrs: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        bad = [a for a in self.attrs if not _CLICK_ATTR.match(a)]
        if bad:
            raise ValueError(f"attributes not allowed on map squares: {', '.join(bad)}")


@dataclass(frozen=True)
class ClickSquare:
    x: int
    y: int
    px: int
    py: int
    label: str


@dataclass(frozen=True)
class MapModel:
    width: int
    height: int
    turn: int
    day: int
    weather: str
    weather_label: str
    snow_levels: int
    snowy_mountains: int
    fog: bool  # the campaign plays with fog of war
    everything: bool  # this viewer sees every force
    viewer_role: str
    viewer_side: str | None
    viewer_player: str | None
    relative_territory: bool  # tints are friendly/enemy (a player) or per owner (GM)
    players: tuple[MapPlayer, ...]
    terrain: tuple[Layer, ...]
    territory: tuple[Layer, ...]
    snow: tuple[Layer, ...]
    rivers_d: str
    roads_d: str
    tracks_d: str
    bridges_d: str
    passes_d: str
    grid_d: str
    highlights: tuple[Layer, ...]
    holdings: tuple[MapHolding, ...]
    forces: tuple[MapForce, ...]
    ghosts: tuple[MapGhost, ...]
    arrows: tuple[MapArrow, ...]
    arrows_turn: int | None
    battles: tuple[MapBattle, ...]
    clickable: tuple[ClickSquare, ...]
    click_attrs: tuple[tuple[str, str], ...]
    gmap: GameMap  # for the JSON's squares, built only when asked for
    tints: Mapping[str, str]  # zone → "friendly"/"enemy"/"neutral", or the zone itself
    x_labels: tuple[tuple[int, int], ...]  # (value, position) of the coordinate labels
    y_labels: tuple[tuple[int, int], ...]

    @property
    def view_box(self) -> str:
        return f"-{S} -{S} {self.width * S + S} {self.height * S + S}"

    @property
    def px_width(self) -> int:
        return self.width * S

    @property
    def px_height(self) -> int:
        return self.height * S

    @cached_property
    def forces_svg(self) -> SafeString:
        return mark_safe(forces_svg(self.forces))  # every value escaped by forces_svg

    @property
    def click_group_attrs(self) -> SafeString:
        """The inheritable htmx attributes of the clickable squares, for their group."""
        return mark_safe(
            "".join(f' {n}="{_e(v)}"' for n, v in self.click_attrs if n in INHERITED)
        )  # names checked by Clickable, values escaped

    @cached_property
    def clickable_svg(self) -> SafeString:
        # names checked by Clickable, values escaped by clickable_svg
        return mark_safe(clickable_svg(self.clickable, self.click_attrs))

    @cached_property
    def ghosts_svg(self) -> SafeString:
        return mark_safe(ghosts_svg(self.ghosts))  # every value escaped by ghosts_svg

    @property
    def letters(self) -> dict[str, str]:
        """Status → counter letter for the legend, keyed "full_speed", "probe" …"""
        return {s.name.lower(): m for s, m in status_markers().items()}

    def squares(self) -> list[dict[str, Any]]:
        """Every square that is not plain open neutral ground, with its features and its
        territory for this viewer."""
        features, zones = self.gmap.features, self.gmap.zones
        out = []
        for c in sorted(set(features) | set(zones), key=lambda c: (c[1], c[0])):
            zone = zones.get(c)
            out.append(
                {
                    "x": c[0],
                    "y": c[1],
                    "features": sorted(f.value for f in features.get(c, ())),
                    "territory": self.tints[zone] if zone is not None else "neutral",
                }
            )
        return out

    def as_json(self) -> dict[str, Any]:
        """The same data as the page, without the drawing: what `campaign:map-json` serves."""
        return {
            "turn": self.turn,
            "day": self.day,
            "weather": self.weather,
            "snow": {"levels": self.snow_levels, "snowy_mountain_squares": self.snowy_mountains},
            "fog_of_war": self.fog,
            "viewer": {
                "role": self.viewer_role,
                "side": self.viewer_side,
                "player": self.viewer_player,
                "sees_everything": self.everything,
            },
            "map": {
                "width": self.width,
                "height": self.height,
                "territory": "relative" if self.relative_territory else "owner",
                "squares": self.squares(),
            },
            "players": [
                {"key": p.key, "name": p.name, "side": p.side, "colour": p.colour}
                for p in self.players
            ],
            "holdings": [
                {
                    "key": h.key,
                    "name": h.name,
                    "square": list(h.square),
                    "owner": h.owner,
                    "capital": h.capital,
                    "sacked": h.sacked,
                }
                for h in self.holdings
            ],
            "forces": [
                {
                    "key": f.key,
                    "name": f.name,
                    "owner": f.owner,
                    "square": list(f.square),
                    "status": f.status,
                    "is_order": f.is_order,
                    "figures": f.figures,
                    "relation": f.relation,
                    "zoc": [list(c) for c in f.zoc],
                }
                for f in self.forces
            ],
            "ghosts": [
                {
                    "force": g.force_key,
                    "name": g.name,
                    "owner": g.owner,
                    "square": list(g.square),
                    "last_seen_turn": g.last_seen_turn,
                    "turns_ago": g.turns_ago,
                    "status": g.status,
                    "figures": g.figures,
                }
                for g in self.ghosts
            ],
            "movement": {
                "turn": self.arrows_turn,
                "arrows": [
                    {"force": a.force_key, "kind": a.kind, "path": [list(c) for c in a.points]}
                    for a in self.arrows
                ],
            },
            "battles": [
                {"key": b.key, "square": list(b.square), "status": b.status, "turn": b.turn}
                for b in self.battles
            ],
        }


# --- geometry helpers -------------------------------------------------------------------------


def squares_path(squares: Iterable[Coord]) -> str:
    """One path for a set of squares: each horizontal run of a row is one rectangle."""
    rows: dict[int, list[int]] = defaultdict(list)
    for x, y in squares:
        rows[y].append(x)
    parts: list[str] = []
    for y in sorted(rows):
        xs = sorted(set(rows[y]))
        start = prev = xs[0]
        for x in [*xs[1:], None]:
            if x is not None and x == prev + 1:
                prev = x
                continue
            w = (prev - start + 1) * S
            parts.append(f"M{start * S} {y * S}h{w}v{S}h-{w}z")
            if x is not None:
                start = prev = x
    return "".join(parts)


def grid_paths(grid: Sequence[str | None], width: int) -> dict[str, str]:
    """Class → one path, for a row-major grid of class names (None: nothing to draw). A run
    of one class along a row is one rectangle; the whole map is read in one pass."""
    parts: dict[str, list[str]] = defaultdict(list)
    for y in range(len(grid) // width):
        x = 0
        for cls, run in groupby(grid[y * width : (y + 1) * width]):
            n = sum(1 for _ in run)
            if cls is not None:
                parts[cls].append(f"M{x * S} {y * S}h{n * S}v{S}h-{n * S}z")
            x += n
    return {cls: "".join(p) for cls, p in parts.items()}


def _runs(values: list[int]) -> Iterable[tuple[int, int]]:
    """(start, length) of each run of consecutive integers in an ascending list."""
    start = prev = values[0]
    for v in values[1:]:
        if v != prev + 1:
            yield start, prev - start + 1
            start = v
        prev = v
    yield start, prev - start + 1


def grid_edges(grid: Sequence[str | None], width: int) -> dict[str, str]:
    """Class → the border of its squares, drawn just inside them (so two neighbouring
    territories each show their own line) and joined into long strokes. The map's own edge
    is not drawn."""
    height = len(grid) // width
    inset = 0.6
    down: dict[tuple[str, float], list[int]] = defaultdict(list)  # vertical lines: the ys
    across: dict[tuple[str, float], list[int]] = defaultdict(list)  # horizontal: the xs
    for y in range(height):
        row = y * width
        for x in range(width):
            a = grid[row + x]
            if x + 1 < width and (b := grid[row + x + 1]) != a:
                if a is not None:
                    down[(a, (x + 1) * S - inset)].append(y)
                if b is not None:
                    down[(b, (x + 1) * S + inset)].append(y)
            if y + 1 < height and (b := grid[row + width + x]) != a:
                if a is not None:
                    across[(a, (y + 1) * S - inset)].append(x)
                if b is not None:
                    across[(b, (y + 1) * S + inset)].append(x)
    parts: dict[str, list[str]] = defaultdict(list)
    for (cls, lx), ys in down.items():
        parts[cls].extend(f"M{lx:g} {y0 * S}v{n * S}" for y0, n in _runs(ys))
    for (cls, ly), xs in across.items():
        parts[cls].extend(f"M{x0 * S} {ly:g}h{n * S}" for x0, n in _runs(xs))
    return {cls: "".join(p) for cls, p in parts.items()}


def _links_path(squares: set[Coord]) -> str:
    """A linear feature (river, road) as centre-to-centre strokes between neighbouring squares:
    orthogonal neighbours always, diagonal ones only where no orthogonal route joins them (so
    a bend is drawn as a corner, not a triangle). A lone square gets a short stroke."""
    parts: list[str] = []
    linked: set[Coord] = set()
    for x, y in sorted(squares, key=lambda c: (c[1], c[0])):
        cx, cy = x * S + HALF, y * S + HALF
        for dx, dy in ((1, 0), (0, 1), (1, 1), (-1, 1)):
            n = (x + dx, y + dy)
            if n not in squares:
                continue
            if dx and dy and ((x + dx, y) in squares or (x, y + dy) in squares):
                continue
            parts.append(f"M{cx} {cy}l{dx * S} {dy * S}")
            linked.add((x, y))
            linked.add(n)
    for x, y in squares - linked:
        parts.append(f"M{x * S + 2} {y * S + HALF}h{S - 4}")
    return "".join(parts)


def _zoc_path(square: Coord, width: int, height: int) -> str:
    """The zone of control (R6.6.1) as a 3×3 block clipped to the map, its centre cut out
    (drawn with fill-rule evenodd)."""
    x, y = square
    x0, y0 = max(0, x - 1), max(0, y - 1)
    x1, y1 = min(width - 1, x + 1), min(height - 1, y + 1)
    w, h = (x1 - x0 + 1) * S, (y1 - y0 + 1) * S
    return f"M{x0 * S} {y0 * S}h{w}v{h}h-{w}zM{x * S} {y * S}h{S}v{S}h-{S}z"


def _slots(n: int) -> tuple[float, list[tuple[float, float]]]:
    """Counter size and top-left offsets for `n` counters sharing one square (a k×k grid)."""
    k = max(1, math.ceil(math.sqrt(n)))
    size = (S - 1.6) / k
    pad = (S - size * k) / 2
    return size, [(pad + (i % k) * size, pad + (i // k) * size) for i in range(n)]


def _centre(c: Coord) -> tuple[int, int]:
    return c[0] * S + HALF, c[1] * S + HALF


def _arrow_path(points: list[Coord]) -> str:
    """A polyline through square centres, its last leg shortened so that the arrowhead stops
    at the edge of the counter standing in the last square."""
    pts = [_centre(c) for c in points]
    (ax, ay), (bx, by) = pts[-2], pts[-1]
    length = math.hypot(bx - ax, by - ay) or 1.0
    cut = min(S * 0.38, length / 2)
    ex, ey = bx - (bx - ax) * cut / length, by - (by - ay) * cut / length
    head = "".join(f"L{x} {y}" for x, y in pts[1:-1])
    return f"M{pts[0][0]} {pts[0][1]}{head}L{ex:.1f} {ey:.1f}"


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def forces_svg(forces: Iterable[MapForce]) -> str:
    """The force counters as SVG, built here in one pass: a template loop costs about as much
    again as the whole page for 240 forces. Each is a focusable group, `id="force-<key>"` and
    `data-force="<key>"`, holding its zone of control (shown on hover, focus or :target)."""
    parts = []
    for f in forces:
        key, cx, tx, ty = _e(f.key), f"{f.cx:g}", f"{f.tx:g}", f"{f.ty:g}"
        size, font = f"{f.size:g}", f"{f.font:g}"
        kind = "order" if f.is_order else "reaction"
        parts.append(
            f'<g class="force {f.relation or "unaligned"} {kind}" id="force-{key}" '
            f'data-force="{key}" tabindex="0"><title>{_e(f.title)}</title>'
            f'<path class="zoc" d="{f.zoc_d}"/>'
            f'<rect class="counter" x="{tx}" y="{ty}" width="{size}" height="{size}" '
            f'fill="{_e(f.colour)}"/>'
            f'<text x="{cx}" y="{f.marker_y:g}" font-size="{font}">{_e(f.marker)}</text>'
            f'<text x="{cx}" y="{f.figures_y:g}" font-size="{font}">{f.figures}</text>'
            f'<text class="force-name" x="{cx}" y="{ty}">{_e(f.name)}</text></g>\n'
        )
    return "".join(parts)


def ghosts_svg(ghosts: Iterable[MapGhost]) -> str:
    """Ghost counters: "?" over the number of turns since the side last saw the force."""
    parts = []
    for g in ghosts:
        cx, font = f"{g.cx:g}", f"{g.font:g}"
        parts.append(
            f'<g class="ghost" tabindex="0" data-ghost="{_e(g.force_key)}">'
            f"<title>{_e(g.title)}</title>"
            f'<rect class="counter" x="{g.tx:g}" y="{g.ty:g}" width="{g.size:g}" '
            f'height="{g.size:g}" stroke="{_e(g.colour)}"/>'
            f'<text x="{cx}" y="{g.marker_y:g}" font-size="{font}">?</text>'
            f'<text x="{cx}" y="{g.figures_y:g}" font-size="{font}">{g.turns_ago}</text></g>\n'
        )
    return "".join(parts)


# htmx attributes its elements inherit from their parent: given once, on the clickable group
INHERITED = frozenset(
    {
        "hx-confirm",
        "hx-disabled-elt",
        "hx-encoding",
        "hx-ext",
        "hx-headers",
        "hx-include",
        "hx-indicator",
        "hx-params",
        "hx-push-url",
        "hx-select",
        "hx-swap",
        "hx-sync",
        "hx-target",
    }
)


def clickable_svg(clicks: Iterable[ClickSquare], attrs: Iterable[tuple[str, str]]) -> str:
    """Clickable squares as SVG, on top of everything: the orders page makes every square of
    the map clickable, thousands on a big map, so this is built here rather than in a loop of
    the template. The caller's attributes are the same on every square; those htmx inherits
    go once on the group instead (`MapModel.click_group_attrs`)."""
    extra = "".join(f' {name}="{_e(value)}"' for name, value in attrs if name not in INHERITED)
    return "".join(
        f'<rect class="click" x="{c.px}" y="{c.py}" width="{S}" height="{S}" tabindex="0" '
        f'role="button" aria-label="{_e(c.label)}" data-x="{c.x}" data-y="{c.y}" '
        f"""hx-vals='{{"x": {c.x}, "y": {c.y}}}'{extra}/>"""
        for c in clicks
    )


# --- last turn: movement and battles --------------------------------------------------------


class _JsonPath(Func):
    """PostgreSQL's `jsonb_path_query_array`: only the parts of a big JSON column the map uses
    (a 240-force state and a turn's events are hundreds of kilobytes)."""

    function = "jsonb_path_query_array"
    template = "%(function)s(%(expressions)s::jsonpath)"

    def __init__(self, column: str, path: str) -> None:
        super().__init__(F(column), Value(path), output_field=JSONField())


_MAP_EVENTS = ("ForceMoved", "ForceCountermarched", "ContactMade")
_EVENTS_PATH = "$[*] ? (" + " || ".join(f'@.type == "{t}"' for t in _MAP_EVENTS) + ")"


@dataclass(frozen=True)
class _LastTurn:
    turn_id: int
    number: int
    events: list[dict[str, Any]]  # ForceMoved / ForceCountermarched / ContactMade, in order
    start: dict[str, Coord]  # where each force stood before the first of them


def _last_turn(campaign_id: int, *, jsonpath: bool | None = None) -> _LastTurn | None:
    """The movement and contacts of the latest turn that has been (partly) resolved, in one
    query. On PostgreSQL the JSON is filtered by the database (`jsonpath`); elsewhere the
    columns are read whole and filtered here. Both give the same result."""
    qs = TurnResolution.objects.filter(turn__campaign_id=campaign_id).order_by(
        "-turn__number", "-created_at"
    )[:2]
    if jsonpath is None:
        jsonpath = connections[qs.db].vendor == "postgresql"
    if jsonpath:
        rows = [
            (turn_id, number, stage, events, dict(zip(ids, squares, strict=True)))
            for turn_id, number, stage, events, ids, squares in qs.annotate(
                map_events=_JsonPath("events", _EVENTS_PATH),
                force_ids=_JsonPath("state_before", "$.forces[*].id"),
                force_squares=_JsonPath("state_before", "$.forces[*].square"),
            ).values_list(
                "turn_id", "turn__number", "stage", "map_events", "force_ids", "force_squares"
            )
        ]
    else:
        rows = [
            (
                turn_id,
                number,
                stage,
                [e for e in events if e.get("type") in _MAP_EVENTS],
                {f["id"]: f["square"] for f in before.get("forces", ())},
            )
            for turn_id, number, stage, events, before in qs.values_list(
                "turn_id", "turn__number", "stage", "events", "state_before"
            )
        ]
    if not rows:
        return None
    latest = rows[0][1]
    rows = [r for r in rows if r[1] == latest]
    rows.sort(key=lambda r: r[2] != TurnResolution.Stage.TURN)  # Phases 0–2 first
    events = [e for r in rows for e in r[3]]
    start = {k: (int(v[0]), int(v[1])) for k, v in rows[0][4].items()}
    return _LastTurn(rows[0][0], latest, events, start)


def _movement(last: _LastTurn) -> list[tuple[str, str, list[Coord]]]:
    """(force, kind, squares from start to end) for every move of the turn, in order."""
    pos = dict(last.start)
    moves: list[tuple[str, str, list[Coord]]] = []
    for e in last.events:
        kind = e["type"]
        if kind == "ForceMoved":
            fid = e["force_id"]
            path = [(int(x), int(y)) for x, y in e["path"]]
            if not path:
                continue
            frm = pos.get(fid)
            pos[fid] = path[-1]
            if frm is None:
                continue  # a force that entered play this turn: no known start
            reason = str(e.get("reason", ""))
            moves.append(
                (fid, "after-battle" if reason.startswith("post-battle") else "move", [frm, *path])
            )
        elif kind == "ForceCountermarched":
            fid = e["force_id"]
            frm, to = tuple(e["frm"]), tuple(e["to"])
            pos[fid] = (int(to[0]), int(to[1]))
            moves.append((fid, "countermarch", [(int(frm[0]), int(frm[1])), pos[fid]]))
    return moves


def _battle_rows(last: _LastTurn, *, jsonpath: bool) -> list[tuple[str, int, int, str, list[str]]]:
    """(key, x, y, status, players) of the turn's battles: one query, only if it had contacts."""
    if not any(e["type"] == "ContactMade" for e in last.events):
        return []
    qs = Battle.objects.filter(turn_id=last.turn_id).order_by("contact_order")
    if jsonpath:
        return list(
            qs.annotate(players=_JsonPath("pack", "$.sides[*].players[*]")).values_list(
                "key", "x", "y", "status", "players"
            )
        )
    return [
        (key, x, y, status, [p for s in pack.get("sides", ()) for p in s.get("players", ())])
        for key, x, y, status, pack in qs.values_list("key", "x", "y", "status", "pack")
    ]


def _seen_path(points: list[Coord], watched: set[Coord]) -> list[Coord]:
    """The part of an enemy's path the viewer's side could have seen: the squares it watches
    at the end, plus the square the force came from (the direction it arrived from)."""
    i = len(points)
    while i > 0 and points[i - 1] in watched:
        i -= 1
    if i == len(points):
        return []
    return points[max(0, i - 1) :]


# --- building the model --------------------------------------------------------------------------


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
    campaign = viewer.campaign
    gmap = state.map
    w, h = gmap.width, gmap.height
    view = map_view_for(viewer=viewer, state=state)
    side = viewer.side_key
    me = viewer.player.key if viewer.player is not None else None
    sides = {p.id: p.side for p in state.players}
    jsonpath = connections[Player.objects.db].vendor == "postgresql"

    colour_rows = Player.objects.filter(campaign=campaign).values_list(
        "key", "colour", "side__name"
    )
    colours = {k: c for k, c, _s in colour_rows}
    side_names = {k: s for k, _c, s in colour_rows}
    for i, p in enumerate(state.players):
        if colours.get(p.id, DEFAULT_COLOUR).lower() == DEFAULT_COLOUR:
            # a player left with the default grey (generated campaigns): tell armies apart
            colours[p.id] = PALETTE[i % len(PALETTE)]
    players = tuple(
        MapPlayer(
            p.id,
            p.name or p.id,
            p.side,
            side_names.get(p.id, p.side),
            colours.get(p.id, DEFAULT_COLOUR),
        )
        for p in state.players
    )
    pname = {p.key: p.name for p in players}

    # --- terrain, territory, snow, linear features ---
    relative = me is not None
    terrain_grid: list[str | None] = [None] * (w * h)
    zone_grid: list[str | None] = [None] * (w * h)
    river: set[Coord] = set()
    road: set[Coord] = set()
    track: set[Coord] = set()
    bridges: list[Coord] = []
    passes: list[Coord] = []
    features, zones = gmap.features, gmap.zones
    bases: dict[frozenset[Feature], str | None] = {}  # a map has only a few feature sets
    for c, feats in features.items():
        base = bases.get(feats, "")
        if base == "":
            t = next((t for t in TERRAIN_ORDER if t in feats), None)
            base = bases[feats] = t.value if t is not None else None
        terrain_grid[c[1] * w + c[0]] = base
        if len(feats) == 1 and base is not None:
            continue  # plain terrain: no river, road, bridge or pass
        if Feature.RIVER in feats:
            river.add(c)
        if Feature.ROAD in feats:
            road.add(c)
        if Feature.TRACK in feats:
            track.add(c)
        if Feature.BRIDGE in feats:
            bridges.append(c)
        if Feature.PASS in feats:
            passes.append(c)
    tints: dict[str, str] = {}  # zone → its tint for this viewer: it depends on the zone only
    for c, zone in zones.items():
        tint = tints.get(zone)
        if tint is None:
            tint = tints[zone] = state.territory(me, c).value if relative else zone
        if tint != Territory.NEUTRAL.value:
            zone_grid[c[1] * w + c[0]] = tint
    paths = grid_paths(terrain_grid, w)
    terrain = tuple(
        Layer(f"terrain t-{t.value}", paths[t.value], label=feature_label(t))
        for t in TERRAIN_ORDER
        if t.value in paths
    )
    paths, edges = grid_paths(zone_grid, w), grid_edges(zone_grid, w)
    if relative:
        territory = tuple(
            Layer(f"territory terr-{t}", paths[t], edges_d=edges.get(t, ""))
            for t in (Territory.FRIENDLY.value, Territory.ENEMY.value)
            if t in paths
        )
    else:
        territory = tuple(
            Layer(
                "territory terr-owner",
                paths[zone],
                fill=colours.get(zone, DEFAULT_COLOUR),
                edges_d=edges.get(zone, ""),
            )
            for zone in sorted(paths)
        )
    snow_levels = state.snow.levels
    snowy_mountains = sum(
        1 for c, v in state.snow.mountain.items() if v and Feature.MOUNTAIN in features.get(c, ())
    )
    if snow_levels:
        snow = (Layer("snow", f"M0 0h{w * S}v{h * S}h-{w * S}z"),)
    else:
        snowy = [
            c
            for c, v in state.snow.mountain.items()
            if v and Feature.MOUNTAIN in features.get(c, ())
        ]
        snow = (Layer("snow", squares_path(snowy)),) if snowy else ()
    grid_d = "".join(f"M{x * S} 0v{h * S}" for x in range(1, w)) + "".join(
        f"M0 {y * S}h{w * S}" for y in range(1, h)
    )
    bridges_d = "".join(f"M{x * S + 2} {y * S + 3}h6M{x * S + 2} {y * S + 7}h6" for x, y in bridges)
    passes_d = "".join(f"M{x * S + 2} {y * S + 7}l3 -4l3 4" for x, y in passes)

    highlights: list[Layer] = []
    for css, sq in (highlight or {}).items():
        if not _CSS_CLASS.match(css):
            raise ValueError(f"not a CSS class name: {css!r}")
        sq = tuple(sorted(set(sq), key=lambda c: (c[1], c[0])))
        if sq:
            highlights.append(Layer(f"hl hl-{css}", squares_path(sq), squares=sq))

    # --- holdings (public: every holding with its owner; a sacked one stays on the map,
    # marked, while its loot is carried off) ---
    holdings = []
    for hd in state.holdings:
        if hd.destroyed:
            continue
        name = hd.name or hd.id
        owner = pname.get(hd.owner, hd.owner)
        if hd.capital:
            title = _("%(name)s, capital of %(owner)s") % {"name": name, "owner": owner}
        else:
            title = _("%(name)s, holding of %(owner)s") % {"name": name, "owner": owner}
        if hd.sacked:
            title = _("%(holding)s (sacked)") % {"holding": title}
        holdings.append(
            MapHolding(
                hd.id,
                name,
                hd.square,
                hd.owner,
                owner,
                colours.get(hd.owner, DEFAULT_COLOUR),
                hd.capital,
                hd.sacked,
                title,
                hd.square[0] * S,
                hd.square[1] * S,
            )
        )

    # --- forces and ghosts, sharing the counter slots of their square ---
    stacks: dict[Coord, list[object]] = defaultdict(list)
    for f in view.forces:
        stacks[f.square].append(f)
    force_by_id = {f.id: f for f in state.forces}
    for g in view.ghosts:
        stacks[g.square].append(g)
    forces: list[MapForce] = []
    ghosts: list[MapGhost] = []
    labels, markers = status_labels(), status_markers()
    force_title = _("%(name)s (%(owner)s): %(status)s, %(figures)d figures, square (%(x)d, %(y)d)")
    for square in sorted(stacks, key=lambda c: (c[1], c[0])):
        items = stacks[square]
        size, offsets = _slots(len(items))
        font = round(size * 0.4, 2)
        ox, oy = square[0] * S, square[1] * S
        for item, (dx, dy) in zip(items, offsets, strict=True):
            tx, ty = round(ox + dx, 2), round(oy + dy, 2)
            if isinstance(item, Ghost):
                seen = force_by_id.get(item.force_key)
                owner = seen.owner if seen is not None else ""
                name = (seen.name or seen.id) if seen is not None else ""
                ago = item.turns_ago(state.turn)
                when = (
                    ngettext("last seen %(n)d turn ago", "last seen %(n)d turns ago", ago)
                    % {"n": ago}
                    if ago
                    else _("last seen this turn")
                )
                title = _("%(name)s (%(owner)s): %(when)s, square (%(x)d, %(y)d)") % {
                    "name": name or _("Enemy force"),
                    "owner": pname.get(owner, owner),
                    "when": when,
                    "x": square[0],
                    "y": square[1],
                }
                ghosts.append(
                    MapGhost(
                        item.force_key,
                        name,
                        square,
                        owner,
                        colours.get(owner, DEFAULT_COLOUR),
                        item.turn_number,
                        ago,
                        item.status,
                        item.figures,
                        title,
                        tx,
                        ty,
                        round(size, 2),
                        font,
                    )
                )
                continue
            f = item
            status = f.status
            if me is not None and f.owner == me:
                relation = "own"
            elif side is not None:
                relation = "ally" if sides.get(f.owner) == side else "enemy"
            else:
                relation = ""
            name = f.name or f.id
            figures = f.figures
            title = force_title % {
                "name": name,
                "owner": pname.get(f.owner, f.owner),
                "status": labels[status],
                "figures": figures,
                "x": square[0],
                "y": square[1],
            }
            forces.append(
                MapForce(
                    f.id,
                    name,
                    square,
                    f.owner,
                    pname.get(f.owner, f.owner),
                    colours.get(f.owner, DEFAULT_COLOUR),
                    status.value,
                    labels[status],
                    markers[status],
                    status.is_order,
                    figures,
                    relation,
                    tuple(gmap.neighbours(square)),  # R6.6.1, in (y, x) order
                    title,
                    tx,
                    ty,
                    round(size, 2),
                    font,
                    _zoc_path(square, w, h),
                )
            )
    order = {f.id: i for i, f in enumerate(state.forces)}
    forces.sort(key=lambda mf: order[mf.key])  # the state's order, whatever the stacking

    # --- last turn's arrows and battles ---
    arrows: list[MapArrow] = []
    battles: list[MapBattle] = []
    last = _last_turn(campaign.pk, jsonpath=jsonpath)
    watched: set[Coord] = set()
    if not view.everything and side is not None:
        watched = watched_squares(state, side)
    visible = {f.id for f in view.forces}
    if last is not None:
        for fid, kind, points in _movement(last):
            if not view.everything:
                if fid not in visible:
                    continue  # a hidden force leaves no trace
                owner = force_by_id[fid].owner
                if sides.get(owner) != side:
                    points = _seen_path(points, watched)
            if len(points) < 2:
                continue
            owner = force_by_id[fid].owner if fid in force_by_id else ""
            arrows.append(
                MapArrow(
                    fid, kind, tuple(points), colours.get(owner, "#555555"), _arrow_path(points)
                )
            )
        for key, x, y, status, bplayers in _battle_rows(last, jsonpath=jsonpath):
            if not view.everything:
                fought = side is not None and any(sides.get(p) == side for p in bplayers)
                if not fought and (x, y) not in watched:
                    continue
            if status == Battle.Status.PENDING:
                title = _("Battle %(key)s in square (%(x)d, %(y)d), waiting for its result")
            else:
                title = _("Battle %(key)s in square (%(x)d, %(y)d), fought")
            title %= {"key": key, "x": x, "y": y}
            battles.append(
                MapBattle(key, (x, y), status, last.number, title, x * S + HALF, y * S + HALF)
            )

    clicks: tuple[ClickSquare, ...] = ()
    click_attrs: tuple[tuple[str, str], ...] = ()
    if clickable is not None:
        label = _("Square (%(x)d, %(y)d)")
        clicks = tuple(
            ClickSquare(x, y, x * S, y * S, label % {"x": x, "y": y})
            for x, y in sorted(set(clickable.squares), key=lambda c: (c[1], c[0]))
            if gmap.on_map((x, y))
        )
        click_attrs = tuple(sorted(clickable.attrs.items()))

    step = 1 if w <= 24 else 5
    x_labels = tuple((x, x * S + HALF) for x in range(0, w, step))
    step = 1 if h <= 24 else 5
    y_labels = tuple((y, y * S + HALF) for y in range(0, h, step))

    return MapModel(
        width=w,
        height=h,
        turn=state.turn,
        day=state.day,
        weather=state.weather.value,
        weather_label=weather_label(state.weather.value),
        snow_levels=snow_levels,
        snowy_mountains=snowy_mountains,
        fog=campaign.fog_of_war,
        everything=view.everything,
        viewer_role=viewer.role or ("gm" if viewer.is_gm else ""),
        viewer_side=side,
        viewer_player=me,
        relative_territory=relative,
        players=players,
        terrain=terrain,
        territory=territory,
        snow=snow,
        rivers_d=_links_path(river),
        roads_d=_links_path(road),
        tracks_d=_links_path(track),
        bridges_d=bridges_d,
        passes_d=passes_d,
        grid_d=grid_d,
        highlights=tuple(highlights),
        holdings=tuple(holdings),
        forces=tuple(forces),
        ghosts=tuple(ghosts),
        arrows=tuple(arrows),
        arrows_turn=last.number if last is not None else None,
        battles=tuple(battles),
        clickable=clicks,
        click_attrs=click_attrs,
        gmap=gmap,
        tints=tints,
        x_labels=x_labels,
        y_labels=y_labels,
    )
