"""Battle packs (§7.4–7.10): everything a table (or the tactical engine) needs to fight one
contact of Phase 2. Built after all movement, so forces that joined a battle are included.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from rules import tables as T
from rules.battle import BattleForce, BattlePack, BattleSide, UnitStart
from rules.checks import ammo_tokens, field_works_quota, gr_command_test_modifier
from rules.dice import Dice, Judge
from rules.types import CampaignState, Coord, Feature, Force, Status, Territory, Weather

# §7.5 scouting by force status; Shattered forces never fight (they collapse on contact).
SCOUTING: dict[Status, str] = {
    Status.DEFEND: "doubled",
    Status.PROBE: "full",
    Status.FULL_SPEED: "partial",
    Status.CONFUSED: "partial",
    Status.UNSTEADY: "none",
    Status.SHATTERED: "none",
}
# [SR] a side of several forces scouts with its best one.
SCOUTING_RANK = {"none": 0, "partial": 1, "full": 2, "doubled": 3}
SCOUTING_TERRITORY_MOD = {Territory.FRIENDLY: +2, Territory.NEUTRAL: 0, Territory.ENEMY: -1}

# §7.6 rows in the order they are listed in the pack; jungle is dropped when forest is there.
SETUP_ORDER = (
    Feature.FOREST,
    Feature.JUNGLE,
    Feature.MOUNTAIN,
    Feature.RIVER,
    Feature.SWAMP,
    Feature.HILL,
)

# §7.7 scenery rolls: name, dice, rule, table.
SCENERY: tuple[tuple[str, int, str, Mapping[int, str]], ...] = (
    ("geography", 1, "§7.7.1", T.GEOGRAPHY),
    ("vegetation", 1, "§7.7.2", T.VEGETATION),
    ("hydrography", 1, "§7.7.3", T.HYDROGRAPHY),
    ("special-feature", 1, "§7.7.4", T.SPECIAL_FEATURES),
    ("artificial-works", 2, "§7.7.5", T.ARTIFICIAL_WORKS),
)

# §7.10 deployment summaries, side "a" / side "b" roles.
SCENARIO_RULES: dict[str, str] = {
    "chance-encounter": (
        "Chance Encounter (§7.10.3): no scouting; time of day as when nobody scouts. Roll 1D6 "
        "for who deploys the first command, then alternate one command each. Every unit in "
        "column, the first unit 30 cm from a short edge (the opponent from the other one); "
        "scouting commands lead, the leader's command is second, the rearguard carries "
        "artillery, wagons and loot. All commands on Oppose, no Secret Order; the Naran "
        "impulse-movement reaction on sighting the enemy is mandatory."
    ),
    "flank-attack": (
        "Flank Attack (§7.10.4): no scouting; time of day as when nobody scouts. The "
        "countermarching force (side b) deploys first within 30 cm of a long edge, in column "
        "in marching order, all on Oppose, no Secret Order; its General Retreat zone is the "
        "short edge opposite the attacker's. The attacker (side a) deploys second within 40 cm "
        "of a short edge, all commands on Attack, escaping toward its own short edge."
    ),
    "ambush": (
        "Ambush (§7.10.5): no scouting; time of day as when nobody scouts. The ambushed force "
        "(side b) deploys first in column in marching order, all on Oppose, no Secret Order, "
        "escaping toward the edge it was heading for. The ambusher (side a, on Defend) chooses "
        "the terrain and deploys second 20–60 cm from one or both short edges, all commands on "
        "Attack, with an extra missile phase before the battle. Ambusher +1 / ambushed −1 to "
        "wounded and deserter checks; the ambushed −1 to command tests and change-orders "
        "tests, the ambusher +1 to change-orders tests when ordering General Retreat."
    ),
    "final-massacre": (
        "Final Massacre (§7.10.6): no scouting. The surrounded side (role defender) chooses "
        "the terrain and deploys first in a 40–60 cm square at the table centre, all on "
        "Defend, Unit Orders mandatory, field defences and a ditch allowed; every turn each "
        "defending command takes a command test and commands that flee surrender. The "
        "attackers deploy second on 2–4 sides at least 30 cm away, all on Attack, under one "
        "supreme commander who chooses the time of day. No General Retreat for anyone; the "
        "battle ends only with the defenders' annihilation (continued next turn if needed)."
    ),
    "breakthrough": (
        "Breakthrough (§7.10.2): no scouting; time of day as when nobody scouts. The blocking "
        "side (role defender) deploys first 20–40 cm from its long edge in a single line, all "
        "on Defend. The side breaking through (role attacker) deploys in column at the centre "
        "within 15 cm of its long edge, the leader's command second behind a vanguard, all on "
        "Oppose with no Secret Order; its units follow the General Retreat rules but must "
        "cross the enemy and reach the enemy's deployment zone (30 cm from its long edge)."
    ),
}


def build_pack(
    state: CampaignState,
    *,
    battle_id: str,
    contact_order: int,
    square: Coord,
    side_a: Sequence[Force],
    side_b: Sequence[Force],
    dice: Dice,
    scenario: str | None = None,
    entered_from: Mapping[str, Coord] | None = None,
) -> tuple[BattlePack, tuple[Force, ...]]:
    """The pack of one battle. `side_a` holds the forces of the side that made the contact
    (its contacting force first), `side_b` the others; `scenario` is the one declared during
    movement (flank-attack, ambush), if any. Returns the pack and the forces whose field-works
    quota was fixed now (R7.8.6), for the caller to store.

    Dice, in order: the five scenery rolls (when `random_scenery`), then one ammunition roll
    per missile unit of a Confused or Unsteady force, side a first."""
    opts = state.options
    entered_from = entered_from or {}
    features = state.map.features_at(square)
    scenery = _scenery(dice, battle_id) if opts.random_scenery else {}
    roles = ("", "")
    if opts.special_scenarios:
        scenario, roles = _scenario(scenario, side_a, side_b)
    else:
        scenario = None
    updated: list[Force] = []
    sides = []
    for forces, role in ((side_a, roles[0]), (side_b, roles[1])):
        bforces = []
        for f in forces:
            bf, new = _battle_force(dice, battle_id, square, f, entered_from.get(f.id))
            bforces.append(bf)
            if new is not None:
                updated.append(new)
        sides.append(_side(state, square, forces, tuple(bforces), role, scenario))
    weather = _weather(state, [*side_a, *side_b])
    pack = BattlePack(
        battle_id=battle_id,
        turn=state.turn,
        square=square,
        features=tuple(sorted(f.value for f in features)),
        setup_rule=setup_rule(features, opts.every_other_reading, opts.naran_terrain),
        scenery=scenery,
        scenario=scenario,
        scenario_rules=SCENARIO_RULES.get(scenario, "") if scenario else "",
        sides=tuple(sides),
        weather=weather.value,
        weather_effects=_weather_effects(state, weather),
        gr_modifiers={h: gr_command_test_modifier(h) for h in (1, 2, 3, 4)},  # R7.9.12
        max_turns=opts.battle_max_turns,  # R7.2.2
        contact_order=contact_order,  # R6.7.5
        holding_feature=_holding_feature(state, square),
        terrain_annex=_terrain_annex(features) if opts.naran_battle_terrain else (),
    )
    return pack, tuple(updated)


def _terrain_annex(features: frozenset[Feature]) -> tuple[str, ...]:
    """§7.11 [NARAN]: the annex's topics the square's features bring to the table."""
    names = {f.value for f in features}
    return tuple(topic for topic, where in T.TERRAIN_ANNEX if names & where)


def _holding_feature(state: CampaignState, square: Coord) -> dict[str, str]:
    """R2.4 [NARAN]: the feature of the holding fought over, and whom it serves here. Its
    magic objects work only in this square: they serve their holder (R8.7.1: the owner, or
    the victor who took them). [SR] The free characters (R2.4.2: the first owner's, granted
    once) stay at their site, as the Sacred Wood's Wizard guards it with the Golem: they fight
    here for the first owner while he holds the holding. A sacked or carried-off holding
    gives nothing (§11.6)."""
    h = state.holding_at(square)
    if not state.options.holding_features or h is None or not h.feature:
        return {}
    if h.sacked or h.destroyed or h.carried_by:
        return {}
    arcana = h.feature in T.ARS_ARCANA_FEATURES
    first = h.original_owner if h.owner == h.original_owner else ""
    return {
        "holding": h.id,
        "feature": h.feature,
        # R2.4.2: a Village, City or Mine serves only its first owner, while he holds it
        "objects_with": (h.artefacts_holder or h.owner) if arcana else first,
        "characters_with": first,
    }


def setup_rule_features(
    features: Iterable[Feature | str], reading: str = "all", naran: bool = True
) -> tuple[tuple[Feature, bool], ...]:
    """§7.6: the features of the square whose set-up rule applies, in order, each with
    whether it is read the alternate way (A-28: `every_other_reading = alternate` reads
    forest/swamp as "every second feature"); none for a plain set-up. The web words them."""
    present = {Feature(f) for f in features if f in Feature._value2member_map_}
    out: list[tuple[Feature, bool]] = []
    for feat in SETUP_ORDER:
        if feat not in present or feat not in T.SETUP_RULES:
            continue
        if feat is Feature.JUNGLE and Feature.FOREST in present:
            continue  # jungle counts as forest (§6.3): one rule
        if feat is Feature.HILL and not naran:
            continue  # hill is a Naran terrain type (R2.1.2)
        out.append((feat, reading == "alternate" and feat in T.SETUP_ALTERNATE))
    return tuple(out)


def setup_rule(features: frozenset[Feature], reading: str = "all", naran: bool = True) -> str:
    """§7.6: one rule per feature of the square, joined; plain set-up when none applies."""
    rules = [
        T.SETUP_ALTERNATE[feat] if alternate else T.SETUP_RULES[feat]
        for feat, alternate in setup_rule_features(features, reading, naran)
    ]
    return " ".join(rules) if rules else T.SETUP_PLAIN


def _scenery(dice: Dice, battle_id: str) -> dict[str, str]:
    """§7.7 random scenery: 1D6 per natural sub-table (A-29), 2D6 for artificial works. Sub-
    rolls inside a result (sacred wood, mine/ruins/cemetery, farm/village) are made at the
    table when the feature is placed."""
    out: dict[str, str] = {}
    for name, count, rule, table in SCENERY:
        rec = dice.roll(
            purpose=f"battle:{battle_id}:scenery-{name}",
            rule=rule,
            count=count,
            judge=_table_judge(table),
        )
        out[name] = table[rec.total or 0]
    return out


def _table_judge(table: Mapping[int, str]) -> Judge:
    """A scenery roll's outcome: its row of the §7.7 table."""
    return lambda t, _n: ("scenery", {"feature": table[t]})


