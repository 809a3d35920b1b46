"""Turn events of format 1 (the engine of 2026-12-07, English prose in reasons and details)
brought to format 2 (codes and parameters, `rules.event_codes`): `upgrade_events`.

Frozen: it reads the strings that engine wrote, and writes what the engine of format 2
writes for the same turn; it never follows later engines. Pure Python, no Django.

What the old text could not carry, and how it is filled:
- `IndividualJoined.magic_points`: 25 for a Wizard brought by a "wizard" effect (§9.4.1 18,
  Incursion day 28: every table of the time gives 25), else 0.
- `RandomEvent.count` for "nobody to receive the magic-item / ars-arcana-points": the old
  text has no number; the table's (1 item; 200 points, the only Ars Arcana row of the time).
- An unknown string (a hand-edited store) raises `UpgradeError`: nothing is guessed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Event = dict[str, Any]


class UpgradeError(ValueError):
    """An old event this converter cannot read."""


FORCE_DESTROYED = {
    "no units left": "no-units-left",
    "no legal square to retreat to": "no-retreat-square",
    "force-test disaster": "force-test-disaster",
    "player surrendered": "player-surrendered",
    "lost to terrain attrition": "terrain-attrition",
    "shattered force engaged": "shattered-force-engaged",
    "annihilated (all forces Shattered)": "annihilated",
    "epidemic": "epidemic",
    "catastrophe": "catastrophe",
}
FORCE_MOVED = {
    "movement": "movement",
    "post-battle retreat": "post-battle-retreat",
    "post-battle stalemate": "post-battle-stalemate",
    "ambush": "ambush",
    "flank-attack": "flank-attack",
}
ORDER_REFUSED = {
    "sacking exists only in the Incursion scenario": "sack-outside-incursion",
    "only the Raiders carry off loot": "sack-not-raiders",
    "the force does not stand on an enemy holding it captured (L-a)": "sack-no-captured-holding",
    "a force under Full Speed may not declare a sack (rule 3)": "sack-under-full-speed",
    "a force carrying loot may not receive Full Speed": "loot-full-speed",
    "only cavalry, chariots and flyers may receive Probe": "probe-composition",
}
BANK_CHANGED = {
    "extra reinforcement points": "event-points",
    "a hero rouses the people": "hero-rouses-people",
    "epidemic in the capital": "epidemic-capital",
    "epidemic": "epidemic",
    "catastrophe": "catastrophe",
}
FORCE_POINTS_LOST = {"epidemic": "epidemic", "catastrophe": "catastrophe"}
CAPTURE_BLOCKED = {"a capital falls only to a siege": "capital-needs-siege"}
BANKED = "; the points stay banked"
REFUSED_FIXED = {
    "your capital is not in your hands: no reinforcements can be sent": "capital-lost",
    "the request buys nothing": "empty",
    "every unit needs at least one figure": "no-figures",
    "a general comes with at least one unit": "general-alone",
    "points cannot be negative": "negative-points",
    "no force of your side is in the capital, and a new force needs a general"
    + BANKED: "new-force-needs-general",
    "a new force needs at least one unit" + BANKED: "new-force-needs-unit",
    "more individual characters than units" + BANKED: "new-force-too-many-individuals",
    "mercenaries cannot form a force on their own" + BANKED: "new-force-mercenaries",
}
KEPT = "; he keeps this result and does not roll again (his choice)"
WIZARD_EFFECTS = {"wizard", "wizard-joins"}  # the event keys whose Wizard has 25 points
ITEM_COUNT = {"magic-item": 1, "ars-arcana-points": 200}

# the fields each changed event type has in format 2, in order, with the defaults of the new
# ones (the others are the old event's)
_NEW_FIELDS: dict[str, tuple[tuple[str, Any], ...]] = {
    "RandomEvent": (
        ("player_id", None),
        ("table", None),
        ("event", None),
        ("total", None),
        ("rule", None),
        ("outcome", "done"),
        ("kept", False),
        ("kind", ""),
        ("count", 0),
        ("day", None),
        ("role", ""),
    ),
    "SupplyConvoy": (
        ("player_id", None),
        ("day", None),
        ("event", None),
        ("rule", None),
        ("outcome", "done"),
        ("kind", ""),
        ("count", 0),
    ),
    "ReinforcementsRefused": (
        ("player_id", None),
        ("request", None),
        ("reason", None),
        ("rule", None),
        ("force_id", ""),
        ("cost", None),
        ("bank", None),
        ("units", []),
        ("status", ""),
    ),
    "IndividualJoined": (
        ("force_id", None),
        ("individual_id", None),
        ("kind", None),
        ("rule", None),
        ("magic_points", 0),
    ),
}


def _shaped(e: Event, **values: Any) -> Event:
    """`e` with the format-2 fields of its type, in order: `values`, else the old value, else
    the new field's default."""
    out: Event = {"type": e["type"]}
    for name, default in _NEW_FIELDS[e["type"]]:
        out[name] = values[name] if name in values else e.get(name, default)
    return out


