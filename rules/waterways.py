"""§6.11 [NARAN] waters (option `naval_movement`): sea and lake squares, which only ships
enter, and navigable rivers, which boats, rafts and (where marked) ships sail along.

The map says which river squares are navigable and by what (R6.11.7): `navigable` for minor
craft, `ship-navigable` for ships too (a ship-navigable river is boat-navigable), with its
obstacles: `rapids` (waterfalls or rapids), bridges, and `river-mouth` where the river flows
out. [SR] Downstream is toward a mouth: a navigable square marked so, or one beside the sea
or a lake; a voyage ending nearer to one (along navigable squares) goes downstream, one
ending farther goes upstream, and one on a river with no mouth goes neither.
"""

from __future__ import annotations

from collections.abc import Sequence

from rules.types import CampaignState, Coord, Feature, Force, Speciality

WATERS = frozenset({Feature.SEA, Feature.LAKE})
NAVIGABLE = frozenset({Feature.NAVIGABLE, Feature.SHIP_NAVIGABLE})
NAVAL_REACH = 4  # the naval table's best result: 4 squares (§6.11)
# R6.11.3: figures a ship carries: 10 on foot (2.5 × 2.5 cm), 5 mounted (2.5 × 5 cm), one on a
# 5 × 5 cm base; [SR] artillery, flyers and Terrible Creatures count one a ship, generals and
# characters as figures on foot
SHIP_FOOT, SHIP_MOUNTED = 10, 5
ONE_A_SHIP = frozenset({Speciality.ARTILLERY, Speciality.AIR_CAVALRY, Speciality.TERRIBLE_CREATURE})
# R6.11.4: a boat carries 2 figures on foot; a raft 2 mounted figures, or one war machine or
# creature; [SR] flyers take a raft each like creatures, and a raft left over carries two on
# foot like a boat
BOAT_FOOT, RAFT_MOUNTED = 2, 2


def is_water(state: CampaignState, square: Coord) -> bool:
    return bool(state.map.features_at(square) & WATERS)


def _loads(force: Force) -> tuple[int, int, int]:
    """Figures on foot (generals and characters with them), mounted, and one-a-place."""
    foot = len(force.generals) + len(force.individuals)
    mounted = single = 0
    for u in force.units:
        if u.speciality in ONE_A_SHIP:
            single += u.figures
        elif u.mounted or u.speciality is Speciality.CAVALRY:
            mounted += u.figures
        else:
            foot += u.figures
    return foot, mounted, single


