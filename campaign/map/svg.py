"""The SVG drawing of the map: geometry helpers that turn sets of squares into compact path
data (a run of squares along a row is one rectangle, so a 64×64 map is a few dozen elements
instead of thousands) and the markup of the counters and clickable squares, built here in one
pass because a template loop over hundreds of them costs as much again as the whole page.
Every value put into markup is escaped (`e`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from html import escape
from itertools import groupby
from typing import TYPE_CHECKING

from rules import Coord, Feature

if TYPE_CHECKING:
    from campaign.map.model import (
        ClickSquare,
        MapArrow,
        MapBattle,
        MapForce,
        MapGhost,
        MapHolding,
    )


S = 10  # SVG units per square: integer coordinates keep the path data short
HALF = S // 2


# The base colour of a square is its first feature in this order (open ground otherwise).
TERRAIN_ORDER: tuple[Feature, ...] = (
    Feature.SEA,
    Feature.LAKE,
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


def squares_path(squares: Iterable[Coord]) -> str:
    """One path for a set of squares: each horizontal run of a row is one rectangle."""
    rows: dict[int, list[int]] = defaultdict(list)
    for sx, sy in squares:
        rows[sy].append(sx)
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


def links_path(squares: set[Coord]) -> str:
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


def zoc_path(square: Coord, width: int, height: int) -> str:
    """The zone of control (R6.6.1) as a 3×3 block clipped to the map, its centre cut out
    (drawn with fill-rule evenodd)."""
    x, y = square
    x0, y0 = max(0, x - 1), max(0, y - 1)
    x1, y1 = min(width - 1, x + 1), min(height - 1, y + 1)
    w, h = (x1 - x0 + 1) * S, (y1 - y0 + 1) * S
    return f"M{x0 * S} {y0 * S}h{w}v{h}h-{w}zM{x * S} {y * S}h{S}v{S}h-{S}z"


def slots(n: int) -> tuple[float, list[tuple[float, float]]]:
    """Counter size and top-left offsets for `n` counters sharing one square (a k×k grid)."""
    k = max(1, math.ceil(math.sqrt(n)))
    size = (S - 1.6) / k
    pad = (S - size * k) / 2
    return size, [(pad + (i % k) * size, pad + (i // k) * size) for i in range(n)]


def _centre(c: Coord) -> tuple[int, int]:
    return c[0] * S + HALF, c[1] * S + HALF


def arrow_path(points: list[Coord]) -> str:
    """A polyline through square centres, its last leg shortened so that the arrowhead stops
    at the edge of the counter standing in the last square."""
    pts = [_centre(c) for c in points]
    (ax, ay), (bx, by) = pts[-2], pts[-1]
    length = math.hypot(bx - ax, by - ay) or 1.0
    cut = min(S * 0.38, length / 2)
    ex, ey = bx - (bx - ax) * cut / length, by - (by - ay) * cut / length
    head = "".join(f"L{x} {y}" for x, y in pts[1:-1])
    return f"M{pts[0][0]} {pts[0][1]}{head}L{ex:.1f} {ey:.1f}"


def e(value: object) -> str:
    return escape(str(value), quote=True)


# a lone counter's font size: the forces' group gives it once (`COUNTER_FONT`), and only a
# counter sharing its square (smaller) says its own
COUNTER_FONT = f"{round(slots(1)[0] * 0.4, 2):g}"


def forces_svg(forces: Iterable[MapForce]) -> str:
    """The force counters as SVG, built here in one pass: a template loop costs about as much
    again as the whole page for 240 forces. Each is a focusable group, `id="force-<key>"` and
    `data-force="<key>"`, holding its zone of control (shown on hover, focus or :target)."""
    parts = []
    for f in forces:
        key, cx, tx, ty = e(f.key), f"{f.cx:g}", f"{f.tx:g}", f"{f.ty:g}"
        size, font = f"{f.size:g}", f"{f.font:g}"
        kind = "order" if f.is_order else "reaction"
        own_font = f' font-size="{font}"' if font != COUNTER_FONT else ""
        parts.append(
            f'<g class="force {f.relation or "unaligned"} {kind}" id="force-{key}" '
            f'data-force="{key}" tabindex="0"{own_font}><title>{e(f.title)}</title>'
            f'<path class="zoc" d="{f.zoc_d}"/>'
            f'<rect class="counter" x="{tx}" y="{ty}" width="{size}" height="{size}" '
            f'fill="{e(f.colour)}"/>'
            f'<text x="{cx}" y="{f.marker_y:g}">{e(f.marker)}</text>'
            f'<text x="{cx}" y="{f.figures_y:g}">{f.figures}</text>'
            f'<text class="force-name" x="{cx}" y="{ty}">{e(f.name)}</text></g>\n'
        )
    return "".join(parts)


def arrows_svg(arrows: Iterable[MapArrow]) -> str:
    """Last turn's moves, one path each (in Python, as the counters: a template loop over a
    big turn's moves cost more than drawing them)."""
    return "".join(
        f'<path class="arrow arrow-{e(a.kind)}" d="{a.d}" stroke="{e(a.colour)}" '
        'marker-end="url(#map-arrowhead)"/>'
        for a in arrows
    )


