"""Reads for the map beyond the rules state: the movement and contacts of the latest resolved
turn, and its battles. Each is one query whatever the size of the campaign; on PostgreSQL
only the parts of the big JSON columns the map uses are read (`jsonb_path_query_array`).
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass
from typing import Any

from django.db import connections

from battles.models import Battle
from campaign.bulk import JsonPath
from campaign.models import TurnResolution
from rules import Coord

_MAP_EVENTS = ("ForceMoved", "ForceCountermarched", "ContactMade")
_EVENTS_PATH = "$[*] ? (" + " || ".join(f'@.type == "{t}"' for t in _MAP_EVENTS) + ")"


@dataclass(frozen=True)
class LastTurn:
    turn_id: int
    number: int
    events: list[dict[str, Any]]  # ForceMoved / ForceCountermarched / ContactMade, in order
    start: dict[str, Coord]  # where each force stood before the first of them


def last_turn_get(campaign_id: int, *, jsonpath: bool | None = None) -> LastTurn | None:
    """The movement and contacts of the latest turn that has been (partly) resolved, in one
    query. On PostgreSQL the JSON is filtered by the database (`jsonpath`); elsewhere the
    columns are read whole and filtered here. Both give the same result."""
    qs = TurnResolution.objects.filter(turn__campaign_id=campaign_id).order_by(
        "-turn__number", "-created_at"
    )[:2]
    if jsonpath is None:
        jsonpath = connections[qs.db].vendor == "postgresql"
    if jsonpath:
        rows = list(
            qs.annotate(map_events=JsonPath("events", _EVENTS_PATH)).values_list(
                "turn_id", "turn__number", "stage", "map_events", "squares_before"
            )
        )
    else:
        rows = [
            (turn_id, number, stage, [e for e in events if e.get("type") in _MAP_EVENTS], start)
            for turn_id, number, stage, events, start in qs.values_list(
                "turn_id", "turn__number", "stage", "events", "squares_before"
            )
        ]
    if not rows:
        return None
    latest = rows[0][1]
    rows = [r for r in rows if r[1] == latest]
    rows.sort(key=lambda r: r[2] != TurnResolution.Stage.TURN)  # Phases 0–2 first
    events = [e for r in rows for e in r[3]]
    start = {k: (int(v[0]), int(v[1])) for k, v in rows[0][4].items()}
    return LastTurn(rows[0][0], latest, events, start)


def movement(last: LastTurn) -> list[tuple[str, str, list[Coord]]]:
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


def battle_rows(last: LastTurn, *, jsonpath: bool) -> list[tuple[str, int, int, str, list[str]]]:
    """(key, x, y, status, players) of the turn's battles: one query, only if it had contacts."""
    if not any(e["type"] == "ContactMade" for e in last.events):
        return []
    qs = Battle.objects.filter(turn_id=last.turn_id).order_by("contact_order")
    if jsonpath:
        return list(
            qs.annotate(players=JsonPath("pack", "$.sides[*].players[*]")).values_list(
                "key", "x", "y", "status", "players"
            )
        )
    return [
        (key, x, y, status, [p for s in pack.get("sides", ()) for p in s.get("players", ())])
        for key, x, y, status, pack in qs.values_list("key", "x", "y", "status", "pack")
    ]


def seen_path(points: list[Coord], watched: Set[Coord]) -> list[Coord]:
    """The part of an enemy's path the viewer's side could have seen: the squares it watches
    at the end, plus the square the force came from (the direction it arrived from)."""
    i = len(points)
    while i > 0 and points[i - 1] in watched:
        i -= 1
    if i == len(points):
        return []
    return points[max(0, i - 1) :]
