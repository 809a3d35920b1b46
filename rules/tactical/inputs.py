"""What the tactical engine needs: the battle pack plus the roster of every force in it.

A pack names units only by id, with their start states (R7.8.1–3); their speciality,
quality and figures live in the forces of the campaign state. `BattleInput` carries both,
with the campaign options (victory method, weather phase and season).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from rules.battle import BattlePack, PendingBattle
from rules.codec import FormatError, from_data, to_data
from rules.dice import Dice
from rules.errors import RulesError
from rules.types import (
    CampaignState,
    Command,
    Feature,
    Force,
    GameMap,
    General,
    Options,
    Player,
    Quality,
    Speciality,
    Status,
    Unit,
    Weather,
)

METHODS = ("core", "italian")  # R7.3; the English method needs the FW score


class TacticalError(RulesError):
    """A battle the engine cannot fight: inconsistent input or an unsupported option."""


@dataclass(frozen=True, slots=True)
class BattleInput:
    pack: BattlePack
    forces: tuple[Force, ...]
    options: Options = field(default_factory=Options)

    def force(self, force_id: str) -> Force:
        for f in self.forces:
            if f.id == force_id:
                return f
        raise TacticalError(f"battle {self.pack.battle_id}: no roster for force {force_id}")

    def to_data(self) -> dict[str, Any]:
        return {
            "pack": to_data(self.pack),
            "forces": [to_data(f) for f in self.forces],
            "options": to_data(self.options),
        }


def check_input(inp: BattleInput) -> None:
    """Raise `TacticalError` unless the engine can fight this battle."""
    bid = inp.pack.battle_id
    if len(inp.pack.sides) != 2:
        raise TacticalError(f"battle {bid}: a pack needs exactly two sides (a and b)")
    if inp.options.battle_result_method not in METHODS:
        raise TacticalError(
            f"battle {bid}: victory method {inp.options.battle_result_method!r} needs the FW "
            "core victory-point score (R7.3.5, A-27); the engine decides core or italian only"
        )
    if inp.pack.max_turns < 1:
        raise TacticalError(f"battle {bid}: max_turns must be at least 1 (R7.2)")
    if inp.pack.weather not in {w.value for w in Weather}:
        raise TacticalError(f"battle {bid}: unknown weather {inp.pack.weather!r} (R4.2)")
    seen: set[str] = set()
    for side in inp.pack.sides:
        for bf in side.forces:
            if bf.force_id in seen:
                raise TacticalError(f"battle {bid}: force {bf.force_id} is listed twice")
            seen.add(bf.force_id)
            units = {u.id for u in inp.force(bf.force_id).units}
            for us in bf.units:
                if us.unit_id not in units:
                    raise TacticalError(
                        f"battle {bid}: unit {us.unit_id} is not in the roster of force "
                        f"{bf.force_id}"
                    )
                if us.ammo is not None and us.ammo < 0:
                    raise TacticalError(f"battle {bid}: unit {us.unit_id} has negative ammo")


def battle_input_from_state(state: CampaignState, pending: PendingBattle) -> BattleInput:
    """The input for one pending battle of a state: its pack, each of its forces as they
    stand in the state (`state.force(id)`), and the campaign options."""
    forces = []
    for side in pending.pack.sides:
        for bf in side.forces:
            try:
                forces.append(state.force(bf.force_id))
            except KeyError:
                raise TacticalError(
                    f"battle {pending.battle_id}: force {bf.force_id} is no longer in play"
                ) from None
    inp = BattleInput(pending.pack, tuple(forces), state.options)
    check_input(inp)
    return inp


def battle_input_from_data(data: Any, battle_id: str | None = None) -> BattleInput:
    """Read either form documented in docs/tactical-engine.md:

    - `{"pack": <BattlePack>, "forces": [<Force>, ...], "options": {...}}` (options optional);
    - a campaign state waiting for battle results, or the whole output of `python -m rules
      turn` (its `state` is taken), with `battle_id` naming one of its pending battles (it may
      be left out when there is exactly one)."""
    if not isinstance(data, Mapping):
        raise TacticalError("the battle input must be a JSON object")
    if "pack" in data:
        unknown = set(data) - {"pack", "forces", "options"}
        if unknown:
            raise TacticalError(f"battle input: unknown field(s) {', '.join(sorted(unknown))}")
        try:
            pack = from_data(BattlePack, data["pack"], "pack")
            forces = from_data(tuple[Force, ...], data.get("forces", []), "forces")
            options = from_data(Options, data.get("options", {}), "options")
        except FormatError as e:
            raise TacticalError(str(e)) from None
        if battle_id is not None and battle_id != pack.battle_id:
            raise TacticalError(f"the input holds battle {pack.battle_id}, not {battle_id}")
        inp = BattleInput(pack, forces, options)
        check_input(inp)
        return inp
    doc = data["state"] if "state" in data and isinstance(data["state"], Mapping) else data
    try:
        state = from_data(CampaignState, doc, "state")
    except FormatError as e:
        raise TacticalError(str(e)) from None
    battles = {b.battle_id: b for b in state.pending_battles}
    if not battles:
        raise TacticalError("the state has no pending battle (run `turn` first)")
    if battle_id is None:
        if len(battles) != 1:
            raise TacticalError(
                "the state has several pending battles; name one with --battle: "
                + ", ".join(sorted(battles))
            )
        battle_id = next(iter(battles))
    if battle_id not in battles:
        raise TacticalError(
            f"no pending battle {battle_id}; the state has " + ", ".join(sorted(battles))
        )
    return battle_input_from_state(state, battles[battle_id])


def what_if_battle(
    side_a: Sequence[Force],
    side_b: Sequence[Force],
    dice: Dice,
    *,
    features: Iterable[Feature] = (),
    weather: Weather = Weather.FINE,
    options: Options | None = None,
    scenario: str | None = None,
    battle_id: str = "what-if",
) -> tuple[CampaignState, PendingBattle]:
    """A battle between the given forces on a neutral square: a one-square campaign state
    holding them, and the pending battle with the pack made by the campaign's own builder
    (`build_pack`: start states, ammunition and field works of R7.8, scouting of §7.5). For
    what-if questions, tests and benchmarks. `dice` rolls what the pack needs (ammunition
    of Confused and Unsteady missile units). With a `scenario` the option
    `special_scenarios` is switched on; the roles follow `build_pack` (side a attacks in a
    flank attack, ambushes in an ambush)."""
    from rules.phases.battle_pack import build_pack

    options = options or Options()
    if scenario:
        options = replace(options, special_scenarios=True)
    square = (1, 1)
    if {f.owner for f in side_a} & {f.owner for f in side_b}:
        raise TacticalError("a player cannot have forces on both sides")
    owners = {f.owner: "a" for f in side_a} | {f.owner: "b" for f in side_b}
    players = tuple(Player(pid, side) for pid, side in owners.items())
    feats = frozenset(features)
    state = CampaignState(
        turn=1,
        day=0,
        map=GameMap(3, 3, {square: feats} if feats else {}),
        players=players,
        holdings=(),
        forces=tuple(replace(f, square=square) for f in (*side_a, *side_b)),
        options=options,
        weather=weather,
    )
    a = tuple(state.force(f.id) for f in side_a)
    b = tuple(state.force(f.id) for f in side_b)
    pack, built = build_pack(
        state,
        battle_id=battle_id,
        contact_order=1,
        square=square,
        side_a=a,
        side_b=b,
        dice=dice,
        scenario=scenario,
    )
    for f in built:  # the field-works quota fixed now (R7.8.6)
        state = state.replace_force(f)
    pending = PendingBattle(battle_id, square, 1, pack)
    return replace(state, pending_battles=(pending,), phase="battles"), pending


def what_if(
    side_a: Sequence[Force],
    side_b: Sequence[Force],
    dice: Dice,
    **kwargs: Any,
) -> BattleInput:
    """`what_if_battle` as an engine input."""
    return battle_input_from_state(*what_if_battle(side_a, side_b, dice, **kwargs))


# The make-up assumed for an enemy force whose roster is unknown: the usual shape of an army
# (four foot units to one of missiles and one of horse), Average troops, one general of
# command value 3. Only its figures and status are what the viewer actually saw.
SEEN_MIX = (
    (Speciality.INFANTRY, 4),
    (Speciality.MISSILE, 1),
    (Speciality.CAVALRY, 1),
)
SEEN_QUALITY = Quality.AVERAGE
SEEN_POINTS_PER_FIGURE = 6
SEEN_CV = 3


def seen_force(force_id: str, owner: str, *, figures: int, status: Status, name: str = "") -> Force:
    """An estimate of an enemy force from what can be seen of it on the map (its figures and
    status): its figures spread over units of the usual mix (`SEEN_MIX`), Average quality,
    under one general. For what-if odds that must not reveal a roster the asker never saw."""
    if figures < 1:
        raise TacticalError(f"force {force_id}: an estimate needs at least one figure")
    kinds = [spec for spec, count in SEEN_MIX for _ in range(count)][:figures]
    base, extra = divmod(figures, len(kinds))
    units = tuple(
        Unit(
            f"{force_id}-seen{i + 1}",
            spec.value,
            spec,
            SEEN_QUALITY,
            base + (1 if i < extra else 0),
            SEEN_POINTS_PER_FIGURE,
        )
        for i, spec in enumerate(kinds)
    )
    general = General(f"{force_id}-seen-general", SEEN_CV)
    return Force(
        force_id,
        owner,
        (0, 0),
        status,
        (Command(f"{force_id}-seen-command", general, units),),
        name=name,
    )