def _code(table: dict[str, str], e: Event, field: str) -> Event:
    value = e.get(field)
    if value in table.values():  # already a code (an upgraded event)
        return dict(e)
    if value not in table:
        raise UpgradeError(f"{e['type']}.{field}: unknown {value!r}")
    return {**e, field: table[value]}


def _refused(e: Event) -> Event:
    if "status" in e:  # a field of format 2 only: already upgraded
        return dict(e)
    reason = str(e.get("reason", ""))
    if reason in REFUSED_FIXED:
        return _shaped(e, reason=REFUSED_FIXED[reason])
    if m := re.fullmatch(
        r"costs (\d+) points, the bank holds (\d+): kept for a later occasion", reason
    ):
        return _shaped(e, reason="bank-short", cost=int(m[1]), bank=int(m[2]))
    if m := re.fullmatch(r"force (\S+) would have more individual characters than units", reason):
        return _shaped(e, reason="too-many-individuals", force_id=m[1])
    elite = ": Elite troops cannot be sent as reinforcements, only Levy, Average or Veteran"
    if reason.endswith(elite):
        # the unit names were joined with ", ": a name with a comma in it splits (documented)
        return _shaped(e, reason="elite", units=reason.removesuffix(elite).split(", "))
    if reason.startswith("a general's CV runs from "):
        return _shaped(e, reason="cv-out-of-range")
    if m := re.fullmatch(
        r"a new force starts under an order, not (\S+)" + re.escape(BANKED), reason
    ):
        return _shaped(e, reason="new-force-status", status=m[1])
    if m := re.fullmatch(r"a new force starts under an order, not (\S+)", reason):
        return _shaped(e, reason="status", status=m[1])
    raise UpgradeError(f"ReinforcementsRefused.reason: unknown {reason!r}")


# --- random events and convoys ------------------------------------------------------------------


class _Told:
    """What one old detail line says: outcome code, kind, count, and the events it adds."""

    def __init__(self) -> None:
        self.outcome = "done"
        self.kind = ""
        self.count = 0
        self.added: list[Event] = []

    def lost(self, outcome: str, kind: str = "", count: int = 0) -> None:
        self.outcome, self.kind, self.count = outcome, kind, self.count + count


def _detail(detail: str, pid: str, rule: str) -> _Told:
    told = _Told()
    for part in detail.split("; ") if detail else []:
        _part(part, pid, rule, told)
    return told


# detail parts whose follow-up events tell everything (format 2 adds nothing)
_SILENT = tuple(
    re.compile(p)
    for p in (
        r"\+\d+ reinforcement points",
        r"-\d+ from current reinforcements",
        r"[\w-]+ \S+ joins force \S+",
        r"leader \S+ of force \S+: CV \d+ → \d+",
        r"\d+ \S+ token\(s\)",
        r"\d+ \S+ to force \S+",
        r"force \S+ (is Shattered|annihilated)",
        r"epidemic in the capital",
    )
)
# detail parts that say what kept the event from happening: (pattern, outcome)
_LOST = (
    (re.compile(r"no force has room for another (?P<kind>[\w-]+) \(R2\.5\.5\): lost"), "no-room"),
    (
        re.compile(r"(?P<n>\d+) (?P<kind>\S+) token\(s\), but nobody to give them to: lost"),
        "nobody",
    ),
    (re.compile(r"nobody to receive the (?P<kind>\S+): lost"), "nobody"),
    (re.compile(r"no leader it can apply to"), "no-leader"),
    (re.compile(r"no wizard to receive the magic points"), "no-wizard"),
    (re.compile(r"no force to strike"), "no-force"),
    (re.compile(r"no holding"), "no-holding"),
    (re.compile(r"catastrophe: no one struck"), "no-one-struck"),
)
_WIZARD_POINTS = re.compile(r"wizard (\S+) of force (\S+): \+(\d+) magic points")
_EPIDEMIC = re.compile(r"epidemic in holding (\S+)")
# "catastrophe: p1: square (9, 5); p2: square (3, 4)", split on "; "
_STRUCK = re.compile(r"(?:catastrophe: )?(\S+): square \((\d+), (\d+)\)")