def _scenario(
    declared: str | None, side_a: Sequence[Force], side_b: Sequence[Force]
) -> tuple[str | None, tuple[str, str]]:
    """§7.10 scenario and the (side a, side b) roles. Declared scenarios (flank attack, ambush)
    come first; then Final Massacre, Breakthrough, Chance Encounter. Raid (§7.10.1) is a
    player's declaration instead of a capture and is not triggered automatically."""
    if declared == "flank-attack":
        return declared, ("attacker", "defender")
    if declared == "ambush":
        return declared, ("ambusher", "ambushed")
    # §7.10.6 / A-52: surrounded by ≥ 2 enemy forces with ≥ 2× its (current) points. [SR] A
    # side of several forces counts as one; without points data, figures are compared.
    use_points = any(f.points for f in (*side_a, *side_b))

    def strength(fs: Sequence[Force]) -> int:
        return sum(f.points if use_points else f.figures for f in fs)

    if len(side_a) >= 2 and strength(side_a) >= 2 * strength(side_b) > 0:
        return "final-massacre", ("attacker", "defender")
    if len(side_b) >= 2 and strength(side_b) >= 2 * strength(side_a) > 0:
        return "final-massacre", ("defender", "attacker")
    # §7.10.2 [SR]: a side carrying loot tries to break through the side blocking it.
    if any(f.carries_loot for f in side_a):
        return "breakthrough", ("attacker", "defender")
    if any(f.carries_loot for f in side_b):
        return "breakthrough", ("defender", "attacker")
    # §7.10.3: both sides under Full Speed.
    if all(f.status is Status.FULL_SPEED for f in (*side_a, *side_b)):
        return "chance-encounter", ("", "")
    return None, ("", "")


