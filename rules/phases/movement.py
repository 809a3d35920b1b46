"""Phase 2 — force movement (§6, except naval §6.11).

Initiative (§6.1), then each force in initiative order: sack declaration (§11.6), movement
roll (§6.2), step-by-step movement with zones of control and contact (§6.4, §6.6, §6.7),
countermarch or flank attack (§6.5, §7.10.4), capture of holdings (§6.8). At the end every
contact square becomes a pending battle with its pack (§7.4–7.10), numbered in contact order.

The phase works on a private board (forces by id, current squares, a square → forces index
and per-side zone-of-control counts, all updated incrementally) and builds the new state
once at the end. `self.state` is kept current only for holdings, Will-to-Fight triggers and
force membership (removals go through `remove_force`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from rules.battle import PendingBattle
from rules.checks import countermarch, roll_movement
from rules.dice import Dice, Modifier, Outcomes
from rules.events import (
    ArmyInitiativeChosen,
    CaptureBlocked,
    ContactMade,
    Event,
    ForceCountermarched,
    ForceHeldByStorm,
    ForceMoved,
    ForceStopped,
    HoldingCaptured,
    HoldingSacked,
    InitiativeDetermined,
    MovementRolled,
    OrderRefused,
    OrdersMissing,
    ShatteredForceCollapsed,
    WorksLost,
)
from rules.orders import (
    CountermarchWhen,
    ForceOrders,
    PlayerOrders,
    ZocPolicy,
    may_sack,
)
from rules.phases.battle_pack import build_pack
from rules.phases.common import remove_force
from rules.phases.weather import movement_weather
from rules.setup.naval import Waters, naval_movement
from rules.types import CampaignState, Coord, Feature, Force, Status, Territory, Weather, evolve
from rules.waterways import (
    WATERS,
    carried_on_river,
    floats,
    flow,
    has_mounts,
    is_water,
    sails,
    voyage_error,
    water_ok,
)


@dataclass
class _Battle:
    """A contact square being filled during the phase (R6.7.5, R6.7.7)."""

    battle_id: str
    order: int
    square: Coord
    side_a: str  # side of the force that made the contact
    scenario: str | None = None  # declared in movement: flank-attack / ambush (§7.10)
    arrivals: list[str] = field(default_factory=list)  # force ids in order of joining


def resolve(state: CampaignState, dice: Dice) -> tuple[CampaignState, list[Event]]:
    """Run Phase 2 and store the turn's pending battles in the state."""
    return _Board(state, dice).run()


# The outcomes' texts, made once: a turn rolls the initiative once a force and re-rolls its
# ties, most of its dice (`Dice.roll_texts`).
_INITIATIVE_TEXT = Outcomes(lambda t: ("initiative", {"n": t}))
_TIE_TEXT = Outcomes(lambda t: ("tie-reroll", {"n": t}))


_NO_FEATURES: frozenset[Feature] = frozenset()
# R6.1.3's modifier, made once (a CV of 0 is not recorded, as `Dice.roll` leaves it out)
_LEADER_CV = {cv: (Modifier("leader-cv", cv),) if cv else () for cv in range(-2, 13)}


def _cheb(a: Coord, b: Coord) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


