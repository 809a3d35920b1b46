"""Turn reports, the GM inbox and the player-safe export: reads of stored resolutions, filtered
by what the viewer may see.

**What a viewer sees of a resolution** (one stage: Phases 0–2 or Phases 4–8). The GM, and
everyone when fog of war is off or the campaign has ended, sees everything. Otherwise a side
sees, for that stage:

- its own forces (owned by a player of the side before or after the stage), and the enemy
  forces visible to it (`campaign.visibility.visible_force_keys`) in the state the stage
  started from (`TurnResolution.state_before`) or in the state it left (the next stored
  resolution's `state_before`, or the current state for the latest one);
- the battles its side fought, the holdings its players owned or watched, its own players;
- squares it watched before or after the stage (`watched_squares`): an enemy force's path is
  shown only through those squares.

An event is shown when it concerns at least one of those (or is map-wide: weather for the
whole map, snow, the day, a surrender, the end of the campaign); inside a shown event every
hidden force, unit, battle or square is removed, so its id, name, square or path never
reaches the page. A roll of the ledger is shown when its purpose (`"movement:force-f3"`,
`"after:t1-b1:wounded-u5"` …) names no hidden force, unit or battle and names at least one
thing the side sees; a purpose that names nothing (`"weather:map"`, the snow days) is public.
Enemy players' own rolls (will to fight, random events) are not shown.

The same decisions filter the export a player or observer downloads
(`campaign_export_for_viewer`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from battles.models import Battle
from campaign import services
from campaign.access import Viewer
from campaign.exchange import STAGE_ORDER, campaign_export, turn_replay
from campaign.models import Campaign, Orders, Side, Turn, TurnResolution
from campaign.visibility import map_view_for, visible_force_keys, watched_squares
from rules.codec import from_data, to_data
from rules.types import CampaignState, Coord

# --- labels --------------------------------------------------------------------------------

STATUS_LABELS = {
    "full-speed": gettext_lazy("Full Speed"),
    "probe": gettext_lazy("Probe"),
    "defend": gettext_lazy("Defend"),
    "confused": gettext_lazy("Confused"),
    "unsteady": gettext_lazy("Unsteady"),
    "shattered": gettext_lazy("Shattered"),
}
WEATHER_LABELS = {
    "fine": gettext_lazy("fine"),
    "light-rain": gettext_lazy("light rain"),
    "heavy-rain": gettext_lazy("heavy rain"),
    "storm": gettext_lazy("a storm"),
}
OUTCOME_LABELS = {
    "won": gettext_lazy("won"),
    "stalemate": gettext_lazy("reached a stalemate"),
    "lost": gettext_lazy("lost"),
}
FORCE_TEST_OUTCOMES = {
    "ok": gettext_lazy("the order was given"),
    "defend": gettext_lazy("the force falls back to Defend"),
    "destroyed": gettext_lazy("complete disaster"),
}
STOP_REASONS = {
    "enemy-zoc": gettext_lazy("it entered an enemy zone of control"),
    "illegal-step": gettext_lazy("the next step of its path was not allowed"),
    "two-hostile-sides": gettext_lazy("forces of two hostile sides held the next square"),
    "no-countermarch-square": gettext_lazy("there was no square to countermarch to"),
}
PHASE_LABELS = {
    "weather": gettext_lazy("Weather"),
    "orders": gettext_lazy("Orders"),
    "movement": gettext_lazy("Movement"),
    "battle": gettext_lazy("Battle"),
    "after": gettext_lazy("After the battle"),
    "attrition": gettext_lazy("Attrition"),
    "will-to-fight": gettext_lazy("Will to fight"),
    "events": gettext_lazy("Events"),
}
# a roll whose purpose starts so is map-wide even if it names a scenario role
PUBLIC_PURPOSES = ("weather:map", "events:snow-day-")
PUBLIC_EVENTS = frozenset({"SnowFell", "DayAdvanced", "CampaignEnded", "PlayerSurrendered"})

FORCE_FIELDS = ("force_id", "by_force_id")
FORCE_LIST_FIELDS = ("enemy_ids", "order")
MEMBER_FIELDS = ("unit_id", "individual_id", "general_id")
PLAYER_FIELDS = ("player_id", "by_player", "from_player", "owner")
SQUARE_FIELDS = ("square", "frm", "to")


def _label(table: Mapping[str, Any], value: Any) -> str:
    if value is None:
        return "—"
    return str(table.get(str(value), str(value).replace("-", " ")))


def _sq(value: Any) -> str:
    if isinstance(value, list | tuple) and len(value) == 2:
        return f"({value[0]}, {value[1]})"
    return _("an unseen square")


def _signed(value: int) -> str:
    return f"+{value}" if value >= 0 else f"−{abs(value)}"


_WORD = re.compile(r"[A-Za-z0-9_]+(?:-[A-Za-z0-9_]+)*")


def _tokens(text: str) -> set[str]:
    """Every dash-joined run of words in `text`: ids such as "t1-b1" or "f3u2" inside a
    purpose like "after:t1-b1:deserters-f3u2-exits" or a free-text detail."""
    out: set[str] = set()
    for word in _WORD.findall(text):
        parts = word.split("-")
        for i in range(len(parts)):
            for j in range(i + 1, len(parts) + 1):
                out.add("-".join(parts[i:j]))
    return out


# --- the lens: what one viewer sees of one stage -------------------------------------------


@dataclass(frozen=True)
class Lens:
    """The ids a viewer sees and those hidden from him, for one stage (see the module text)."""

    everything: bool
    forces: frozenset[str] = frozenset()  # every force id known to the stage
    seen_forces: frozenset[str] = frozenset()
    own_forces: frozenset[str] = frozenset()
    member_force: Mapping[str, str] = field(default_factory=dict)  # unit/general/… → force
    players: frozenset[str] = frozenset()
    own_players: frozenset[str] = frozenset()
    battles: frozenset[str] = frozenset()
    seen_battles: frozenset[str] = frozenset()
    holdings: frozenset[str] = frozenset()
    seen_holdings: frozenset[str] = frozenset()
    watched: frozenset[Coord] = frozenset()

    def force_of(self, token: Any) -> str | None:
        if not isinstance(token, str):
            return None
        if token in self.forces:
            return token
        return self.member_force.get(token)

    def secret(self, token: Any) -> bool:
        """A hidden force (or one of its units, generals, characters) or battle."""
        if self.everything or not isinstance(token, str):
            return False
        fid = self.force_of(token)
        if fid is not None:
            return fid not in self.seen_forces
        return token in self.battles and token not in self.seen_battles

    def sees(self, token: Any) -> bool:
        """Something the viewer's side sees: a subject that makes an event or roll his."""
        if self.everything:
            return True
        if not isinstance(token, str):
            return False
        fid = self.force_of(token)
        if fid is not None:
            return fid in self.seen_forces
        return (
            token in self.seen_battles or token in self.own_players or token in self.seen_holdings
        )

    def known(self, token: str) -> bool:
        return (
            self.force_of(token) is not None
            or token in self.players
            or token in self.battles
            or token in self.holdings
        )

    def text_ok(self, text: str) -> bool:
        return self.everything or not any(self.secret(t) for t in _tokens(text))