def _battle_force(
    dice: Dice, battle_id: str, square: Coord, f: Force, came_from: Coord | None
) -> tuple[BattleForce, Force | None]:
    """R7.8.1–3 unit start states and ammunition; R7.8.4/R7.8.6 field works for Defend."""
    disorganised = f.status in (Status.CONFUSED, Status.UNSTEADY)
    demoralised = f.status is Status.UNSTEADY
    units = []
    for u in f.units:
        ammo = None
        if u.has_missiles:
            ammo, _ = ammo_tokens(dice, purpose=f"battle:{battle_id}:ammo-{u.id}", status=f.status)
        units.append(UnitStart(u.id, disorganised, demoralised, ammo))
    quota, built, updated = 0, 0, None
    if f.status is Status.DEFEND:
        if f.works_quota is not None and f.works_square == square:
            # R7.8.6: not cumulative: what is left of the quota fixed at the first build
            built = f.works_built
            quota = max(f.works_quota - built, 0)
        else:
            quota = field_works_quota(f.figures)
            updated = replace(f, works_quota=quota, works_square=square)
    bf = BattleForce(
        force_id=f.id,
        owner=f.owner,
        status=f.status,
        figures=f.figures,
        points=f.points,
        entered_from=came_from,
        units=tuple(units),
        works_quota=quota,
        works_built=built,
    )
    return bf, updated


