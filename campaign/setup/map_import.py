"""Importing a whole map from JSON or CSV text during set-up (`map_import`).

* JSON: the map object of docs/state-format.md,
  `{"width": 16, "height": 12, "squares": [{"x": 3, "y": 0, "features": ["forest"],
  "zone": "red"}]}`, or a whole state document holding one under `"map"`. Squares that are
  left out are open, neutral ground. `zone` names a player of the campaign (his key).
* CSV: one line per map row, from the top (y = 0); one cell per square, from the left
  (x = 0). A cell lists the square's features joined with `+` (`forest+river`); an empty
  cell or `open` is open ground. `@player` at the end gives the zone (`hill@red`). Cells are
  separated by commas, or semicolons when the first line has no comma. Blank lines at the end
  and lines starting with `#` are skipped. Every row has the same number of cells.

Errors name the line and column (CSV: the line of the file and the cell's number in it,
from 1; JSON syntax: line and character) or, for JSON content, the square by its place in
`squares` and its coordinates.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeGuard

from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

import rules as R
from campaign.errors import ServiceError
from campaign.json_input import JsonRefused, json_parse
from campaign.models import Campaign, Player, Square
from campaign.setup.base import (
    campaign_lock,
    features_clean,
    holding_problem_texts,
    holding_problems,
    state_of,
)
from rules import validate_state_references

MAP_MIN = 3  # R2.2.1: a map must be cut in three along either axis
MAP_MAX = 60
# in characters: a 60 × 60 map with every feature on every square fits many times over
MAP_TEXT_MAX = 1_000_000
FEATURE_VALUES = frozenset(f.value for f in R.Feature)


@dataclass(frozen=True)
class MapProblem:
    message: str
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        if self.line is not None and self.column is not None:
            return _("Line %(line)d, column %(column)d: %(message)s") % {
                "line": self.line,
                "column": self.column,
                "message": self.message,
            }
        if self.line is not None:
            return _("Line %(line)d: %(message)s") % {"line": self.line, "message": self.message}
        return self.message


class MapFormatError(ServiceError):
    """An imported map that cannot be read; `problems` carry their line and column."""

    MAX_REPORTED = 20

    def __init__(self, problems: list[MapProblem]) -> None:
        self.problems = problems[: self.MAX_REPORTED]
        messages = [str(p) for p in self.problems]
        if len(problems) > self.MAX_REPORTED:
            messages.append(
                ngettext(
                    "… and %(n)d more problem.",
                    "… and %(n)d more problems.",
                    len(problems) - self.MAX_REPORTED,
                )
                % {"n": len(problems) - self.MAX_REPORTED}
            )
        super().__init__({"data": messages})


@dataclass(frozen=True)
class ParsedMap:
    width: int
    height: int
    features: dict[R.Coord, list[str]]
    zones: dict[R.Coord, str]


def _whole(v: object) -> TypeGuard[int]:
    """A whole number (JSON's true and false are not)."""
    return isinstance(v, int) and not isinstance(v, bool)


def _shown(value: Any) -> str:
    """A value of the imported map as it was written, cut short: a message quotes it so,
    never as a Python repr."""
    text = json.dumps(value, ensure_ascii=False)
    if not text.isprintable():  # a lone surrogate cannot be sent: shown escaped, as written
        text = json.dumps(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _size_problems(width: Any, height: Any) -> list[MapProblem]:
    out = []
    for what, v in (("width", width), ("height", height)):
        if not _whole(v) or not MAP_MIN <= v <= MAP_MAX:
            out.append(
                MapProblem(
                    _("The map %(what)s must be a whole number from %(lo)d to %(hi)d, not %(v)s.")
                    % {"what": what, "lo": MAP_MIN, "hi": MAP_MAX, "v": _shown(v)}
                )
            )
    return out


def map_parse_json(text: str, players: Iterable[str]) -> ParsedMap:
    """The JSON map format (see the module docstring)."""
    try:
        doc = json_parse(text, max_chars=MAP_TEXT_MAX, want_object=False)
    except JsonRefused as e:
        if e.line is not None:  # the syntax: where, and what the parser expected there
            e.message = _("Not valid JSON: %(msg)s.") % {"msg": e.detail}
        raise MapFormatError([MapProblem(e.message, e.line, e.column)]) from None
    if isinstance(doc, dict) and isinstance(doc.get("map"), dict):
        doc = doc["map"]  # a whole state document
    if not isinstance(doc, dict):
        raise MapFormatError(
            [MapProblem(_("The JSON must be an object with width, height and squares."))]
        )
    unknown = sorted(set(doc) - {"width", "height", "squares"})
    problems = (
        [
            MapProblem(
                ngettext("Unknown field: %(f)s.", "Unknown fields: %(f)s.", len(unknown))
                % {"f": ", ".join(unknown)}
            )
        ]
        if unknown
        else []
    )
    width, height = doc.get("width"), doc.get("height")
    problems += _size_problems(width, height)
    squares = doc.get("squares", [])
    if not isinstance(squares, list):
        problems.append(MapProblem(_("squares must be a list.")))
        squares = []
    if problems:
        raise MapFormatError(problems)
    assert isinstance(width, int) and isinstance(height, int)  # `_size_problems` checked them
    known = set(players)
    features: dict[R.Coord, list[str]] = {}
    zones: dict[R.Coord, str] = {}
    for i, sq in enumerate(squares):
        problems += _json_square(i, sq, width, height, known, features, zones)
    if problems:
        raise MapFormatError(problems)
    return ParsedMap(width, height, {c: f for c, f in features.items() if f}, zones)


def _json_square(
    i: int,
    sq: Any,
    width: int,
    height: int,
    known: set[str],
    features: dict[R.Coord, list[str]],
    zones: dict[R.Coord, str],
) -> list[MapProblem]:
    """Read square #i of the JSON into `features` and `zones`; what is wrong with it."""
    where = _("square #%(i)d") % {"i": i + 1}
    if not isinstance(sq, dict):
        return [MapProblem(_("%(where)s is not an object.") % {"where": where})]
    x, y = sq.get("x"), sq.get("y")
    if not (_whole(x) and _whole(y)):
        return [MapProblem(_("%(where)s needs whole numbers x and y.") % {"where": where})]
    where = _("square #%(i)d (%(x)d, %(y)d)") % {"i": i + 1, "x": x, "y": y}
    problems = []
    extra = sorted(set(sq) - {"x", "y", "features", "zone"})
    if extra:
        problems.append(
            MapProblem(
                ngettext(
                    "%(where)s: unknown field %(f)s.",
                    "%(where)s: unknown fields %(f)s.",
                    len(extra),
                )
                % {"where": where, "f": ", ".join(extra)}
            )
        )
    if not (0 <= x < width and 0 <= y < height):
        problems.append(
            MapProblem(
                _("%(where)s lies outside the %(w)d×%(h)d map.")
                % {"where": where, "w": width, "h": height}
            )
        )
        return problems
    if (x, y) in features or (x, y) in zones:
        problems.append(MapProblem(_("%(where)s is given twice.") % {"where": where}))
    feats = sq.get("features", [])
    if not isinstance(feats, list):
        problems.append(MapProblem(_("%(where)s: features must be a list.") % {"where": where}))
        return problems
    if not all(isinstance(f, str) for f in feats):
        problems.append(MapProblem(_("%(where)s: each feature must be a name.") % {"where": where}))
        return problems
    try:
        features[(x, y)] = features_clean(feats)
    except ServiceError as e:
        problems.append(MapProblem(f"{where}: {' '.join(e.messages)}"))
    zone = sq.get("zone")
    if zone not in (None, ""):
        if not isinstance(zone, str) or zone not in known:
            problems.append(MapProblem(_zone_unknown(zone, known, where)))
        else:
            zones[(x, y)] = zone
    return problems


def _zone_unknown(zone: Any, known: set[str], where: str) -> str:
    players = ", ".join(sorted(known)) or _("none yet: create the players first")
    return _("%(where)s: zone %(zone)s is not a player of this campaign (players: %(p)s).") % {
        "where": where,
        "zone": _shown(zone),
        "p": players,
    }


def map_parse_csv(text: str, players: Iterable[str]) -> ParsedMap:
    """The CSV map format (see the module docstring)."""
    text = text.removeprefix("\ufeff")
    lines = text.splitlines()
    rows = [(n, line) for n, line in enumerate(lines, 1) if not line.lstrip().startswith("#")]
    while rows and not rows[-1][1].strip():
        rows.pop()
    if not rows:
        raise MapFormatError([MapProblem(_("The CSV file has no rows."))])
    delimiter = "," if "," in rows[0][1] or ";" not in rows[0][1] else ";"
    known = set(players)
    problems: list[MapProblem] = []
    features: dict[R.Coord, list[str]] = {}
    zones: dict[R.Coord, str] = {}
    width = None
    for y, (line_no, line) in enumerate(rows):
        try:
            cells = next(csv.reader([line], delimiter=delimiter), [])
        except csv.Error:  # a cell longer than the csv module's limit
            raise MapFormatError(
                [MapProblem(_("A cell of this row is far too long for a map."), line_no)]
            ) from None
        if width is None:
            width = len(cells)
        elif len(cells) != width:
            problems.append(
                MapProblem(
                    _(
                        "this row has %(n)d cells but the first row has %(w)d; every row needs one "
                        "cell per square."
                    )
                    % {"n": len(cells), "w": width},
                    line_no,
                )
            )
            continue
        for x, cell in enumerate(cells):
            cell = cell.strip().lower()
            terrain, _sep, zone = cell.partition("@")
            names = [t.strip() for t in terrain.split("+") if t.strip()]
            bad = [t for t in names if t not in FEATURE_VALUES]
            if bad:
                known_f = ", ".join(f.value for f in R.Feature)
                problems.append(
                    MapProblem(
                        _("unknown feature %(f)s (known: %(known)s).")
                        % {"f": _shown(bad[0]), "known": known_f},
                        line_no,
                        x + 1,
                    )
                )
                continue
            feats = features_clean(names)
            if feats:
                features[(x, y)] = feats
            zone = zone.strip()
            if zone:
                if zone not in known:
                    problems.append(
                        MapProblem(_zone_unknown(zone, known, _("zone")), line_no, x + 1)
                    )
                else:
                    zones[(x, y)] = zone
    height = len(rows)
    problems = _size_problems(width, height) + problems
    if problems:
        raise MapFormatError(problems)
    assert width is not None
    return ParsedMap(width, height, features, zones)


@transaction.atomic
def map_import(*, campaign: Campaign, data: str, format: str | None = None) -> ParsedMap:
    """Replace the whole map (size, features, zones) with an imported one. `format` is
    "json" or "csv"; None guesses JSON when the text starts with `{`. Holdings must still
    stand where the rules allow and forces on the map, or nothing changes."""
    locked = campaign_lock(campaign)
    if format is None:
        format = "json" if data.lstrip().startswith(("{", "[")) else "csv"
    players = list(Player.objects.filter(campaign=locked).values_list("key", flat=True))
    if format == "json":
        parsed = map_parse_json(data, players)
    elif format == "csv":
        parsed = map_parse_csv(data, players)
    else:
        raise ServiceError({"format": [_("The format is json or csv.")]})
    locked.width, locked.height = parsed.width, parsed.height
    locked.save(update_fields=["width", "height"])
    Square.objects.filter(campaign=locked).delete()
    Square.objects.bulk_create(
        Square(
            campaign=locked,
            x=x,
            y=y,
            features=parsed.features.get((x, y), []),
            zone=parsed.zones.get((x, y), ""),
        )
        for y in range(parsed.height)
        for x in range(parsed.width)
    )
    campaign.width, campaign.height = parsed.width, parsed.height
    state = state_of(locked)
    problems = [p.message for p in validate_state_references(state)]
    problems += holding_problem_texts(state, holding_problems(state))
    if problems:
        raise ServiceError(
            {"data": [_("The imported map does not fit what is already placed:"), *problems]}
        )
    return parsed