class _Board:
    """The working copy of one movement phase (see the module docstring)."""

    # Slots: its attributes are read at every step, and past 30 of them an instance's
    # attributes leave Python's fast per-class layout for a dictionary.
    __slots__ = (
        "_foes_of",
        "_nb",
        "_own_keys",
        "_prio",
        "_purposes",
        "_terr",
        "active",
        "battles",
        "counter",
        "dice",
        "done",
        "engaged",
        "entered_from",
        "events",
        "features_at",
        "foes",
        "forces",
        "fside",
        "gmap",
        "height",
        "hold_at",
        "index",
        "naval",
        "no_cross",
        "occ",
        "opts",
        "player_side",
        "pos",
        "snowy",
        "special",
        "state",
        "trails",
        "width",
    )

    def __init__(self, state: CampaignState, dice: Dice) -> None:
        self.state = state
        self.dice = dice
        self.events: list[Event] = []
        self.gmap = state.map
        self.opts = state.options
        self.special = state.options.special_scenarios
        self.player_side = {p.id: p.side for p in state.players}
        self.active = {p.id for p in state.players if not p.surrendered}
        self.forces: dict[str, Force] = {f.id: f for f in state.forces}
        self.index = {f.id: i for i, f in enumerate(state.forces)}
        self.pos: dict[str, Coord] = {f.id: f.square for f in state.forces}
        self.fside: dict[str, str] = {f.id: self.player_side[f.owner] for f in state.forces}
        self.occ: dict[Coord, list[str]] = {}
        self._nb: dict[Coord, list[Coord]] = {}
        # Per side, the hostile forces standing on each square (flat index x + y·W): R6.6's
        # "in an enemy zone" is read off the 8 squares around (`enemy_zoc`), so a placement
        # or a step updates a count or two, not sixteen.
        self.width, self.height = w, h = state.map.width, state.map.height
        sides = sorted(set(self.fside.values()))
        self.foes: dict[str, list[int]] = {s: [0] * (w * h) for s in sides}
        # side → the other sides' counts, which a force of that side adds to
        self._foes_of = {s: [self.foes[t] for t in sides if t != s] for s in sides}
        fside, foes_of, occ = self.fside, self._foes_of, self.occ
        for f in state.forces:
            sq = f.square
            occ.setdefault(sq, []).append(f.id)
            i = sq[0] + sq[1] * w
            for counts in foes_of[fside[f.id]]:
                counts[i] += 1
        self.hold_at: dict[Coord, str] = {}
        for holding in reversed(state.holdings):  # first listed wins, as holding_at
            if not holding.destroyed and holding.carried_by is None:
                self.hold_at[holding.square] = holding.id
        self.done: set[str] = set()  # forces whose turn is over (moved or contacted)
        self.engaged: set[str] = set()  # in contact: movement ended for this turn (R6.7.2)
        self.counter: dict[str, int] = {}  # initiative position (R6.1.5)
        self.battles: dict[Coord, _Battle] = {}
        self.entered_from: dict[str, Coord] = {}
        self.trails: dict[str, list[Coord]] = {}  # squares entered this turn (§6.10)
        self._terr: dict[tuple[str, str | None], Territory] = {}
        # A square's features, asked at every step (water, rivers): read square by square,
        # not gathered over the whole map, which costs more than a turn's steps.
        self.features_at = self.gmap.features.get
        self.no_cross = self.opts.rivers_only_at_crossings  # R2.1.3, see `_step_ok`
        self._own_keys: dict[str, tuple[int, int]] = {}
        self._purposes: dict[str, str] = {}  # force or player → its initiative rolls' purpose
        self.naval = self.opts.naval_movement  # else nothing floats (`waterways.floats`)
        self.snowy = bool(state.snow.levels or state.snow.mountain)  # else `snow_at` is 0
        self._prio: dict[str, tuple[dict[str, int], int]] = {}  # player → his list's places

    # --- indices ------------------------------------------------------------------------------
    def nb(self, sq: Coord) -> list[Coord]:
        """The map's 8-neighbourhood of a square (§0), cached for the phase."""
        got = self._nb.get(sq)
        if got is None:
            got = self._nb[sq] = self.gmap.neighbours(sq)
        return got

    def _count(self, fid: str, sq: Coord, delta: int) -> None:
        i = sq[0] + sq[1] * self.width
        for counts in self._foes_of[self.fside[fid]]:
            counts[i] += delta

    def water(self, sq: Coord) -> bool:
        """§6.11: a sea or lake square."""
        return not self.features_at(sq, _NO_FEATURES).isdisjoint(WATERS)

    def _unbridged(self, sq: Coord) -> bool:
        """R2.1.3: a river square without a bridge (crossed only at crossings)."""
        fs = self.features_at(sq, _NO_FEATURES)
        return Feature.RIVER in fs and Feature.BRIDGE not in fs

    def enemy_zoc(self, sq: Coord, side: str) -> bool:
        """R6.6.1–2: a force's zone of control is the 8 squares around it; only hostile zones
        hinder. So: a force of another side on one of the 8 squares around `sq`."""
        foes = self.foes[side]
        x, y = sq
        w = self.width
        if 0 < x < w - 1 and 0 < y < self.height - 1:
            # Away from the edges: the rows above, beside and below, unrolled (asked at every
            # square a force enters).
            a = x - 1 + (y - 1) * w
            b, c = a + w, a + w + w
            return bool(
                foes[a]
                or foes[a + 1]
                or foes[a + 2]
                or foes[b]
                or foes[b + 2]
                or foes[c]
                or foes[c + 1]
                or foes[c + 2]
            )
        return any(foes[nx + ny * w] for nx, ny in self.nb(sq))

    def hostile_in(self, sq: Coord, side: str) -> list[str]:
        return [i for i in self.occ.get(sq, ()) if self.fside[i] != side]

    def blocked(self, sq: Coord, side: str) -> bool:
        """[SR] R6.7.7: a square holding forces of two different hostile sides may not be
        entered: a battle has exactly two sides, so the mover stops before it."""
        sides = {self.fside[i] for i in self.occ.get(sq, ())}
        sides.discard(side)
        return len(sides) > 1

    def _relocate(self, fid: str, to: Coord, out: list[Event]) -> None:
        """Move a force one square, keeping the square and zone indices in step."""
        frm = self.pos[fid]
        self.occ[frm].remove(fid)
        self.occ.setdefault(to, []).append(fid)
        w = self.width
        i, j = frm[0] + frm[1] * w, to[0] + to[1] * w
        for counts in self._foes_of[self.fside[fid]]:  # `_count`, both squares at once
            counts[i] -= 1
            counts[j] += 1
        self.pos[fid] = to
        self.entered_from[fid] = frm
        self.trails.setdefault(fid, []).append(to)
        f = self.forces[fid]
        if f.works_quota is not None or f.works_square is not None:
            # R7.8.5 / A-44: a force that leaves its square loses its field works.
            self.forces[fid] = evolve(f, works_quota=None, works_square=None, works_built=0)
            if f.works_quota is not None:
                out.append(WorksLost(fid))

    def _remove(self, fid: str, *, reason: str, rule: str) -> list[Event]:
        f = self.forces.pop(fid)
        sq = self.pos.pop(fid)
        self.occ[sq].remove(fid)
        self._count(fid, sq, -1)
        self.state, ev = remove_force(self.state, f, reason=reason, rule=rule)
        return ev

    def territory(self, pid: str, sq: Coord) -> Territory:
        """CampaignState.territory, cached by (player, zone owner): it depends on nothing else."""
        key = (pid, self.gmap.zones.get(sq))
        t = self._terr.get(key)
        if t is None:
            t = self._terr[key] = self.state.territory(pid, sq)
        return t

    def orders_for(self, fid: str) -> ForceOrders | None:
        po = self.state.orders.get(self.forces[fid].owner)
        return po.forces.get(fid) if po is not None else None

    def storm_held(self, fid: str) -> bool:
        return movement_weather(self.state, fid) is Weather.STORM  # R4.2 table, row 6

    # --- the phase ----------------------------------------------------------------------------
    def run(self) -> tuple[CampaignState, list[Event]]:
        self._forces_in_action()
        order, method = self._initiative()
        self.events.append(InitiativeDetermined(method, tuple(order)))
        self.counter = {fid: k for k, fid in enumerate(order)}
        for fid in order:
            if fid in self.forces and fid not in self.done:
                self._turn(fid)
        return self._finish()

    def _forces_in_action(self) -> None:
        """[SR] R5.3.1 / §7.10.6: forces that start the phase sharing a square with a hostile
        force are still in action: they do not move and fight again in that square."""
        for sq in list(self.occ):
            ids = self.occ[sq]
            if len({self.fside[i] for i in ids}) < 2:
                continue
            side_a = self.fside[ids[0]]
            present = list(ids)
            for i in present:  # R6.7.8: a Shattered force engaged by the enemy collapses
                if self.forces[i].status is Status.SHATTERED:
                    foe = next(j for j in present if self.fside[j] != self.fside[i])
                    self.events.extend(self._collapse(i, foe, sq))
            ids = self.occ[sq]
            if len({self.fside[i] for i in ids}) < 2:
                continue
            b = self._battle_at(sq, side_a)
            b.arrivals.extend(ids)
            self.engaged.update(ids)
            self.done.update(ids)
            lead = ids[0]
            self.events.append(
                ContactMade(
                    lead,
                    tuple(i for i in ids if self.fside[i] != self.fside[lead]),
                    sq,
                    b.battle_id,
                    rule="R5.3.1 [SR] in action",
                )
            )

    # --- §6.1 initiative ----------------------------------------------------------------------
    def _initiative(self) -> tuple[list[str], str]:
        movers = [f for f in self.state.forces if f.owner in self.active]
        if not movers:
            return [], self.opts.initiative_method
        if self.opts.initiative_method == "by-army":
            return self._by_army(movers), "by-army"
        return self._by_force(movers), "by-force"

    def _own_rank(self, fid: str) -> tuple[int, int]:
        """A player's own ordering of his forces: his priority list, then state order."""
        key = self._own_keys.get(fid)
        if key is None:
            owner = self.forces[fid].owner
            places = self._prio.get(owner)
            if places is None:  # his list as positions: `index` on it grew with his forces
                po = self.state.orders.get(owner)
                prio = po.initiative_priority if po is not None else ()
                places = self._prio[owner] = ({}, len(prio))
                for k, p in enumerate(prio):
                    places[0].setdefault(p, k)  # the first place, as `tuple.index`
            key = (places[0].get(fid, places[1]), self.index[fid])
            self._own_keys[fid] = key
        return key

    def _own_ranks(self, movers: list[Force]) -> None:
        """`_own_rank` of every mover, in one pass."""
        keys, index, prio = self._own_keys, self.index, self._prio
        for f in movers:
            places = prio.get(f.owner)
            if places is None:
                self._own_rank(f.id)  # makes his places
                continue
            keys[f.id] = (places[0].get(f.id, places[1]), index[f.id])

    def _rank(
        self,
        ids: list[str],
        score: dict[str, int],
        owner: dict[str, str],
        rule: str,
        own_order: Callable[[str], tuple[int, int]] | None = None,
    ) -> list[str]:
        """Order by score, highest first. Tied results re-roll 1D6 without CV among
        themselves, again while tied (R6.1.1, R6.1.5). [SR] A tie that involves one player
        only needs no dice: he places those counters himself (priority list, then state
        order)."""
        groups: dict[int, list[str]] = {}
        for i in ids:
            groups.setdefault(score[i], []).append(i)
        out: list[str] = []
        for total in sorted(groups, reverse=True):
            out.extend(self._settle(groups[total], owner, rule, own_order))
        return out

    def _settle(
        self,
        ids: list[str],
        owner: dict[str, str],
        rule: str,
        own_order: Callable[[str], tuple[int, int]] | None,
    ) -> list[str]:
        if len(ids) == 1:
            return ids
        first = owner[ids[0]]
        for i in ids:
            if owner[i] != first:
                break
        else:  # one player's forces only
            return sorted(ids, key=own_order) if own_order is not None else ids
        rolls: dict[int, list[str]] = {}
        roll, purposes = self.dice.roll_texts, self._purposes
        for i in ids:
            rec = roll(purposes[i], rule, _TIE_TEXT)
            rolls.setdefault(rec[4][0], []).append(i)  # its natural die (`RollRecord.value`)
        out: list[str] = []
        for v in sorted(rolls, reverse=True):
            out.extend(self._settle(rolls[v], owner, rule, own_order))
        return out

    def _by_force(self, movers: list[Force]) -> list[str]:
        """R6.1.3–6.1.5: 1D6 + leader CV per force; each roll, highest first, places a counter."""
        totals: dict[str, int] = {}
        roll = self.dice.roll_texts
        purposes = self._purposes  # the same texts again for the tie re-rolls (`_settle`)
        for f in movers:
            cv = f.cv
            purpose = purposes[f.id] = f"movement:initiative-{f.id}"
            mods = _LEADER_CV.get(cv)
            if mods is None:
                mods = (Modifier("leader-cv", cv),)
            totals[f.id] = roll(purpose, "R6.1.3", _INITIATIVE_TEXT, mods)[6] or 0  # its total
        owner = {f.id: f.owner for f in movers}
        self._own_ranks(movers)  # every key at once: the sorts below read them as a dict
        ranked = self._rank(
            [f.id for f in movers], totals, owner, "R6.1.5", self._own_keys.__getitem__
        )
        self.state = replace(self.state, initiative_winner=owner[ranked[0]])
        return self._place_counters(ranked, movers, owner)

    def _place_counters(
        self, ranked: list[str], movers: list[Force], owner: dict[str, str]
    ) -> list[str]:
        """R6.1.4–6.1.5: each result, highest first, places the next counter. With standing
        orders it goes on the first force of the player's priority list still without one,
        else on the force that rolled, else on his next force without one; a force that
        prefers to move late takes the latest free counter, otherwise the earliest. With
        `roller-force` the rolling force always takes the earliest free counter."""
        roller = self.opts.initiative_counter_binding in ("roller-force", "roller_force")
        own: dict[str, list[str]] = {}  # per player: priority list first, then state order
        for f in movers:
            own.setdefault(f.owner, []).append(f.id)
        listed: dict[str, int] = {}
        for pid, fids in own.items():
            fids.sort(key=self._own_keys.__getitem__)  # filled by `_by_force`
            po = self.state.orders.get(pid)
            prio = set(po.initiative_priority) if po is not None else set()
            listed[pid] = len(prio.intersection(fids))  # his forces on his list
        late = set()
        orders = self.state.orders
        for f in movers:  # `orders_for`, inline
            po = orders.get(f.owner)
            fo = po.forces.get(f.id) if po is not None else None
            if fo is not None and fo.initiative == "late":
                late.add(f.id)
        nxt = dict.fromkeys(own, 0)
        placed: set[str] = set()
        slots = [""] * len(ranked)
        lo, hi = 0, len(ranked) - 1
        for rid in ranked:
            target = rid
            if not roller:
                pid = owner[rid]
                fids, k = own[pid], nxt[pid]
                while k < len(fids) and fids[k] in placed:
                    k += 1
                nxt[pid] = k
                if k < listed[pid] or rid in placed:
                    target = fids[k]
            if not roller and target in late:
                slots[hi], hi = target, hi - 1
            else:
                slots[lo], lo = target, lo + 1
            placed.add(target)
        return slots

    def _by_army(self, movers: list[Force]) -> list[str]:
        """R6.1.1–2: one 1D6 per player, ties re-roll; the winner chooses when he moves all
        his forces (his standing `army_initiative`): first, or after everybody else, who
        move by their rolls [SR]. Within a player: early before late, then his priority
        list, then state order."""
        players: list[str] = []
        for f in movers:
            if f.owner not in players:
                players.append(f.owner)
        if len(players) > 1:
            for pid in players:
                self._purposes[pid] = f"movement:initiative-{pid}"
            rolls = {
                pid: self.dice.roll_texts(self._purposes[pid], "R6.1.1", _INITIATIVE_TEXT).value
                for pid in players
            }
            players = self._rank(players, rolls, {p: p for p in players}, "R6.1.1")
        winner = players[0]
        self.state = replace(self.state, initiative_winner=winner)
        if len(players) > 1:
            po = self.state.orders.get(winner)
            choice = po.army_initiative if po is not None else "first"
            if choice == "last":  # R6.1.2: he compels the others to move all theirs first
                players = [*players[1:], winner]
            self.events.append(ArmyInitiativeChosen(winner, choice))
        rank = {pid: k for k, pid in enumerate(players)}

        def key(f: Force) -> tuple[int, int, tuple[int, int]]:
            fo = self.orders_for(f.id)
            late = 1 if fo is not None and fo.initiative == "late" else 0
            return (rank[f.owner], late, self._own_rank(f.id))

        return [f.id for f in sorted(movers, key=key)]

    # --- one force's turn ---------------------------------------------------------------------
    def _turn(self, fid: str) -> None:
        """One force's counter comes up (R6.1.4): sack, roll, move, countermarch, capture."""
        self.done.add(fid)
        f = self.forces[fid]
        po: PlayerOrders | None = self.state.orders.get(f.owner)
        if po is None:
            # [SR] missing orders: the force keeps its status and stays put; this overrides
            # the Full Speed duty to move (R6.4.5).
            self.events.append(OrdersMissing(fid, f.owner))
            return
        fo = po.forces.get(fid) or ForceOrders(fid)
        voyage = (
            fo.by_river
            and not voyage_error(self.state, evolve(f, square=self.pos[fid]), fo.path)[0]
        )
        if f.afloat and not voyage:  # [SR] off the river voyage: it lands where it is
            f = self.forces[fid] = evolve(f, afloat=False)
        if fo.sack:
            self._sack(fid)
            f = self.forces[fid]
        if f.status is Status.DEFEND:  # R6.4.4: never moves, no roll
            self._capture(fid)
            return
        # R4.4.3: its Wizard's shift, if its orders ask for one
        weather = (
            movement_weather(self.state, fid) if fo.weather_shift else self.state.weather_for(fid)
        )
        if weather is Weather.STORM:  # R4.2 storm: no movement, no countermarch
            self.events.append(ForceHeldByStorm(fid))
            self._capture(fid)
            return
        sq = self.pos[fid]
        if voyage:
            self._row(fid, fo, weather)
            return
        if self.naval and self._sails(fid, fo):
            self._sail(fid, fo, weather)
            return
        rec, allowance, must_move = roll_movement(  # R6.2 (Defend and storm returned above)
            self.dice,
            f"movement:force-{fid}",
            f.status,
            self.features_at(sq, _NO_FEATURES),
            self.territory(f.owner, sq),
            weather,
            self.state.snow_at(sq) if self.snowy else 0,
            self.state.heavy_ground_now,
            self.opts.naran_terrain,
        )
        self.events.append(MovementRolled(fid, rec.total, allowance))
        self._move(fid, fo, allowance, must_move)
        free = fid in self.forces and fid not in self.engaged  # not removed, not in contact
        if free and fo.countermarch is not CountermarchWhen.NEVER:
            self._maybe_countermarch(fid, fo)
        if fid in self.forces and fid not in self.engaged:
            self._capture(fid)

    # --- §6.11 [NARAN] naval movement ---------------------------------------------------------
    def _sails(self, fid: str, fo: ForceOrders) -> bool:
        """A force with ships enough (R6.11.3), or boats and rafts enough (R6.11.4), moves by
        the naval table when it is at sea or its path takes to the water."""
        f = self.forces[fid]
        if not floats(self.state, f):
            return False
        return is_water(self.state, self.pos[fid]) or any(is_water(self.state, s) for s in fo.path)

    def _sail(self, fid: str, fo: ForceOrders, weather: Weather) -> None:
        """§6.11: the wind test on sea or lake, then the naval table (reefs, islands or atolls
        on the route −1; without ships enough, minor craft only −2, and −1 more if rafts carry
        mounts); embarking and landing each cost a square of a move of 3 or more (R6.11.8).
        [SR] Afloat, a force neither exerts nor suffers zones of control and does not
        countermarch; it lands by stepping onto a land square, where contact and capture work
        as on land."""
        f = self.forces[fid]
        sq = self.pos[fid]
        by_ship = sails(self.state, f)
        water = (
            sq if is_water(self.state, sq) else next(s for s in fo.path if is_water(self.state, s))
        )
        result = naval_movement(
            self.dice,
            purpose=f"movement:force-{fid}",
            waters=Waters.SEA if Feature.SEA in self.gmap.features_at(water) else Waters.LAKE,
            status=f.status,
            territory=self.territory(f.owner, sq),
            weather=weather,
            reefs=any(Feature.REEFS in self.gmap.features_at(s) for s in (sq, *fo.path)),
            ships=by_ship,
            rafts_with_mounts=not by_ship and has_mounts(f),
            embarking=not is_water(self.state, sq),
            disembarking=bool(fo.path) and not is_water(self.state, fo.path[-1]),
        )
        self.events.append(MovementRolled(fid, result.total, result.squares, rule="§6.11"))
        self._move(fid, fo, result.squares, must_move=False, fleet=fid)
        if (
            fid in self.forces
            and fid not in self.engaged
            and not is_water(self.state, self.pos[fid])
        ):
            self._capture(fid)

    def _row(self, fid: str, fo: ForceOrders, weather: Weather) -> None:
        """§6.11 on a navigable river: the naval table with the river's modifiers (no wind
        test): rapids on the stretch, upstream or downstream (`waterways.flow`), a bridge on
        its square or the next three, rafts carrying mounts. R6.11.8: the move that embarks
        (the force was not afloat) and the one that reaches its landing square (the path's
        end) each lose a square of a total of 3 or more. [SR] Along the river zones of
        control and contact work as on land; a force that stops short stays afloat, to go on
        next turn, and does not countermarch."""
        f = self.forces[fid]
        stretch = (self.pos[fid], *fo.path)
        feats = [self.gmap.features_at(s) for s in stretch]
        carrier = carried_on_river(self.state, evolve(f, square=stretch[0]), stretch)
        direction = flow(self.state, stretch[0], stretch[-1])
        result = naval_movement(
            self.dice,
            purpose=f"movement:force-{fid}",
            waters=Waters.RIVER,
            status=f.status,
            territory=self.territory(f.owner, stretch[0]),
            weather=weather,
            rapids=any(Feature.RAPIDS in x for x in feats),
            upstream=direction == "upstream",
            downstream=direction == "downstream",
            bridge_ahead=any(Feature.BRIDGE in x for x in feats[:4]),
            rafts_with_mounts=carrier == "craft" and has_mounts(f),
            embarking=not f.afloat,
        )
        squares = result.squares
        if (result.total or 0) >= 3 and len(fo.path) <= squares:
            squares = max(1, squares - 1)  # R6.11.8: it lands this move
        self.events.append(MovementRolled(fid, result.total, squares, rule="§6.11"))
        self._move(fid, fo, squares, must_move=False, river=True)
        if fid not in self.forces:
            return
        landed = self.pos[fid] == fo.path[-1] or fid in self.engaged
        self.forces[fid] = evolve(self.forces[fid], afloat=not landed)
        if fid not in self.engaged:
            self._capture(fid)

    def _sack(self, fid: str) -> None:
        """§11.6 L-b: declared when the force's turn comes, before it moves. The holding goes
        face down under the force: sacked, carried as loot (rules 1–2)."""
        f = self.forces[fid]
        hid = self.hold_at.get(self.pos[fid])
        h = next((h for h in self.state.holdings if h.id == hid), None)
        reason = ""
        if self.state.scenario != "incursion":
            reason = "sack-outside-incursion"
        elif not may_sack(self.state, f.owner):
            reason = "sack-not-raiders"
        elif h is None or h.sacked or h.owner != f.owner or h.original_owner == f.owner:
            reason = "sack-no-captured-holding"  # L-a
        elif f.status is Status.FULL_SPEED:
            reason = "sack-under-full-speed"  # rule 3
        if reason or h is None:
            self.events.append(OrderRefused(fid, reason, "§11.6"))
            return
        self.state = self.state.replace_holding(replace(h, sacked=True, carried_by=fid))
        del self.hold_at[h.square]
        self.forces[fid] = replace(f, loot=(*f.loot, h.id))
        self.events.append(HoldingSacked(h.id, fid))

    # --- §6.4 movement ------------------------------------------------------------------------
    def _step_ok(
        self, frm: Coord, to: Coord, side: str, fleet: str = "", river: bool = False
    ) -> bool:
        """R6.4.2 / R6.4.7: one adjacent square, on the map, crossing rivers only where the
        option allows (a voyage along one does not cross it), never into a square held by two
        hostile sides [SR]. Water only for a fleet (§6.11), and never where an enemy is
        afloat [SR: no naval battles]."""
        x, y = to
        if not (0 <= x < self.width and 0 <= y < self.height):
            return False
        if max(abs(x - frm[0]), abs(y - frm[1])) != 1:
            return False
        if self.water(to):
            if not fleet or not water_ok(self.state, self.forces[fleet], to):
                return False
            return not self.hostile_in(to, side)
        if not river and self.no_cross and (self._unbridged(frm) or self._unbridged(to)):
            return False  # crossing_allowed
        return to not in self.occ or not self.blocked(to, side)

    def _refusal(self, fid: str, here: Coord, to: Coord) -> ForceStopped:
        side = self.fside[fid]
        if self.gmap.on_map(to) and _cheb(here, to) == 1 and self.blocked(to, side):
            return ForceStopped(fid, here, "two-hostile-sides", "R6.7.7 [SR]")
        return ForceStopped(fid, here, "illegal-step", "R6.4.7")

    def _move(
        self,
        fid: str,
        fo: ForceOrders,
        allowance: int,
        must_move: bool,
        fleet: str = "",  # the force afloat on sea or lake (§6.11)
        river: bool = False,
    ) -> None:
        """Walk the standing path up to the allowance, applying contact (R6.7) and zones of
        control (R6.6) at every square entered (R6.4.7)."""
        side = self.fside[fid]
        path = fo.path
        pi = 0
        left = allowance
        trail: list[Coord] = []
        later: list[Event] = []  # reported after ForceMoved
        forced: Coord | None = None  # an engage target chosen on entering a zone
        nxt: Coord | None
        while left > 0:
            here = self.pos[fid]
            if forced is not None:
                nxt, forced = forced, None
            elif pi < len(path) and self._step_ok(here, path[pi], side, fleet, river):
                nxt = path[pi]
                pi += 1
            elif must_move and not trail:
                # R6.4.5 / A-11: Full Speed moves at least one square when one is legal.
                nxt = self._forced_square(fid)
                path = ()
                if nxt is None:
                    break
            else:
                if pi < len(path):
                    later.append(self._refusal(fid, here, path[pi]))
                break
            self._relocate(fid, nxt, self.events)  # WorksLost before ForceMoved
            trail.append(nxt)
            left -= 1
            if len(self.occ[nxt]) > 1 and not self._arrive(fid, nxt, later):
                break  # contact, or the mover itself collapsed (alone there: free to go on)
            if not self.enemy_zoc(nxt, side) or self.water(nxt):
                continue  # afloat: no zones of control [SR]
            # R6.6.3 / R6.6.4: every enemy-zone square entered asks: stop, or contact.
            if self._ambush(fid, nxt, later):
                break
            if fo.zoc is ZocPolicy.ENGAGE and left >= 1:
                planned = path[pi] if pi < len(path) else None
                forced = self._engage_target(nxt, side, planned)
                if forced is not None:
                    if forced == planned:
                        pi += 1
                    else:
                        path = ()  # [SR] off its path: it does not resume the path after
                    continue
            later.append(ForceStopped(fid, nxt, "enemy-zoc", "R6.6.3"))
            break
        if trail:
            self.events.append(ForceMoved(fid, tuple(trail)))
        self.events.extend(later)

    def _arrive(self, fid: str, sq: Coord, out: list[Event]) -> bool:
        """Resolve entering `sq`. Shattered forces engaged by the enemy collapse (R6.7.8,
        A-43); any hostile force left makes contact (R6.7.1–2), joining a battle already there
        (R6.7.7). Returns True if the mover is free to go on."""
        if not self.occ.get(sq):
            return True
        side = self.fside[fid]
        hostile = self.hostile_in(sq, side)
        if not hostile:
            return True
        for h in hostile:
            if self.forces[h].status is Status.SHATTERED:
                out.extend(self._collapse(h, fid, sq))
        if self.forces[fid].status is Status.SHATTERED:
            foe = hostile[0]
            out.extend(self._collapse(fid, foe, sq))
            return False
        remaining = self.hostile_in(sq, side)
        if not remaining:
            return True  # [SR] nothing left to fight: it may use the rest of its allowance
        self._contact(fid, sq, remaining, out)
        return False

    def _collapse(self, fid: str, by: str, sq: Coord) -> list[Event]:
        """R6.7.8 / A-43: removed at once, no battle; a WtF trigger only if it was the last."""
        f = self.forces[fid]
        ev: list[Event] = [ShatteredForceCollapsed(fid, f.owner, by, sq)]
        ev.extend(self._remove(fid, reason="shattered-force-engaged", rule="R6.7.8"))
        self.engaged.discard(fid)
        return ev

    def _battle_at(self, sq: Coord, side_a: str, scenario: str | None = None) -> _Battle:
        b = self.battles.get(sq)
        if b is None:
            k = len(self.battles) + 1
            b = self.battles[sq] = _Battle(f"t{self.state.turn}-b{k}", k, sq, side_a, scenario)
        return b

    def _contact(
        self, fid: str, sq: Coord, enemies: list[str], out: list[Event], scenario: str | None = None
    ) -> None:
        """R6.7.2: movement ends for every force now in the square, the contacted ones too;
        R6.7.5: battles are numbered in the order contacts occur."""
        b = self._battle_at(sq, self.fside[fid], scenario)
        for i in self.occ[sq]:
            if i not in b.arrivals:
                b.arrivals.append(i)
            self.engaged.add(i)
            self.done.add(i)
        out.append(ContactMade(fid, tuple(enemies), sq, b.battle_id))

    def _engage_target(self, sq: Coord, side: str, planned: Coord | None) -> Coord | None:
        """[SR] The square a force moves into when it engages from `sq` (R6.6.3): the next
        square of its path if an enemy stands there; otherwise the adjacent enemy square with
        the most points (the strongest enemy controlling the zone), then the lowest (y, x)."""
        best: tuple[int, int, int] | None = None
        choice: Coord | None = None
        for n in self.nb(sq):
            foes = self.hostile_in(n, side)
            if not foes or not self._step_ok(sq, n, side):
                continue
            if n == planned:
                return n
            key = (sum(self.forces[i].points for i in foes), -n[1], -n[0])
            if best is None or key > best:
                best, choice = key, n
        return choice

    def _forced_square(self, fid: str) -> Coord | None:
        """[SR] A-11: the square a Full Speed force with no usable path moves to. Never one
        with an enemy force (the duty to move does not start a battle); prefer squares outside
        enemy zones, then the one nearest its own capital, then the lowest (y, x)."""
        here = self.pos[fid]
        side = self.fside[fid]
        owner = self.forces[fid].owner
        capital = next(
            (
                h.square
                for h in self.state.holdings
                if h.capital and h.owner == owner and not h.destroyed and h.carried_by is None
            ),
            None,
        )
        cands = [
            n
            for n in self.nb(here)
            if self._step_ok(here, n, side) and not self.hostile_in(n, side)
        ]
        if not cands:
            return None
        return min(
            cands,
            key=lambda n: (
                self.enemy_zoc(n, side),
                _cheb(n, capital) if capital else 0,
                n[1],
                n[0],
            ),
        )

    # --- §7.10.5 ambush -----------------------------------------------------------------------
    def _ambush(self, fid: str, sq: Coord, out: list[Event]) -> bool:
        """§7.10.5 [SR, A-52]: a Full Speed force entering the zone of a hostile Defend force
        whose orders say `ambush` is ambushed: the ambusher moves into the mover's square and
        both stop there in contact. The ambusher with the earliest initiative counter acts."""
        if not self.special or self.forces[fid].status is not Status.FULL_SPEED:
            return False
        side = self.fside[fid]
        ambushers = [
            a
            for n in self.nb(sq)
            for a in self.hostile_in(n, side)
            if self._can_react(a, need=Status.DEFEND, flag="ambush")
        ]
        if not ambushers:
            return False
        a = min(ambushers, key=lambda i: self.counter.get(i, len(self.counter)))
        self._react_into(a, sq, "ambush", "§7.10.5", out)
        return True

    def _can_react(self, fid: str, *, need: Status | None, flag: str) -> bool:
        """§7.10.4–5 [SR]: whether a force may leave its square to ambush or flank-attack now:
        it has that standing order, is not in contact (R6.7.2), not held by a storm (R4.2),
        and for a flank attack has not moved yet and can move at all (not Defend/Shattered)."""
        fo = self.orders_for(fid)
        if fo is None or not getattr(fo, flag) or fid in self.engaged:
            return False
        if self.forces[fid].owner not in self.active or self.storm_held(fid):
            return False
        status = self.forces[fid].status
        if need is not None:
            return status is need
        return fid not in self.done and status not in (Status.DEFEND, Status.SHATTERED)

    def _react_into(self, fid: str, sq: Coord, scenario: str, rule: str, out: list[Event]) -> None:
        """§7.10.4–5 / A-52: move a reacting force (ambusher, flank attacker) into `sq` and make
        the contact there; its own movement ends (R6.7.2). It is side a of that battle."""
        self.done.add(fid)
        self._relocate(fid, sq, out)
        out.append(ForceMoved(fid, (sq,), reason=scenario, rule=rule))
        enemies = self.hostile_in(sq, self.fside[fid])
        for h in enemies:  # R6.7.8 also applies to a Shattered force caught this way
            if self.forces[h].status is Status.SHATTERED:
                out.extend(self._collapse(h, fid, sq))
        enemies = self.hostile_in(sq, self.fside[fid])
        if enemies:
            self._contact(fid, sq, enemies, out, scenario=scenario)

    # --- §6.5 countermarch / §7.10.4 flank attack ---------------------------------------------
    def _maybe_countermarch(self, fid: str, fo: ForceOrders) -> None:
        """R6.5.1–2: after moving (or not), as the standing order says; never for Defend or
        Shattered forces (and callers skip forces in contact or held by a storm)."""
        f = self.forces[fid]
        here = self.pos[fid]
        side = self.fside[fid]
        in_zoc = self.enemy_zoc(here, side)
        wanted = fo.countermarch is CountermarchWhen.ALWAYS or (
            fo.countermarch is CountermarchWhen.IF_STOPPED_IN_ZOC and in_zoc
        )
        allowed, new_status = countermarch(f.status)  # R6.5.2: not Defend, not Shattered
        if not wanted or not allowed or new_status is None:
            return
        out: list[Event] = []
        if in_zoc and self.special:
            # §7.10.4 [SR]: an enemy controlling the zone that has not moved yet may strike
            # instead; the countermarch does not happen and they fight in this square.
            attackers = [
                a
                for n in self.nb(here)
                for a in self.hostile_in(n, side)
                if self._can_react(a, need=None, flag="flank_attack")
            ]
            if attackers:
                a = min(attackers, key=lambda i: self.counter.get(i, len(self.counter)))
                self._react_into(a, here, "flank-attack", "§7.10.4", out)
                self.events.extend(out)
                return
        to = self._countermarch_square(fid, fo)
        if to is None:
            self.events.append(ForceStopped(fid, here, "no-countermarch-square", "R6.5.3"))
            return
        self._relocate(fid, to, self.events)
        self.forces[fid] = evolve(self.forces[fid], status=new_status, square=to)  # R6.5.4
        self.events.append(ForceCountermarched(fid, here, to, f.status.value, new_status.value))

    def _countermarch_square(self, fid: str, fo: ForceOrders) -> Coord | None:
        """R6.5.3: one square in any direction, ignoring terrain and zones, never onto an
        enemy force nor off the map. The ordered square if it qualifies, else [SR] the one
        farthest from the nearest enemy force (up to 3 squares), then the lowest (y, x)."""
        here = self.pos[fid]
        side = self.fside[fid]
        cands = [n for n in self.nb(here) if not self.hostile_in(n, side)]
        if not cands:
            return None
        if fo.countermarch_square in cands:
            return fo.countermarch_square

        def distance(sq: Coord) -> int:
            # Inside an enemy zone 1, next to one 2, else 3+.
            if self.enemy_zoc(sq, side):
                return 1
            for n in self.nb(sq):
                if self.enemy_zoc(n, side):
                    return 2
            return 3

        return min(cands, key=lambda n: (-distance(n), n[1], n[0]))

    # --- §6.8 capture -------------------------------------------------------------------------
    def _capture(self, fid: str) -> None:
        """R6.8.1: ending its move on an enemy holding with no hostile force there captures
        it (a capital stays a capital); R6.8.4: the loser takes a Will-to-Fight test."""
        sq = self.pos[fid]
        hid = self.hold_at.get(sq)
        if hid is None:
            return
        f = self.forces[fid]
        h = next(h for h in self.state.holdings if h.id == hid)
        if h.sacked or h.destroyed or h.carried_by is not None:
            return
        if self.player_side.get(h.owner) == self.fside[fid] or self.hostile_in(sq, self.fside[fid]):
            return
        if h.capital and self.opts.siege_required_for_capital:
            # R2.3.6 [NARAN]: a capital falls only to a siege (Assedi rules, fought off-engine)
            self.events.append(CaptureBlocked(h.id, fid, "capital-needs-siege"))
            return
        self.state = self.state.replace_holding(replace(h, owner=f.owner))
        self.state = self.state.add_trigger(h.owner, "holding-lost")  # R9.1.3
        self.events.append(HoldingCaptured(h.id, f.owner, h.owner, fid, h.capital))

    # --- end of phase -------------------------------------------------------------------------
    def _finish(self) -> tuple[CampaignState, list[Event]]:
        """R6.7.4 / §7.4 / A-21: one pending battle per contact square, with every force of
        both sides standing there after all movement, in contact order (R6.7.5)."""
        for fid, sq in self.pos.items():
            if self.forces[fid].square != sq:
                self.forces[fid] = evolve(self.forces[fid], square=sq)
        pending: list[PendingBattle] = []
        for b in self.battles.values():  # dicts keep insertion order = contact order (R6.7.5)
            ids = [i for i in b.arrivals if i in self.forces and self.pos[i] == b.square]
            ids += [i for i in self.occ.get(b.square, ()) if i not in ids]
            side_a = [self.forces[i] for i in ids if self.fside[i] == b.side_a]
            side_b = [self.forces[i] for i in ids if self.fside[i] != b.side_a]
            if not side_a or not side_b:
                continue
            pack, updated = build_pack(
                self.state,
                battle_id=b.battle_id,
                contact_order=b.order,
                square=b.square,
                side_a=side_a,
                side_b=side_b,
                scenario=b.scenario,
                entered_from={i: self.entered_from[i] for i in ids if i in self.entered_from},
                dice=self.dice,
            )
            for f in updated:
                self.forces[f.id] = f
            pending.append(PendingBattle(b.battle_id, b.square, b.order, pack))
        forces = tuple([self.forces[f.id] for f in self.state.forces])
        state = replace(
            self.state,
            forces=forces,
            pending_battles=tuple(pending),
            moves={fid: tuple(t) for fid, t in self.trails.items() if fid in self.forces},
        )
        return state, self.events