_CAPITAL = "M2 0.2l0.6 1.3 1.4 0.2-1 1 0.25 1.4-1.25-0.7-1.25 0.7 0.25-1.4-1-1 1.4-0.2z"
_HOLDING = "M0.3 1.8l1.7-1.5 1.7 1.5v1.9h-3.4z"
_SACKED = '<path class="sacked-cross" d="M0.3 0.3l3.4 3.4M3.7 0.3l-3.4 3.4"/>'


def holding_frames_svg(holdings: Iterable[MapHolding]) -> str:
    """Each holding's frame around its square, with its title."""
    return "".join(
        f'<rect class="holding-frame{" sacked" if h.sacked else ""}" x="{h.frame_x:g}" '
        f'y="{h.frame_y:g}" width="8.8" height="8.8" stroke="{e(h.colour)}">'
        f"<title>{e(h.title)}</title></rect>"
        for h in holdings
    )


def holding_badges_svg(holdings: Iterable[MapHolding]) -> str:
    """Each holding's badge: a star for a capital, a house otherwise, crossed when sacked."""
    return "".join(
        f'<g transform="translate({h.px} {h.py})" class="holding-badge'
        f'{" capital" if h.capital else ""}{" sacked" if h.sacked else ""}" '
        f'fill="{e(h.colour)}"><path d="{_CAPITAL if h.capital else _HOLDING}"/>'
        f"{_SACKED if h.sacked else ''}</g>"
        for h in holdings
    )


def battles_svg(battles: Iterable[MapBattle]) -> str:
    """A marker for each battle, with its title."""
    return "".join(
        f'<g class="battle battle-{e(b.status)}" transform="translate({b.px} {b.py})" '
        f'data-battle="{e(b.key)}"><title>{e(b.title)}</title><circle cx="3" cy="-3" r="2"/>'
        '<path d="M1.8 -4.2l2.4 2.4M4.2 -4.2l-2.4 2.4"/></g>'
        for b in battles
    )


def ghosts_svg(ghosts: Iterable[MapGhost]) -> str:
    """Ghost counters: "?" over the number of turns since the side last saw the force."""
    parts = []
    for g in ghosts:
        cx, font = f"{g.cx:g}", f"{g.font:g}"
        parts.append(
            f'<g class="ghost" tabindex="0" data-ghost="{e(g.force_key)}">'
            f"<title>{e(g.title)}</title>"
            f'<rect class="counter" x="{g.tx:g}" y="{g.ty:g}" width="{g.size:g}" '
            f'height="{g.size:g}" stroke="{e(g.colour)}"/>'
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
    extra = "".join(f' {name}="{e(value)}"' for name, value in attrs if name not in INHERITED)
    return "".join(_click(c, extra) for c in clicks)


def _click(c: ClickSquare, extra: str) -> str:
    """One clickable square: a button, or a link (its `href`) that htmx takes over (the page's
    script keeps the link unfollowed: static/js/site.js)."""
    vals = f"""data-x="{c.x}" data-y="{c.y}" hx-vals='{{"x": {c.x}, "y": {c.y}}}'{extra}"""
    box = f'x="{c.px}" y="{c.py}" width="{S}" height="{S}"'
    if c.href:
        return (
            f'<a class="click" href="{e(c.href)}" aria-label="{e(c.label)}" {vals}>'
            f"<rect {box}/></a>"
        )
    return (
        f'<rect class="click" {box} tabindex="0" role="button" aria-label="{e(c.label)}" {vals}/>'
    )