def lens_for(
    *,
    viewer: Viewer,
    states: Sequence[CampaignState],
    battle_sides: Mapping[str, Sequence[str]],
    events: Iterable[Mapping[str, Any]] = (),
) -> Lens:
    """The lens of `viewer` over a stage whose states (before and after) are `states`. Forces
    named by `events` but in neither state (made and lost within the stage) count as hidden
    from other sides."""
    member_force: dict[str, str] = {}
    forces: set[str] = set()
    for s in states:
        for f in s.forces:
            forces.add(f.id)
            for c in f.commands:
                member_force[c.id] = f.id
                if c.general is not None:
                    member_force[c.general.id] = f.id
                for u in c.units:
                    member_force[u.id] = f.id
            for i in f.individuals:
                member_force[i.id] = f.id
    for e in events:
        for k in FORCE_FIELDS:
            if isinstance(e.get(k), str):
                forces.add(e[k])
        for k in FORCE_LIST_FIELDS:
            forces.update(x for x in e.get(k) or () if isinstance(x, str))
    for k in list(member_force):  # a force id wins over a member id that reads the same
        if k in forces:
            del member_force[k]
    players = frozenset(p.id for s in states for p in s.players)
    holdings = frozenset(h.id for s in states for h in s.holdings)
    common = {
        "forces": frozenset(forces),
        "member_force": member_force,
        "players": players,
        "battles": frozenset(battle_sides),
        "holdings": holdings,
    }
    if viewer.sees_everything:
        return Lens(everything=True, seen_forces=frozenset(forces), **common)
    side = viewer.side_key
    if side is None:  # an observer following no side sees only what is map-wide
        return Lens(everything=False, **common)
    own: set[str] = set()
    seen: set[str] = set()
    watched: set[Coord] = set()
    own_players: set[str] = set()
    seen_holdings: set[str] = set()
    for s in states:
        own.update(f.id for f in s.forces if s.side_of(f.owner) == side)
        own_players.update(p.id for p in s.players if p.side == side)
        seen_holdings.update(h.id for h in s.holdings if s.side_of(h.owner) == side)
    for s in states:
        w = watched_squares(s, side)
        watched |= w
        seen |= visible_force_keys(s, side)
        seen_holdings.update(h.id for h in s.holdings if h.square in w)
    return Lens(
        everything=False,
        seen_forces=frozenset(own | (seen & forces)),
        own_forces=frozenset(own),
        own_players=frozenset(own_players),
        seen_battles=frozenset(b for b, sides in battle_sides.items() if side in sides),
        seen_holdings=frozenset(seen_holdings),
        watched=frozenset(watched),
        **common,
    )


# --- events: filter and scrub ---------------------------------------------------------------


def _event_subjects(e: Mapping[str, Any]) -> list[Any]:
    out: list[Any] = [e.get(k) for k in (*FORCE_FIELDS, *MEMBER_FIELDS, *PLAYER_FIELDS)]
    for k in FORCE_LIST_FIELDS:
        out.extend(e.get(k) or ())
    out += [e.get("battle_id"), e.get("holding_id")]
    return [x for x in out if x is not None]


def event_visible(lens: Lens, e: Mapping[str, Any]) -> bool:
    if lens.everything:
        return True
    kind = e.get("type")
    if kind in PUBLIC_EVENTS or (kind == "WeatherRolled" and not e.get("force_id")):
        return True
    return any(lens.sees(x) for x in _event_subjects(e))


def _scrub_value(lens: Lens, value: Any) -> Any:
    """Free values (reasons, details, triggers): text naming a hidden id is dropped."""
    if isinstance(value, str):
        return value if lens.text_ok(value) else ""
    if isinstance(value, list):
        return [_scrub_value(lens, v) for v in value]
    if isinstance(value, dict):
        return {k: _scrub_value(lens, v) for k, v in value.items() if lens.text_ok(str(k))}
    return value


def event_scrub(lens: Lens, e: Mapping[str, Any]) -> dict[str, Any]:
    """A shown event without anything hidden: hidden forces, units and battles become None
    (or leave their lists), an enemy's path keeps only the squares the side watched."""
    if lens.everything:
        return dict(e)
    own = e.get("force_id") in lens.own_forces
    out: dict[str, Any] = {}
    for k, v in e.items():
        if k in ("type", "rule"):
            out[k] = v
        elif k in FORCE_FIELDS or k in MEMBER_FIELDS or k == "battle_id":
            out[k] = None if lens.secret(v) else v
        elif k in FORCE_LIST_FIELDS:
            out[k] = [x for x in v or () if not lens.secret(x)]
        elif k == "path":
            out[k] = list(v) if own else [sq for sq in v if tuple(sq) in lens.watched]
        elif k in SQUARE_FIELDS:
            visible = v is None or own or (isinstance(v, list) and tuple(v) in lens.watched)
            out[k] = v if visible else None
        else:
            out[k] = _scrub_value(lens, v)
    return out


# --- the ledger: filter and scrub -----------------------------------------------------------


def roll_visible(lens: Lens, entry: Mapping[str, Any]) -> bool:
    if lens.everything:
        return True
    purpose = str(entry.get("purpose", ""))
    if purpose.startswith(PUBLIC_PURPOSES):
        return True
    tokens = _tokens(purpose)
    if any(lens.secret(t) for t in tokens):
        return False
    ids = [t for t in tokens if lens.known(t)]
    return not ids or any(lens.sees(t) for t in ids)


def roll_scrub(lens: Lens, entry: Mapping[str, Any]) -> dict[str, Any]:
    if lens.everything:
        return dict(entry)
    hidden = _("(hidden)")
    out = dict(entry)
    out["outcome"] = (
        entry.get("outcome", "") if lens.text_ok(str(entry.get("outcome", ""))) else hidden
    )
    out["details"] = [d if lens.text_ok(str(d)) else hidden for d in entry.get("details", [])]
    out["modifiers"] = [
        {**m, "reason": m.get("reason", "") if lens.text_ok(str(m.get("reason", ""))) else hidden}
        for m in entry.get("modifiers", [])
    ]
    return out