def _part(part: str, pid: str, rule: str, told: _Told) -> None:
    if part == "no particular event":
        told.outcome = "none"
        return
    if any(p.fullmatch(part) for p in _SILENT):
        return
    for pattern, outcome in _LOST:
        if m := pattern.fullmatch(part):
            found = m.groupdict()
            kind = found.get("kind") or ""
            count = int(found["n"]) if "n" in found else 1 if outcome == "no-room" else 0
            if outcome == "nobody" and "n" not in found:
                count = ITEM_COUNT.get(kind, 0)
            told.lost(outcome, kind, count)
            return
    if m := _WIZARD_POINTS.fullmatch(part):
        added: Event = {"type": "MagicPointsGained", "force_id": m[2], "individual_id": m[1]}
        told.added.append({**added, "points": int(m[3]), "rule": rule})
    elif m := _EPIDEMIC.fullmatch(part):
        told.added.append(
            {"type": "EpidemicStruck", "player_id": pid, "holding_id": m[1], "rule": rule}
        )
    elif m := _STRUCK.fullmatch(part):
        square = [int(m[2]), int(m[3])]
        told.added.append(
            {"type": "CatastropheStruck", "player_id": m[1], "square": square, "rule": rule}
        )
    else:
        raise UpgradeError(f"random event detail: unknown {part!r}")


def _random_event(e: Event) -> tuple[Event, list[Event]]:
    detail = str(e.get("detail", ""))
    kept = detail.endswith(KEPT)
    told = _detail(detail.removesuffix(KEPT), e["player_id"], e["rule"])
    day, role = None, ""
    if m := re.fullmatch(r"day-(\d+)-(.+)", str(e["table"])):
        day, role = int(m[1]), m[2]
    new = _shaped(
        e,
        outcome=told.outcome,
        kept=kept,
        kind=told.kind,
        count=told.count,
        day=day,
        role=role,
    )
    return new, told.added


def _convoy(e: Event) -> tuple[Event, list[Event]]:
    told = _detail(str(e.get("detail", "")), e["player_id"], e["rule"])
    new = _shaped(e, outcome=told.outcome, kind=told.kind, count=told.count)
    return new, told.added


# --- the whole list ----------------------------------------------------------------------------

_SIMPLE: dict[str, Callable[[Event], Event]] = {
    "ForceDestroyed": lambda e: _code(FORCE_DESTROYED, e, "reason"),
    "ForceMoved": lambda e: _code(FORCE_MOVED, e, "reason"),
    "OrderRefused": lambda e: _code(ORDER_REFUSED, e, "reason"),
    "BankChanged": lambda e: _code(BANK_CHANGED, e, "reason"),
    "ForcePointsLost": lambda e: _code(FORCE_POINTS_LOST, e, "reason"),
    "CaptureBlocked": lambda e: _code(CAPTURE_BLOCKED, e, "reason"),
    "ReinforcementsRefused": _refused,
}


# a field only format 2 has, by the event types that change shape
_UPGRADED_BY = {
    "RandomEvent": "outcome",
    "SupplyConvoy": "outcome",
    "IndividualJoined": "magic_points",
}


def upgrade_events(events: list[Event]) -> list[Event]:
    """Format-1 events of one stage (as `Event.to_dict` wrote them) in format 2: the same
    events in the same order, their prose turned into codes and parameters, with the events
    format 2 adds after a random event (MagicPointsGained, EpidemicStruck,
    CatastropheStruck) where format 2 writes them: right after the random event. Events
    already in format 2 are left as they are."""
    out: list[Event] = []
    last_key = ""  # the event key of the last random event or convoy (who brought a Wizard)
    for e in events:
        kind = e.get("type")
        if kind in _UPGRADED_BY and _UPGRADED_BY[kind] in e:
            out.append(dict(e))  # already in format 2: upgrading twice changes nothing
        elif kind in _SIMPLE:
            out.append(_SIMPLE[kind](e))
        elif kind in ("RandomEvent", "SupplyConvoy"):
            new, added = (_random_event if kind == "RandomEvent" else _convoy)(e)
            last_key = str(e.get("event", ""))
            out += [new, *added]
        elif kind == "IndividualJoined":
            magic = 25 if e.get("kind") == "wizard" and last_key in WIZARD_EFFECTS else 0
            out.append(_shaped(e, magic_points=magic))
        else:
            out.append(dict(e))
    return out
