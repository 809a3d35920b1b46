"""The campaign map as one viewer may see it: a render-ready model, built from the rules state
by `campaign.map.build.map_model` and drawn by `templates/includes/map_svg.html` with the
SVG pieces of `campaign.map.svg`; `MapModel.as_json` is the same data without the drawing.
The play map, the orders page's path map and the set-up map editor all draw this model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from django.utils.safestring import SafeString, mark_safe

from campaign.map.svg import (
    COUNTER_FONT,
    INHERITED,
    S,
    arrows_svg,
    battles_svg,
    clickable_svg,
    e,
    forces_svg,
    ghosts_svg,
    holding_badges_svg,
    holding_frames_svg,
)
from campaign.state_rows import derived
from campaign.text.labels import STATUS_MARKER
from rules import Coord, GameMap, Status

_CLICK_ATTR = re.compile(r"^(hx-[a-z-]+|data-[a-z0-9-]+|aria-[a-z-]+|title)$")


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
    `hx-post`, `hx-target`; only hx-*, data-*, aria-* and title are accepted). With `link`
    (a URL with `{x}` and `{y}`) each square is also a link there, for a browser without
    JavaScript (the set-up map opens its one-square form); htmx cancels the link."""

    squares: tuple[Coord, ...]
    attrs: Mapping[str, str] = field(default_factory=dict)
    link: str = ""

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
    href: str = ""


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
    navigable_d: str
    ship_navigable_d: str
    rapids_d: str
    mouths_d: str
    reefs_d: str
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

    @property
    def arrows_svg(self) -> SafeString:
        return mark_safe(arrows_svg(self.arrows))  # every value escaped by arrows_svg

    @property
    def holding_frames_svg(self) -> SafeString:
        return mark_safe(holding_frames_svg(self.holdings))  # escaped there

    @property
    def holding_badges_svg(self) -> SafeString:
        return mark_safe(holding_badges_svg(self.holdings))  # escaped there

    @property
    def battles_svg(self) -> SafeString:
        return mark_safe(battles_svg(self.battles))  # escaped there

    @property
    def counter_font(self) -> str:
        """A lone counter's font size, which its forces' group gives once (`forces_svg`)."""
        return COUNTER_FONT

    @cached_property
    def forces_svg(self) -> SafeString:
        # once for the same counters (shared by the requests that see the same: build.py)
        svg = derived("forces-svg", (self.forces,), lambda: forces_svg(self.forces))
        return mark_safe(svg)  # every value escaped by forces_svg

    @property
    def click_group_attrs(self) -> SafeString:
        """The inheritable htmx attributes of the clickable squares, for their group."""
        return mark_safe(
            "".join(f' {n}="{e(v)}"' for n, v in self.click_attrs if n in INHERITED)
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
        return {Status(s).name.lower(): str(m) for s, m in STATUS_MARKER.items()}

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
