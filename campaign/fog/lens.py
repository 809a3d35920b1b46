"""Fog of war over a stored resolution: the `Lens` of one viewer for one stage, and what it
shows of the stage's events and rolls. The rules are in `campaign.fog`."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from django.utils.translation import gettext as _

from campaign.access import Viewer
from campaign.fog.sight import visible_force_keys, watched_squares
from campaign.state_rows import derived
from rules import CampaignState, Coord

# --- the lens: what one viewer sees of one stage of a turn ---------------------------------


# a roll whose purpose starts so is map-wide even if it names a scenario role
PUBLIC_PURPOSES = ("weather:map", "events:snow-day-")
PUBLIC_EVENTS = frozenset(
    {"SnowFell", "DayAdvanced", "CampaignEnded", "PlayerSurrendered", "ArmyInitiativeChosen"}
)
# what a force does in its own camp: shown to its own side only (see the module text)
PRIVATE_EVENTS = frozenset(
    {
        "ForceTested",
        "MovementRolled",
        "LeaderCvChanged",
        "LeaderPromoted",
        "TokensGained",
        "RegroupPooled",
        "RegroupSpent",
        "ShipsReceived",
        "CraftReceived",
        "OrderRefused",
        "ReinforcementsArrived",  # what his capital received (§9.3) is his side's business
        "MagicPointsGained",  # a Wizard's points, like his force's tokens
    }
)
# R6.1.3: a force's initiative roll; R6.1.5: the re-rolls of a tie between players
INITIATIVE_PURPOSE = "movement:initiative-"
INITIATIVE_RULE, INITIATIVE_TIE_RULE = "R6.1.3", "R6.1.5"
FORCE_FIELDS = ("force_id", "by_force_id")
FORCE_LIST_FIELDS = ("enemy_ids", "order")
MEMBER_FIELDS = ("unit_id", "individual_id", "general_id")
PLAYER_FIELDS = ("player_id", "by_player", "from_player", "owner")
SQUARE_FIELDS = ("square", "frm", "to")


_WORD = re.compile(r"[A-Za-z0-9_]+(?:-[A-Za-z0-9_]+)*")


@functools.lru_cache(maxsize=32768)
def id_tokens(text: str) -> frozenset[str]:
    """Every dash-joined run of words in `text`: ids such as "t1-b1" or "f3u2" inside a
    purpose like "after:t1-b1:deserters-f3u2-exits" or a free-text detail. A turn's purposes
    and details are read again by every report and lens: each is split once per process."""
    out: set[str] = set()
    for word in _WORD.findall(text):
        parts = word.split("-")
        for i in range(len(parts)):
            for j in range(i + 1, len(parts) + 1):
                out.add("-".join(parts[i:j]))
    return frozenset(out)


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
        return self._concerns(token, self.seen_forces)

    def mine(self, token: Any) -> bool:
        """Something of the viewer's side's own: its forces (and their units…), its players,
        the battles it fought, the holdings it owns or watches."""
        return self._concerns(token, self.own_forces)

    def _concerns(self, token: Any, forces: frozenset[str]) -> bool:
        """`token` is one of `forces` (or of their units…), or the side's player, battle or
        holding."""
        if self.everything:
            return True
        if not isinstance(token, str):
            return False
        fid = self.force_of(token)
        if fid is not None:
            return fid in forces
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
        return self.everything or not any(self.secret(t) for t in id_tokens(text))


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
    forces, member_force = _stage_ids(states, events)
    players = frozenset(p.id for s in states for p in s.players)
    holdings = frozenset(h.id for s in states for h in s.holdings)
    common = Lens(
        everything=False,
        forces=frozenset(forces),
        member_force=member_force,
        players=players,
        battles=frozenset(battle_sides),
        holdings=holdings,
    )
    if viewer.sees_everything:
        return replace(common, everything=True, seen_forces=frozenset(forces))
    side = viewer.side_key
    if side is None:  # an observer following no side sees only what is map-wide
        return common
    own, own_players, seen_holdings, watched, seen = _side_view(states, side)
    return replace(
        common,
        seen_forces=own | (seen & forces),
        own_forces=own,
        own_players=own_players,
        seen_battles=frozenset(b for b, sides in battle_sides.items() if side in sides),
        seen_holdings=seen_holdings,
        watched=watched,
    )


def _side_view(states: Sequence[CampaignState], side: str) -> tuple[frozenset[Any], ...]:
    """A side's own forces and players, the holdings and squares it sees and the forces it
    sees in `states`, once for the same decoded rows."""

    def compute() -> tuple[frozenset[Any], ...]:
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
        return tuple(frozenset(x) for x in (own, own_players, seen_holdings, watched, seen))

    parts = tuple(x for s in states for x in (s.forces, s.holdings, s.players, s.map))
    return derived(("side-view", side), parts, compute)


def _stage_ids(
    states: Sequence[CampaignState], events: Iterable[Mapping[str, Any]]
) -> tuple[frozenset[str], Mapping[str, str]]:
    """Every force id a stage knows (in its states or named by its events), and each unit,
    general, command or character id → its force. What the states know is worked out once
    for the same decoded rows (a 960-force state has ten thousand members)."""
    forces, member_force = derived(
        "stage-ids", tuple(s.forces for s in states), lambda: _states_ids(states)
    )
    named: set[str] = set()
    for e in events:
        for k in FORCE_FIELDS:
            if isinstance(e.get(k), str):
                named.add(e[k])
        for k in FORCE_LIST_FIELDS:
            named.update(x for x in e.get(k) or () if isinstance(x, str))
    named -= forces
    if not named:
        return forces, member_force
    # a force id wins over a member id that reads the same
    return forces | named, {k: v for k, v in member_force.items() if k not in named}


def _states_ids(states: Sequence[CampaignState]) -> tuple[frozenset[str], dict[str, str]]:
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
    for k in list(member_force):  # a force id wins over a member id that reads the same
        if k in forces:
            del member_force[k]
    return frozenset(forces), member_force


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
    if kind in PRIVATE_EVENTS:
        return any(lens.mine(x) for x in _event_subjects(e))
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


def roll_visible(
    lens: Lens, entry: Mapping[str, Any], tied_with: Mapping[str, frozenset[str]] | None = None
) -> bool:
    """Whether the lens shows this roll (see the module text). `tied_with`: force → the forces
    whose initiative roll had the same total (`initiative_ties`)."""
    if lens.everything:
        return True
    purpose = str(entry.get("purpose", ""))
    if purpose.startswith(PUBLIC_PURPOSES):
        return True
    tokens = id_tokens(purpose)
    if any(lens.secret(t) for t in tokens):
        return False
    ids = [t for t in tokens if lens.known(t)]
    if not ids:
        return True
    if entry.get("rule") == INITIATIVE_TIE_RULE and purpose.startswith(INITIATIVE_PURPOSE):
        force = purpose.removeprefix(INITIATIVE_PURPOSE)
        tied = (tied_with or {}).get(force, frozenset({force}))
        return all(lens.mine(f) for f in tied)
    return any(lens.mine(t) for t in ids)


def initiative_ties(ledger: Iterable[Mapping[str, Any]]) -> dict[str, frozenset[str]]:
    """Force → every force whose initiative roll (R6.1.3) had its total: the forces a tie
    re-roll (R6.1.5) of that force may have been against."""
    totals: dict[str, Any] = {}
    for x in ledger:
        purpose = str(x.get("purpose", ""))
        if x.get("rule") == INITIATIVE_RULE and purpose.startswith(INITIATIVE_PURPOSE):
            totals[purpose.removeprefix(INITIATIVE_PURPOSE)] = x.get("total")
    by_total: dict[Any, set[str]] = {}
    for force, total in totals.items():
        by_total.setdefault(total, set()).add(force)
    return {force: frozenset(by_total[total]) for force, total in totals.items()}


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


def ledger_for(lens: Lens, ledger: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The rolls a lens shows, scrubbed. Under fog they are numbered again from 1 (the stored
    number is kept as `stored_seq`): the gaps would count the enemy's hidden forces."""
    ledger = list(ledger)
    ties = initiative_ties(ledger) if not lens.everything else {}
    shown = [roll_scrub(lens, x) for x in ledger if roll_visible(lens, x, ties)]
    if not lens.everything:
        for number, entry in enumerate(shown, start=1):
            entry["stored_seq"], entry["seq"] = entry.get("seq"), number
    return shown