def _ledger_for(lens: Lens, ledger: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The rolls a lens shows, scrubbed. Under fog they are numbered again from 1 (the stored
    number is kept as `stored_seq`): the gaps would count the enemy's hidden forces."""
    shown = [roll_scrub(lens, x) for x in ledger if roll_visible(lens, x)]
    if not lens.everything:
        for number, entry in enumerate(shown, start=1):
            entry["stored_seq"], entry["seq"] = entry.get("seq"), number
    return shown


def roll_phase(purpose: str) -> str:
    return purpose.split(":", 1)[0]


# --- names ----------------------------------------------------------------------------------


class Names:
    """Readable names for the ids of a stage, from its states (forces lost in the stage are
    still in the state it started from) and the campaign's sides."""

    def __init__(
        self,
        states: Sequence[CampaignState],
        *,
        sides: Mapping[str, str],
        battle_sides: Mapping[str, Mapping[str, str]] | None = None,
        everything: bool,
    ) -> None:
        self.everything = everything
        self.sides = sides
        self.battle_sides = battle_sides or {}  # battle id → "a"/"b" → alliance name
        self._forces: dict[str, str] = {}
        self._members: dict[str, tuple[str, str]] = {}  # id → (label, force id)
        self._holdings: dict[str, str] = {}
        self._players: dict[str, str] = {}
        for s in states:
            for p in s.players:
                self._players[p.id] = p.name or p.id
            for h in s.holdings:
                self._holdings[h.id] = h.name or h.id
            for f in s.forces:
                self._forces[f.id] = f.name or _("force %(id)s") % {"id": f.id}
                for c in f.commands:
                    if c.general is not None:
                        self._members[c.general.id] = (
                            c.general.name or _("the general %(id)s") % {"id": c.general.id},
                            f.id,
                        )
                    for u in c.units:
                        self._members[u.id] = (u.type or u.id, f.id)
                for i in f.individuals:
                    self._members[i.id] = (i.name or i.kind.value.replace("-", " "), f.id)

    def force(self, fid: Any) -> str:
        if not fid:
            return _("an unseen force")
        return self._forces.get(fid) or _("force %(id)s") % {"id": fid}

    def member(self, mid: Any) -> str:
        if not mid:
            return _("an unseen unit")
        label, _fid = self._members.get(mid, (mid, None))
        return label

    def holding(self, hid: Any) -> str:
        return self._holdings.get(hid, hid) if hid else _("a holding")

    def player(self, pid: Any) -> str:
        return self._players.get(pid, pid) if pid else "—"

    def battle(self, bid: Any) -> str:
        if not bid:
            return _("a battle")
        return _("battle %(id)s") % {"id": bid}

    def forces(self, fids: Iterable[Any]) -> str:
        names = [self.force(f) for f in fids]
        return ", ".join(names) if names else _("no force you can see")

    def subject(self, lens: Lens, purpose: str) -> str:
        """Who a roll is about, by name."""
        found: list[str] = []
        for t in sorted(_tokens(purpose), key=purpose.find):
            if not lens.sees(t):
                continue
            if t in self._forces:
                label = self._forces[t]
            elif t in self._members:
                label, fid = self._members[t]
                label = _("%(member)s of %(force)s") % {
                    "member": label,
                    "force": self.force(fid),
                }
            elif t in self._players:
                label = self._players[t]
            elif t in self._holdings:
                label = self._holdings[t]
            elif t in lens.battles:
                label = self.battle(t)
            else:
                continue
            if label not in found:
                found.append(label)
        return ", ".join(found) if found else _("the whole map")


# --- one sentence per event -----------------------------------------------------------------

EventData = Mapping[str, Any]  # an event as stored (`Event.to_dict`), maybe scrubbed
Renderer = Callable[[EventData, Names], str]
RENDERERS: dict[str, Renderer] = {}


def renders(*kinds: str) -> Callable[[Renderer], Renderer]:
    def register(fn: Renderer) -> Renderer:
        for kind in kinds:
            RENDERERS[kind] = fn
        return fn

    return register


@renders("WeatherRolled")
def _weather(e: EventData, n: Names) -> str:
    values = {"weather": _label(WEATHER_LABELS, e.get("weather")), "total": e.get("total")}
    if e.get("force_id"):
        values["force"] = n.force(e["force_id"])
        return _("The weather for %(force)s is %(weather)s (total %(total)s).") % values
    return _("The weather over the whole map is %(weather)s (total %(total)s).") % values


@renders("SnowFell")
def _snow(e: EventData, n: Names) -> str:
    values = {"levels": e.get("levels"), "total": e.get("total_levels")}
    if e.get("mountains_only"):
        return (
            _("Snow fell on the mountains: %(levels)s new snow level(s), %(total)s in all.")
            % values
        )
    return _("Snow fell: %(levels)s new snow level(s), %(total)s in all.") % values


@renders("ForceTested")
def _force_tested(e: EventData, n: Names) -> str:
    values = {
        "force": n.force(e.get("force_id")),
        "requested": _label(STATUS_LABELS, e.get("requested")),
        "total": e.get("total"),
        "outcome": _label(FORCE_TEST_OUTCOMES | STATUS_LABELS, e.get("outcome")),
        "old": _label(STATUS_LABELS, e.get("old_status")),
        "new": _label(STATUS_LABELS, e.get("new_status")),
    }
    if e.get("new_status") is None:
        return (
            _(
                "%(force)s took a force test for the %(requested)s order: total %(total)s, "
                "%(outcome)s; the force is destroyed."
            )
            % values
        )
    return (
        _(
            "%(force)s took a force test for the %(requested)s order: total %(total)s, "
            "%(outcome)s; its status goes from %(old)s to %(new)s."
        )
        % values
    )


@renders("ForceDestroyed")
def _force_destroyed(e: EventData, n: Names) -> str:
    return _("%(force)s of %(player)s was removed from play (%(reason)s).") % {
        "force": n.force(e.get("force_id")),
        "player": n.player(e.get("owner")),
        "reason": e.get("reason") or "—",
    }


@renders("InitiativeDetermined")
def _initiative(e: EventData, n: Names) -> str:
    values = {
        "method": _("by force") if e.get("method") == "by-force" else _("by army"),
        "order": n.forces(e.get("order") or ()),
    }
    if n.everything:
        return _(
            "Initiative was decided %(method)s; the forces moved in this order: %(order)s."
        ) % (values)
    return (
        _(
            "Initiative was decided %(method)s; your side saw these forces move in this order: "
            "%(order)s."
        )
        % values
    )


@renders("MovementRolled")
def _movement_rolled(e: EventData, n: Names) -> str:
    values = {"force": n.force(e.get("force_id")), "allowance": e.get("allowance")}
    if e.get("total") is None:
        return _("%(force)s has a movement allowance of %(allowance)s square(s).") % values
    values["total"] = e["total"]
    return (
        _(
            "%(force)s rolled a movement total of %(total)s: it may move up to %(allowance)s "
            "square(s)."
        )
        % values
    )


@renders("ForceMoved")
def _force_moved(e: EventData, n: Names) -> str:
    path = e.get("path") or []
    values = {"force": n.force(e.get("force_id"))}
    if not path:
        return _("%(force)s moved out of sight.") % values
    values["to"] = _sq(path[-1])
    values["path"] = ", ".join(_sq(sq) for sq in path)
    reason = e.get("reason") or "movement"
    if reason != "movement":
        values["reason"] = reason
        return _("%(force)s moved to %(to)s (%(reason)s).") % values
    if len(path) == 1:
        return _("%(force)s moved to %(to)s.") % values
    return _("%(force)s moved to %(to)s, by way of %(path)s.") % values


@renders("ForceStopped")
def _force_stopped(e: EventData, n: Names) -> str:
    return _("%(force)s stopped at %(square)s: %(reason)s.") % {
        "force": n.force(e.get("force_id")),
        "square": _sq(e.get("square")),
        "reason": _label(STOP_REASONS, e.get("reason")),
    }


@renders("ForceHeldByStorm")
def _held_by_storm(e: EventData, n: Names) -> str:
    return _("%(force)s was held in place by the storm.") % {"force": n.force(e.get("force_id"))}


@renders("ForceCountermarched")
def _countermarched(e: EventData, n: Names) -> str:
    return _(
        "%(force)s countermarched from %(frm)s to %(to)s; its status goes from %(old)s to %(new)s."
    ) % {
        "force": n.force(e.get("force_id")),
        "frm": _sq(e.get("frm")),
        "to": _sq(e.get("to")),
        "old": _label(STATUS_LABELS, e.get("old_status")),
        "new": _label(STATUS_LABELS, e.get("new_status")),
    }


@renders("ContactMade")
def _contact(e: EventData, n: Names) -> str:
    return _("%(force)s made contact with %(enemies)s at %(square)s: %(battle)s.") % {
        "force": n.force(e.get("force_id")),
        "enemies": n.forces(e.get("enemy_ids") or ()),
        "square": _sq(e.get("square")),
        "battle": n.battle(e.get("battle_id")),
    }


@renders("ShatteredForceCollapsed")
def _collapsed(e: EventData, n: Names) -> str:
    return _(
        "%(force)s, shattered, collapsed when %(by)s reached it at %(square)s, and was removed "
        "from play."
    ) % {
        "force": n.force(e.get("force_id")),
        "by": n.force(e.get("by_force_id")),
        "square": _sq(e.get("square")),
    }


@renders("HoldingCaptured")
def _captured(e: EventData, n: Names) -> str:
    values = {
        "holding": n.holding(e.get("holding_id")),
        "by": n.player(e.get("by_player")),
        "from": n.player(e.get("from_player")),
    }
    if e.get("force_id"):
        values["force"] = n.force(e["force_id"])
        if e.get("capital"):
            return (
                _("%(force)s captured the capital %(holding)s: %(by)s takes it from %(from)s.")
                % values
            )
        return _("%(force)s captured %(holding)s: %(by)s takes it from %(from)s.") % values
    if e.get("capital"):
        return _("%(by)s captured the capital %(holding)s from %(from)s.") % values
    return _("%(by)s captured %(holding)s from %(from)s.") % values


@renders("HoldingSacked")
def _sacked(e: EventData, n: Names) -> str:
    return _("%(force)s sacked %(holding)s and carries it away as loot.") % {
        "force": n.force(e.get("force_id")),
        "holding": n.holding(e.get("holding_id")),
    }


@renders("OrdersMissing")
def _orders_missing(e: EventData, n: Names) -> str:
    return _("%(force)s had no orders: it kept its status and did not move.") % {
        "force": n.force(e.get("force_id"))
    }


@renders("BattleResolved")
def _battle_resolved(e: EventData, n: Names) -> str:
    bid = e.get("battle_id")
    sides = n.battle_sides.get(bid, {})
    results = ", ".join(
        _("%(side)s %(outcome)s")
        % {"side": sides.get(key, key), "outcome": _label(OUTCOME_LABELS, outcome)}
        for key, outcome in sorted((e.get("outcomes") or {}).items())
    )
    return _("%(battle)s at %(square)s was fought: %(results)s.") % {
        "battle": n.battle(bid),
        "square": _sq(e.get("square")),
        "results": results or "—",
    }


@renders("WoundedChecked")
def _wounded(e: EventData, n: Names) -> str:
    return _(
        "%(unit)s of %(force)s checked %(checked)s wounded figure(s): %(recovered)s recovered "
        "and %(dead)s died."
    ) % {
        "unit": n.member(e.get("unit_id")),
        "force": n.force(e.get("force_id")),
        "checked": e.get("checked"),
        "recovered": e.get("recovered"),
        "dead": e.get("dead"),
    }


@renders("DesertersChecked")
def _deserters(e: EventData, n: Names) -> str:
    values = {
        "unit": n.member(e.get("unit_id")),
        "force": n.force(e.get("force_id")),
        "checked": e.get("checked"),
        "returned": e.get("returned"),
        "deserted": e.get("deserted"),
    }
    if e.get("automatic"):
        return (
            _(
                "%(deserted)s mercenary figure(s) of %(unit)s of %(force)s deserted: their side "
                "lost the battle."
            )
            % values
        )
    return (
        _(
            "%(unit)s of %(force)s checked %(checked)s figure(s) for desertion: %(returned)s "
            "returned and %(deserted)s deserted."
        )
        % values
    )


@renders("IndividualLost")
def _individual_lost(e: EventData, n: Names) -> str:
    return _("%(individual)s of %(force)s was lost (%(fate)s).") % {
        "individual": n.member(e.get("individual_id")),
        "force": n.force(e.get("force_id")),
        "fate": e.get("fate") or "—",
    }


@renders("ReactionSuffered")
def _reaction(e: EventData, n: Names) -> str:
    return _("%(force)s suffered a reaction: its status goes from %(old)s to %(new)s.") % {
        "force": n.force(e.get("force_id")),
        "old": _label(STATUS_LABELS, e.get("old_status")),
        "new": _label(STATUS_LABELS, e.get("new_status")),
    }


@renders("LootLost")
def _loot_lost(e: EventData, n: Names) -> str:
    return _("%(force)s lost the loot of %(holding)s.") % {
        "force": n.force(e.get("force_id")),
        "holding": n.holding(e.get("holding_id")),
    }


@renders("LeaderPromoted")
def _promoted(e: EventData, n: Names) -> str:
    return _("%(general)s was promoted to lead %(force)s (%(source)s).") % {
        "general": n.member(e.get("general_id")),
        "force": n.force(e.get("force_id")),
        "source": e.get("source") or "—",
    }


@renders("WorksLost")
def _works_lost(e: EventData, n: Names) -> str:
    return _("%(force)s lost its field works.") % {"force": n.force(e.get("force_id"))}


@renders("WillToFightTested")
def _will_to_fight(e: EventData, n: Names) -> str:
    values = {
        "player": n.player(e.get("player_id")),
        "total": e.get("total"),
        "triggers": ", ".join(e.get("triggers") or ()) or "—",
    }
    if e.get("passed"):
        return (
            _(
                "%(player)s tested its will to fight and passed (total %(total)s; because of: "
                "%(triggers)s)."
            )
            % values
        )
    return (
        _(
            "%(player)s tested its will to fight and failed (total %(total)s; because of: "
            "%(triggers)s)."
        )
        % values
    )


@renders("PlayerSurrendered")
def _surrendered(e: EventData, n: Names) -> str:
    return _("%(player)s surrendered.") % {"player": n.player(e.get("player_id"))}


@renders("DayAdvanced")
def _day(e: EventData, n: Names) -> str:
    return _("The calendar moved on to day %(day)s.") % {"day": e.get("day")}


@renders("ReinforcementsAvailable")
def _reinforcements_available(e: EventData, n: Names) -> str:
    return _(
        "%(player)s received %(points)s reinforcement points; %(bank)s are now in the bank."
    ) % {"player": n.player(e.get("player_id")), "points": e.get("points"), "bank": e.get("bank")}


@renders("ReinforcementsArrived")
def _reinforcements_arrived(e: EventData, n: Names) -> str:
    values = {
        "player": n.player(e.get("player_id")),
        "force": n.force(e.get("force_id")),
        "points": e.get("points"),
    }
    if e.get("joined"):
        return _("Reinforcements of %(player)s worth %(points)s points joined %(force)s.") % values
    return (
        _("Reinforcements of %(player)s worth %(points)s points formed a new force, %(force)s.")
        % values
    )


@renders("RandomEvent")
def _random_event(e: EventData, n: Names) -> str:
    values = {
        "player": n.player(e.get("player_id")),
        "table": e.get("table"),
        "event": str(e.get("event", "")).replace("-", " "),
        "total": e.get("total"),
    }
    if e.get("detail"):
        values["detail"] = e["detail"]
        return (
            _(
                "Random event for %(player)s (%(table)s table, roll %(total)s): %(event)s — "
                "%(detail)s."
            )
            % values
        )
    return _("Random event for %(player)s (%(table)s table, roll %(total)s): %(event)s.") % values


@renders("CampaignEnded")
def _ended(e: EventData, n: Names) -> str:
    values = {"reason": str(e.get("reason") or "").replace("-", " ")}
    if e.get("winner"):
        values["winner"] = n.sides.get(e["winner"], n.player(e["winner"]))
        return _("The campaign has ended (%(reason)s): %(winner)s won.") % values
    return _("The campaign has ended (%(reason)s).") % values


@renders("OrderRefused")
def _order_refused(e: EventData, n: Names) -> str:
    return _("An order of %(force)s was refused: %(reason)s.") % {
        "force": n.force(e.get("force_id")),
        "reason": e.get("reason") or "—",
    }


@renders("RegroupPooled")
def _regroup(e: EventData, n: Names) -> str:
    return _(
        "%(force)s pooled %(points)s points of recovered %(speciality)s figures (%(pool)s in "
        "the pool)."
    ) % {
        "force": n.force(e.get("force_id")),
        "points": e.get("points"),
        "speciality": str(e.get("speciality", "")).replace("-", " "),
        "pool": e.get("pool"),
    }


@renders("ArtefactsCaptured")
def _artefacts(e: EventData, n: Names) -> str:
    return _("%(by)s captured the artefacts (%(feature)s) of %(holding)s from %(from)s.") % {
        "by": n.player(e.get("by_player")),
        "feature": e.get("feature") or "—",
        "holding": n.holding(e.get("holding_id")),
        "from": n.player(e.get("from_player")),
    }


@renders("ReinforcementsRefused")
def _reinforcements_refused(e: EventData, n: Names) -> str:
    values = {"player": n.player(e.get("player_id")), "reason": e.get("reason") or "—"}
    if e.get("request") is None:
        return _("The reinforcements of %(player)s could not be delivered: %(reason)s.") % values
    values["request"] = int(e["request"]) + 1
    return (
        _("Reinforcement request %(request)s of %(player)s could not be carried out: %(reason)s.")
        % values
    )


@renders("BankChanged")
def _bank(e: EventData, n: Names) -> str:
    return _(
        "The reinforcement bank of %(player)s changed by %(change)s to %(bank)s points "
        "(%(reason)s)."
    ) % {
        "player": n.player(e.get("player_id")),
        "change": _signed(int(e.get("change") or 0)),
        "bank": e.get("bank"),
        "reason": e.get("reason") or "—",
    }


@renders("IndividualJoined")
def _individual_joined(e: EventData, n: Names) -> str:
    return _("%(individual)s (%(kind)s) joined %(force)s.") % {
        "individual": n.member(e.get("individual_id")),
        "kind": str(e.get("kind", "")).replace("-", " "),
        "force": n.force(e.get("force_id")),
    }


@renders("LeaderCvChanged")
def _cv_changed(e: EventData, n: Names) -> str:
    return _("The command value of %(general)s, of %(force)s, changed from %(old)s to %(new)s.") % {
        "general": n.member(e.get("general_id")),
        "force": n.force(e.get("force_id")),
        "old": e.get("old_cv"),
        "new": e.get("new_cv"),
    }


@renders("TokensGained")
def _tokens_gained(e: EventData, n: Names) -> str:
    return _("%(force)s gained %(count)s %(kind)s token(s).") % {
        "force": n.force(e.get("force_id")),
        "count": e.get("count"),
        "kind": str(e.get("kind", "")).replace("-", " "),
    }


@renders("ForcePointsLost")
def _points_lost(e: EventData, n: Names) -> str:
    return _("%(force)s lost %(points)s points (%(figures)s figures): %(reason)s.") % {
        "force": n.force(e.get("force_id")),
        "points": e.get("points"),
        "figures": e.get("figures"),
        "reason": e.get("reason") or "—",
    }


@renders("CaptureBlocked")
def _capture_blocked(e: EventData, n: Names) -> str:
    return _("%(force)s could not capture %(holding)s: %(reason)s.") % {
        "force": n.force(e.get("force_id")),
        "holding": n.holding(e.get("holding_id")),
        "reason": e.get("reason") or "—",
    }


@renders("AttritionSuffered")
def _attrition(e: EventData, n: Names) -> str:
    return _(
        "%(unit)s of %(force)s suffered attrition: %(lost)s figure(s) lost, %(recovered)s "
        "recovered and %(deserted)s deserted."
    ) % {
        "unit": n.member(e.get("unit_id")),
        "force": n.force(e.get("force_id")),
        "lost": e.get("lost"),
        "recovered": e.get("recovered"),
        "deserted": e.get("deserted"),
    }


def _generic(e: EventData, n: Names) -> str:
    details = "; ".join(
        f"{k.replace('_', ' ')}: {v}"
        for k, v in e.items()
        if k not in ("type", "rule") and v not in (None, "", [], {})
    )
    return _("Event %(type)s (%(details)s).") % {
        "type": e.get("type", "?"),
        "details": details or "—",
    }


def event_sentence(e: Mapping[str, Any], names: Names) -> str:
    """One readable sentence for a (scrubbed) event."""
    return RENDERERS.get(str(e.get("type")), _generic)(e, names)


# --- the report of a turn --------------------------------------------------------------------


@dataclass(frozen=True)
class EventLine:
    index: int  # 1-based, as the replay check counts
    type: str
    text: str
    rule: str


@dataclass(frozen=True)
class RollLine:
    stage: str
    stage_label: str
    number: int  # as shown: the viewer's own count, so that gaps do not betray hidden rolls
    seq: int  # as stored (the replay check names it)
    phase: str
    phase_label: str
    purpose: str
    subject: str
    rule: str
    dice: str
    natural: list[int]
    modifiers: list[tuple[str, str]]  # (reason, signed value)
    total: int | None
    outcome: str
    details: list[str]


@dataclass(frozen=True)
class StageReport:
    stage: str
    label: str
    events: list[EventLine]
    rolls: list[RollLine]


@dataclass(frozen=True)
class TurnReport:
    turn: Turn
    stages: list[StageReport]
    everything: bool

    @property
    def rolls(self) -> list[RollLine]:
        return [r for s in self.stages for r in s.rolls]

    @property
    def phases(self) -> list[tuple[str, str]]:
        seen: dict[str, str] = {}
        for r in self.rolls:
            seen.setdefault(r.phase, r.phase_label)
        return list(seen.items())

    def rolls_in(self, phase: str | None) -> list[RollLine]:
        return [r for r in self.rolls if not phase or r.phase == phase]


@dataclass(frozen=True)
class _StageView:
    resolution: TurnResolution
    before: CampaignState
    after: CampaignState


def _stage_views(campaign: Campaign, *, number: int | None = None) -> list[_StageView]:
    """Stored resolutions (of one turn, or all) with the state each started from and the state
    it left: the next resolution's `state_before`, or the current state for the latest."""
    qs = TurnResolution.objects.filter(turn__campaign=campaign).select_related("turn")
    if number is not None:
        qs = qs.filter(turn__number__in=[number, number + 1])
    rs = sorted(qs, key=lambda r: (r.turn.number, STAGE_ORDER.get(r.stage, 9)))
    befores = [from_data(CampaignState, r.state_before, "state_before") for r in rs]
    current: CampaignState | None = None
    out = []
    for i, r in enumerate(rs):
        if number is not None and r.turn.number != number:
            continue
        if i + 1 < len(rs):
            after = befores[i + 1]
        else:
            current = current or services.campaign_state(campaign=campaign)
            after = current
        out.append(_StageView(r, befores[i], after))
    return out


def _battle_sides(campaign: Campaign) -> dict[str, tuple[str, ...]]:
    """Battle id → the alliances that fought it, as its pack's sides "a" and "b"."""
    return {
        key: tuple(s.get("side") for s in (pack or {}).get("sides", []))
        for key, pack in Battle.objects.filter(campaign=campaign).values_list("key", "pack")
    }


def turn_report_get(*, turn: Turn, viewer: Viewer) -> TurnReport:
    """The narrative and ledger of a turn as `viewer` may see them (see the module text)."""
    campaign = turn.campaign
    battle_sides = _battle_sides(campaign)
    side_names = dict(Side.objects.filter(campaign=campaign).values_list("key", "name"))
    by_battle = {
        bid: {label: side_names.get(key, key) for label, key in zip("ab", sides, strict=False)}
        for bid, sides in battle_sides.items()
    }
    stages = []
    for view in _stage_views(campaign, number=turn.number):
        r = view.resolution
        states = (view.before, view.after)
        lens = lens_for(viewer=viewer, states=states, battle_sides=battle_sides, events=r.events)
        names = Names(states, sides=side_names, battle_sides=by_battle, everything=lens.everything)
        stages.append(_stage_report(r, lens, names))
    return TurnReport(turn, stages, viewer.sees_everything)


def _stage_report(r: TurnResolution, lens: Lens, names: Names) -> StageReport:
    label = str(TurnResolution.Stage(r.stage).label)
    events = [
        EventLine(
            i, str(e.get("type")), event_sentence(event_scrub(lens, e), names), e.get("rule", "")
        )
        for i, e in enumerate(r.events, start=1)
        if event_visible(lens, e)
    ]
    rolls = []
    for entry in _ledger_for(lens, r.ledger):
        purpose = str(entry.get("purpose", ""))
        phase = roll_phase(purpose)
        natural = list(entry.get("natural") or [])
        rolls.append(
            RollLine(
                stage=r.stage,
                stage_label=label,
                number=int(entry.get("seq", 0)),
                seq=int(entry.get("stored_seq", entry.get("seq", 0))),
                phase=phase,
                phase_label=_label(PHASE_LABELS, phase),
                purpose=purpose,
                subject=names.subject(lens, purpose),
                rule=str(entry.get("rule", "")),
                dice=f"{len(natural)}D{entry.get('sides', 6)}",
                natural=natural,
                modifiers=[
                    (str(m.get("reason", "")), _signed(int(m.get("value", 0))))
                    for m in entry.get("modifiers", [])
                ],
                total=entry.get("total"),
                outcome=str(entry.get("outcome", "")),
                details=[str(d) for d in entry.get("details", [])],
            )
        )
    return StageReport(r.stage, label, events, rolls)


# --- the replay check, as a viewer may read it -----------------------------------------------

_LEDGER_LINE = re.compile(r"^(?P<stage>.+?): ledger #(?P<seq>\d+) \((?P<purpose>[^)]*)\)")
_EVENT_LINE = re.compile(r"^(?P<stage>.+?): event #(?P<index>\d+) \((?P<kind>[^)]*)\)")


@dataclass(frozen=True)
class ReplayCheck:
    ok: bool
    stages: list[str]
    lines: list[str]
    hidden: int  # differences in rolls or events the viewer cannot see


def turn_replay_for_viewer(*, turn: Turn, viewer: Viewer) -> ReplayCheck:
    """Replay the turn (`campaign.exchange.turn_replay`). The GM (and everyone without fog)
    reads every difference as the replay states it; a player reads, for each roll or event he
    can see, that it does not match, and only a count of the others: the raw lines quote
    stored and replayed values, which may belong to hidden forces."""
    report = turn_replay(turn=turn)
    if viewer.sees_everything:
        return ReplayCheck(report.ok, report.stages, list(report.differences), 0)
    shown = turn_report_get(turn=turn, viewer=viewer)
    rolls = {(s.label, r.seq): r for s in shown.stages for r in s.rolls}
    events = {(s.label, ev.index): ev for s in shown.stages for ev in s.events}
    lines: list[str] = []
    hidden = 0
    for diff in report.differences:
        m = _LEDGER_LINE.match(diff)
        if m and (m["stage"], int(m["seq"])) in rolls:
            roll = rolls[(m["stage"], int(m["seq"]))]
            lines.append(
                _("%(stage)s: roll %(number)s (%(purpose)s) does not match the replay.")
                % {"stage": m["stage"], "number": roll.number, "purpose": roll.purpose}
            )
            continue
        m = _EVENT_LINE.match(diff)
        if m and (m["stage"], int(m["index"])) in events:
            ev = events[(m["stage"], int(m["index"]))]
            lines.append(
                _("%(stage)s: event %(index)s (“%(text)s”) does not match the replay.")
                % {"stage": m["stage"], "index": ev.index, "text": ev.text}
            )
            continue
        if diff.startswith("seed hash:") or ": seed:" in diff:
            lines.append(diff)  # seeds are public once the turn is resolved
            continue
        hidden += 1
    return ReplayCheck(report.ok, report.stages, lines, hidden)


# --- the GM inbox ----------------------------------------------------------------------------


@dataclass(frozen=True)
class InboxItem:
    kind: str  # orders-missing, orders-unconfirmed, battle-pending, retreat-default, reinforcements
    text: str
    battle: Battle | None = None  # the battle where it is settled; None: the overview page


@dataclass(frozen=True)
class Inbox:
    turn: Turn | None
    status: str  # a sentence on where the turn stands
    items: list[InboxItem]


def inbox_get(*, campaign: Campaign) -> Inbox:
    """Everything that holds up the current turn, for the GM: orders missing or not confirmed,
    battles without a result, and choices left to defaults (retreat squares, banked
    reinforcement points without a standing request)."""
    if campaign.ended:
        return Inbox(None, _("The campaign has ended: nothing is waiting."), [])
    turn = campaign.turns.order_by("-number").first()
    if turn is None:
        return Inbox(None, _("The campaign has no turn yet."), [])
    items: list[InboxItem] = []
    players = list(campaign.players.filter(surrendered=False).order_by("position", "key"))
    if turn.status == Turn.Status.OPEN:
        status = _("Turn %(number)s is open for orders.") % {"number": turn.number}
        orders = {o.player_id: o for o in Orders.objects.filter(turn=turn)}
        for p in players:
            o = orders.get(p.pk)
            if o is None:
                items.append(
                    InboxItem(
                        "orders-missing",
                        _("%(player)s has not sent orders for turn %(number)s.")
                        % {"player": p.name, "number": turn.number},
                    )
                )
            elif o.status != Orders.Status.CONFIRMED:
                items.append(
                    InboxItem(
                        "orders-unconfirmed",
                        _("%(player)s has saved orders for turn %(number)s but not confirmed them.")
                        % {"player": p.name, "number": turn.number},
                    )
                )
        requests = {
            p.key: bool((orders[p.pk].data or {}).get("reinforcements"))
            if p.pk in orders
            else False
            for p in players
        }
        items += _reinforcement_items(players, requests)
    elif turn.status == Turn.Status.BATTLES:
        state = services.campaign_state(campaign=campaign)
        pending = list(
            turn.battles.filter(status=Battle.Status.PENDING)
            .select_related("campaign")
            .order_by("contact_order")
        )
        if pending:
            status = _("Turn %(number)s waits for battle results.") % {"number": turn.number}
        else:
            status = _(
                "Every battle of turn %(number)s has a result: Phases 4–8 can be resolved."
            ) % {"number": turn.number}
        for b in pending:
            items.append(
                InboxItem(
                    "battle-pending",
                    _("Battle %(battle)s at (%(x)s, %(y)s) has no result yet.")
                    % {"battle": b.key, "x": b.x, "y": b.y},
                    b,
                )
            )
        items += _retreat_items(state, pending)
        requests = {
            p.key: bool(state.orders.get(p.key) and state.orders[p.key].reinforcements)
            for p in players
        }
        items += _reinforcement_items(players, requests)
    elif turn.status == Turn.Status.RESOLVED:
        status = _("Turn %(number)s is resolved.") % {"number": turn.number}
    else:
        status = _("Turn %(number)s is being resolved (%(status)s).") % {
            "number": turn.number,
            "status": turn.get_status_display().lower(),
        }
    return Inbox(turn, status, items)


def _retreat_items(state: CampaignState, pending: Sequence[Battle]) -> list[InboxItem]:
    """Forces in a pending battle whose standing orders name no retreat square (§8.4)."""
    names = {f.id: f.name or f.id for f in state.forces}
    owners = {f.id: f.owner for f in state.forces}
    player_names = {p.id: p.name or p.id for p in state.players}
    items = []
    for b in pending:
        for side in (b.pack or {}).get("sides", []):
            for bf in side.get("forces", []):
                fid = bf.get("force_id")
                owner = bf.get("owner") or owners.get(fid)
                po = state.orders.get(owner)
                fo = po.for_force(fid) if po is not None else None
                if fo is not None and fo.retreat_squares:
                    continue
                items.append(
                    InboxItem(
                        "retreat-default",
                        _(
                            "%(force)s (%(player)s) has no retreat square in its orders for "
                            "battle %(battle)s: the default retreat will apply (R8.4)."
                        )
                        % {
                            "force": names.get(fid, fid),
                            "player": player_names.get(owner, owner),
                            "battle": b.key,
                        },
                        b,
                    )
                )
    return items


def _reinforcement_items(players: Sequence[Any], requests: Mapping[str, bool]) -> list[InboxItem]:
    return [
        InboxItem(
            "reinforcements",
            _(
                "%(player)s has %(points)s reinforcement points banked and no standing "
                "reinforcement request: the points will stay in the bank."
            )
            % {"player": p.name, "points": p.bank},
        )
        for p in players
        if p.bank > 0 and not requests.get(p.key)
    ]


# --- the export a viewer may download --------------------------------------------------------

VIEW_FORMAT = "fwcampaign-view"
HIDDEN_LOOT = "hidden"  # `carried_by` of a holding carried off by a force the side cannot see


def campaign_export_for_viewer(*, campaign: Campaign, viewer: Viewer) -> dict[str, Any]:
    """The GM gets the whole export (`campaign.exchange.campaign_export`). Anyone else gets a
    view of it (format `fwcampaign-view`, not importable): the states with only the forces his
    side may see (and the ghosts of the others), his own orders only, the resolutions' ledger
    and events filtered as in the report, the battles his side fought, no carried turn data,
    and no seed of a turn that is not resolved."""
    full = campaign_export(campaign=campaign)
    if viewer.is_gm:
        return full
    side = viewer.side_key
    own_key = viewer.player.key if viewer.is_player and viewer.player is not None else None
    battle_sides = _battle_sides(campaign)
    current = from_data(CampaignState, full["state"], "state")
    current_view = map_view_for(viewer=viewer, state=current)
    state = _state_filtered(
        current,
        seen={f.id for f in current_view.forces},
        side=side,
        own_key=own_key,
        battle_sides=battle_sides,
        everything=viewer.sees_everything,
    )
    views = {(v.resolution.turn.number, v.resolution.stage): v for v in _stage_views(campaign)}
    turns = []
    for t in full["turns"]:
        resolved = t["status"] == Turn.Status.RESOLVED
        resolutions = []
        for r in t["resolutions"]:
            view = views.get((t["number"], r["stage"]))
            if view is None:
                continue
            resolutions.append(
                _resolution_filtered(r, view, viewer, own_key, battle_sides, resolved)
            )
        turns.append(
            {
                "number": t["number"],
                "status": t["status"],
                "deadline": t["deadline"],
                "timezone": t["timezone"],
                "extensions": t["extensions"],
                "paused": t["paused"],
                "seed": t["seed"] if resolved else None,
                "seed_hash": t["seed_hash"],
                "orders": {k: v for k, v in t["orders"].items() if k == own_key},
                "resolutions": resolutions,
            }
        )
    seen_battles = (
        set(battle_sides)
        if viewer.sees_everything
        else {b for b, sides in battle_sides.items() if side is not None and side in sides}
    )
    return {
        "format": VIEW_FORMAT,
        "version": full["version"],
        "viewer": {
            "role": viewer.role,
            "player": own_key,
            "side": side,
            "everything": viewer.sees_everything,
        },
        "campaign": full["campaign"],
        "sides": full["sides"],
        "colours": full["colours"],
        "state": to_data(state),
        "ghosts": [
            {
                "force_key": g.force_key,
                "square": list(g.square),
                "turn_number": g.turn_number,
                "status": g.status,
                "figures": g.figures,
            }
            for g in current_view.ghosts
        ],
        "turns": turns,
        "battles": [b for b in full["battles"] if b["key"] in seen_battles],
    }


def _state_filtered(
    state: CampaignState,
    *,
    seen: set[str],
    side: str | None,
    own_key: str | None,
    battle_sides: Mapping[str, Sequence[str]],
    everything: bool = False,
) -> CampaignState:
    """A state holding only what the side may know: the `seen` forces, its own players' bank,
    orders (of `own_key` only) and Will-to-Fight triggers, its battles."""
    own_players = {p.id for p in state.players if side is not None and p.side == side}
    return replace(
        state,
        forces=tuple(f for f in state.forces if f.id in seen),
        holdings=tuple(
            h
            if h.carried_by is None or h.carried_by in seen
            else replace(h, carried_by=HIDDEN_LOOT)
            for h in state.holdings
        ),
        force_weather={k: v for k, v in state.force_weather.items() if k in seen},
        bank={k: v for k, v in state.bank.items() if k in own_players},
        orders={k: v for k, v in state.orders.items() if k == own_key},
        pending_battles=tuple(
            b
            for b in state.pending_battles
            if everything or (side is not None and side in battle_sides.get(b.battle_id, ()))
        ),
        moves={k: v for k, v in state.moves.items() if k in seen},
        wtf_triggers={k: v for k, v in state.wtf_triggers.items() if k in own_players},
    )


def _resolution_filtered(
    r: Mapping[str, Any],
    view: _StageView,
    viewer: Viewer,
    own_key: str | None,
    battle_sides: Mapping[str, Sequence[str]],
    resolved: bool,
) -> dict[str, Any]:
    resolution = view.resolution
    states = (view.before, view.after)
    lens = lens_for(viewer=viewer, states=states, battle_sides=battle_sides, events=r["events"])
    # the state a stage started from shows what the side saw at that moment, not later
    at_start = lens_for(
        viewer=viewer,
        states=(view.before,),
        battle_sides=battle_sides,
        events=(),
    )
    before = _state_filtered(
        view.before,
        seen=set(at_start.seen_forces),
        side=viewer.side_key,
        own_key=own_key,
        battle_sides=battle_sides,
        everything=lens.everything,
    )
    if resolution.stage == TurnResolution.Stage.TURN:
        inputs = {k: v for k, v in r["inputs"].items() if k == own_key}
    else:
        inputs = {k: v for k, v in r["inputs"].items() if k in lens.seen_battles or lens.everything}
    return {
        "stage": r["stage"],
        "seed": r["seed"] if resolved else None,
        "state_before": to_data(before),
        "inputs": inputs,
        "ledger": [
            {k: v for k, v in x.items() if k != "stored_seq"}
            for x in _ledger_for(lens, r["ledger"])
        ],
        "events": [event_scrub(lens, e) for e in r["events"] if event_visible(lens, e)],
    }