def ships_needed(force: Force) -> int:
    """R6.11.3: the ships that carry every figure of the force."""
    foot, mounted, single = _loads(force)
    return -(-foot // SHIP_FOOT) + -(-mounted // SHIP_MOUNTED) + single


def craft_needed(force: Force) -> tuple[int, int]:
    """R6.11.4: the boats and the rafts that carry every figure of the force."""
    foot, mounted, single = _loads(force)
    return -(-foot // BOAT_FOOT), -(-mounted // RAFT_MOUNTED) + single


def has_mounts(force: Force) -> bool:
    """Whether rafts carrying the force carry mounts (the naval table's −1)."""
    return _loads(force)[1] > 0


def craft_carry(force: Force) -> bool:
    """Whether the force's boats and rafts carry it all (R6.11.4)."""
    boats, rafts = craft_needed(force)
    spare = force.rafts - rafts
    return spare >= 0 and force.boats + spare >= boats


def sails(state: CampaignState, force: Force) -> bool:
    """§6.11 (option `naval_movement`): whether the force has ships enough to carry it all;
    a pirate force gets all it needs free (R6.11.6)."""
    if not state.options.naval_movement:
        return False
    return force.sea_folk or 0 < ships_needed(force) <= force.ships


def floats(state: CampaignState, force: Force) -> bool:
    """Whether the force may take to the water at all: by its ships (R6.11.3), or by boats
    and rafts enough on a lake or the coastal sea (R6.11.4)."""
    return sails(state, force) or (state.options.naval_movement and craft_carry(force))


def water_ok(state: CampaignState, force: Force, square: Coord) -> bool:
    """Whether the force may be afloat on the water square: by ship anywhere; by minor craft
    (R6.11.4: "rivers, lakes, coastal sea") on a lake, or on a sea square beside land [SR]."""
    if sails(state, force):
        return True
    if not (state.options.naval_movement and craft_carry(force)):
        return False
    if Feature.LAKE in state.map.features_at(square):
        return True
    return any(not is_water(state, n) for n in state.map.neighbours(square))


def carried_on_river(state: CampaignState, force: Force, stretch: Sequence[Coord]) -> str:
    """What carries the force along the river squares `stretch` (its own and its path's):
    "free" for a pirate force (R6.11.6), "craft" when its boats and rafts carry it all and
    every square is navigable, "ships" when its ships do and every square is navigable by
    ships (R6.11.7); "" when nothing does."""
    if not state.options.naval_movement or not stretch:
        return ""
    feats = [state.map.features_at(sq) for sq in stretch]
    if not all(f & NAVIGABLE for f in feats):
        return ""
    if force.sea_folk:
        return "free"
    if craft_carry(force):
        return "craft"
    if 0 < ships_needed(force) <= force.ships and all(Feature.SHIP_NAVIGABLE in f for f in feats):
        return "ships"
    return ""


def voyage_error(state: CampaignState, force: Force, path: Sequence[Coord]) -> tuple[str, str]:
    """Why the force may not go by river along `path` from its square, as (code, words), or
    ("", ""): naval movement in use, a path, every square of it and its start navigable
    (R6.11.7), and craft or ships enough to carry it all (R6.11.3–4)."""
    if not state.options.naval_movement:
        return "river-off", "naval movement is not used in this campaign (§6.11)"
    if not path:
        return "river-no-path", "a voyage by river needs a path along it"
    stretch = (force.square, *path)
    if not all(state.map.features_at(sq) & NAVIGABLE for sq in stretch):
        return (
            "river-not-navigable",
            "every square of a voyage, its start too, must be of a navigable river (R6.11.7)",
        )
    if not carried_on_river(state, force, stretch):
        boats, rafts = craft_needed(force)
        return (
            "river-no-craft",
            f"the force has {force.boats} boat(s) and {force.rafts} raft(s) and needs {boats} "
            f"and {rafts} (R6.11.4), or ships enough on a river navigable by ships",
        )
    return "", ""


def river_reach(state: CampaignState, force: Force) -> set[Coord]:
    """Navigable squares a voyage of the force could reach this turn (for the path map)."""
    if not state.options.naval_movement or not (state.map.features_at(force.square) & NAVIGABLE):
        return set()
    seen = {force.square}
    frontier = {force.square}
    for _ in range(NAVAL_REACH):
        frontier = {
            n
            for sq in frontier
            for n in state.map.neighbours(sq)
            if n not in seen and state.map.features_at(n) & NAVIGABLE
        }
        seen |= frontier
    seen.discard(force.square)
    return seen


def flow(state: CampaignState, start: Coord, end: Coord) -> str:
    """ "downstream", "upstream" or "" for a voyage from `start` to `end` (see the module)."""
    dist = _mouth_distances(state)
    a, b = dist.get(start), dist.get(end)
    if a is None or b is None or a == b:
        return ""
    return "downstream" if b < a else "upstream"


def _mouth_distances(state: CampaignState) -> dict[Coord, int]:
    gmap = state.map
    navigable = {c for c, f in gmap.features.items() if f & NAVIGABLE}
    mouths = [
        c
        for c in sorted(navigable)
        if Feature.RIVER_MOUTH in gmap.features_at(c)
        or any(gmap.features_at(n) & WATERS for n in gmap.neighbours(c))
    ]
    dist = dict.fromkeys(mouths, 0)
    queue = list(mouths)
    for sq in queue:  # breadth first: the queue grows as it is read
        for n in gmap.neighbours(sq):
            if n in navigable and n not in dist:
                dist[n] = dist[sq] + 1
                queue.append(n)
    return dist