def _side(
    state: CampaignState,
    square: Coord,
    forces: Sequence[Force],
    bforces: tuple[BattleForce, ...],
    role: str,
    scenario: str | None,
) -> BattleSide:
    """§7.5: territory for the side's first player, its scouting and modifier. Special
    scenarios suppress scouting (§7.10)."""
    players = tuple(dict.fromkeys(f.owner for f in forces))
    territory = state.territory(players[0], square)
    if scenario:
        scouting, mod = "none", 0
    else:
        scouting = max((SCOUTING[f.status] for f in forces), key=SCOUTING_RANK.__getitem__)
        mod = SCOUTING_TERRITORY_MOD[territory]
    return BattleSide(
        side=state.side_of(players[0]),
        players=players,
        forces=bforces,
        territory=territory.value,
        scouting=scouting,
        scouting_modifier=mod,
        role=role,
    )


def _weather(state: CampaignState, forces: Sequence[Force]) -> Weather:
    """The turn's weather; with one roll per force, the worst among the participants [SR]."""
    if not state.options.weather_per_force or not state.force_weather:
        return state.weather
    order = list(Weather)
    return max((state.weather_for(f.id) for f in forces), key=order.index)


def _weather_effects(state: CampaignState, weather: Weather) -> dict[str, object]:
    """R4.2 battle effects; with `storm_ends_battle` (A-60) a storm ends the battle at once as
    a stalemate instead of interrupting it for one turn."""
    effects: dict[str, object] = dict(T.WEATHER_BATTLE_EFFECTS[weather])
    if weather is Weather.STORM and state.options.storm_ends_battle:
        effects = {"battle_ends_as_stalemate": True}
    return effects
