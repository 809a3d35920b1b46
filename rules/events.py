"""Turn events: past-tense records of what happened, for the report and for replay checks.

Each event is a frozen dataclass; `to_dict()` adds its type name. Events carry the rule id
that decided them.

Each event class declares, first in its body, who may see it under fog of war and what its
fields name (`fog = Fog(Seen…, field=Named…)`, rules.seen). `campaign.fog` reads those
declarations and nothing else; `Event` has none, so a class that forgets its own is found
(tests/campaign/test_fog_declarations.py) and, until then, shown to the game master only.
"""

from __future__ import annotations

from dataclasses import MISSING, asdict, dataclass, fields
from typing import Any, ClassVar

from rules.seen import Fog, Named, Seen


@dataclass(frozen=True, slots=True)
class Event:
    phase: ClassVar[str] = ""
    fog: ClassVar[Fog]  # no default: each class declares its own (see the module text)

    def to_dict(self) -> dict[str, Any]:
        d = {"type": type(self).__name__}
        for f in fields(self):
            v = getattr(self, f.name)
            d[f.name] = _plain(v)
        return d


def _plain(v: Any) -> Any:
    if isinstance(v, tuple | list):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if hasattr(v, "__dataclass_fields__"):
        return _plain(asdict(v))
    return v


# --- Phase 0 ---
@dataclass(frozen=True, slots=True)
class WeatherRolled(Event):
    fog: ClassVar[Fog] = Fog(Seen.SUBJECTS_OR_PUBLIC, force_id=Named.FORCE)
    weather: str
    total: int
    force_id: str | None = None
    rule: str = "R4.2"


@dataclass(frozen=True, slots=True)
class WeatherShifted(Event):
    """R4.4.3: a force's Wizard moved the weather of its own movement (not the map's)."""

    fog: ClassVar[Fog] = Fog(Seen.SUBJECTS, force_id=Named.FORCE)
    force_id: str
    weather_from: str
    weather_to: str
    rule: str = "R4.4.3"


@dataclass(frozen=True, slots=True)
class SnowFell(Event):
    fog: ClassVar[Fog] = Fog(Seen.PUBLIC)
    levels: int
    total_levels: int
    mountains_only: bool = False
    rule: str = "R4.3.2"


# --- Phase 1 ---
@dataclass(frozen=True, slots=True)
class ForceTested(Event):
    fog: ClassVar[Fog] = Fog(Seen.OWN_SIDE, force_id=Named.FORCE)
    force_id: str
    requested: str
    outcome: str
    old_status: str
    new_status: str | None
    total: int
    rule: str = "R5.2"


@dataclass(frozen=True, slots=True)
class ForceDestroyed(Event):
    fog: ClassVar[Fog] = Fog(Seen.SUBJECTS, force_id=Named.FORCE, owner=Named.PLAYER)
    force_id: str
    owner: str
    reason: str
    rule: str


# --- Phase 2 ---
@dataclass(frozen=True, slots=True)
class InitiativeDetermined(Event):
    fog: ClassVar[Fog] = Fog(Seen.SUBJECTS, order=Named.FORCES)
    method: str
    order: tuple[str, ...]
    rule: str = "R6.1"


@dataclass(frozen=True, slots=True)
class ArmyInitiativeChosen(Event):
    """R6.1.2: the winner of the initiative by army moves all his forces first or last."""

    fog: ClassVar[Fog] = Fog(Seen.PUBLIC, player_id=Named.PLAYER)
    player_id: str
    choice: str  # "first" / "last"
    rule: str = "R6.1.2"


@dataclass(frozen=True, slots=True)
class MovementRolled(Event):
    fog: ClassVar[Fog] = Fog(Seen.OWN_SIDE, force_id=Named.FORCE)
    force_id: str
    total: int | None
    allowance: int
    rule: str = "R6.2"


@dataclass(frozen=True, slots=True)
class ForceMoved(Event):
    fog: ClassVar[Fog] = Fog(Seen.SUBJECTS, force_id=Named.FORCE, path=Named.PATH)
    force_id: str
    path: tuple[tuple[int, int], ...]
    reason: str = "movement"
    rule: str = "R6.4"


@dataclass(frozen=True, slots=True)
class ForceStopped(Event):
    fog: ClassVar[Fog] = Fog(Seen.SUBJECTS, force_id=Named.FORCE, square=Named.SQUARE)
    force_id: str
    square: tuple[int, int]
    reason: str
    rule: str


@dataclass(frozen=True, slots=True)
class ForceHeldByStorm(Event):
    fog: ClassVar[Fog] = Fog(Seen.SUBJECTS, force_id=Named.FORCE)
    force_id: str
    rule: str = "R4.2"


@dataclass(frozen=True, slots=True)
class ForceCountermarched(Event):
    fog: ClassVar[Fog] = Fog(Seen.SUBJECTS, force_id=Named.FORCE, frm=Named.SQUARE, to=Named.SQUARE)
    force_id: str
    frm: tuple[int, int]
    to: tuple[int, int]
    old_status: str
    new_status: str
    rule: str = "R6.5"


@dataclass(frozen=True, slots=True)
class ContactMade(Event):
    fog: ClassVar[Fog] = Fog(
        Seen.SUBJECTS,
        force_id=Named.FORCE,
        enemy_ids=Named.FORCES,
        square=Named.SQUARE,
        battle_id=Named.BATTLE,
    )
    force_id: str
    enemy_ids: tuple[str, ...]
    square: tuple[int, int]
    battle_id: str
    rule: str = "R6.7"


@dataclass(frozen=True, slots=True)
class ShatteredForceCollapsed(Event):
    fog: ClassVar[Fog] = Fog(
        Seen.SUBJECTS,
        force_id=Named.FORCE,
        owner=Named.PLAYER,
        by_force_id=Named.OTHER_FORCE,
        square=Named.SQUARE,
    )
    force_id: str
    owner: str
    by_force_id: str
    square: tuple[int, int]
    rule: str = "R6.7.8"


@dataclass(frozen=True, slots=True)
class HoldingCaptured(Event):
    fog: ClassVar[Fog] = Fog(
        Seen.SUBJECTS,
        holding_id=Named.HOLDING,
        by_player=Named.PLAYER,
        from_player=Named.PLAYER,
        force_id=Named.FORCE,
    )
    holding_id: str
    by_player: str
    from_player: str
    force_id: str | None
    capital: bool
    rule: str = "R6.8.1"


@dataclass(frozen=True, slots=True)
class HoldingSacked(Event):
    fog: ClassVar[Fog] = Fog(Seen.SUBJECTS, holding_id=Named.HOLDING, force_id=Named.FORCE)
    holding_id: str
    force_id: str
    rule: str = "§11.6"


@dataclass(frozen=True, slots=True)
class OrdersMissing(Event):
    """A force acted under the missing-orders policy (holds status, does not move)."""

    fog: ClassVar[Fog] = Fog(Seen.SUBJECTS, force_id=Named.FORCE, owner=Named.PLAYER)
    force_id: str
    owner: str
    rule: str = "[SR] missing orders"


# --- Phase 4 ---
@dataclass(frozen=True, slots=True)
class BattleResolved(Event):
    fog: ClassVar[Fog] = Fog(Seen.SUBJECTS, battle_id=Named.BATTLE, square=Named.SQUARE)
    battle_id: str
    square: tuple[int, int]
    outcomes: dict[str, str]
    rule: str = "R7.3"


@dataclass(frozen=True, slots=True)
class WoundedChecked(Event):
    fog: ClassVar[Fog] = Fog(Seen.SUBJECTS, force_id=Named.FORCE, unit_id=Named.MEMBER)
    force_id: str
    unit_id: str
    checked: int
    recovered: int
    dead: int
    rule: str = "R8.1"


@dataclass(frozen=True, slots=True)
class DesertersChecked(Event):
    fog: ClassVar[Fog] = Fog(Seen.SUBJECTS, force_id=Named.FORCE, unit_id=Named.MEMBER)
    force_id: str
    unit_id: str
    checked: int
    returned: int
    deserted: int
    automatic: bool = False  # mercenaries of a losing side (R8.2.3)
    rule: str = "R8.2"


@dataclass(frozen=True, slots=True)
class IndividualLost(Event):
    fog: ClassVar[Fog] = Fog(Seen.SUBJECTS, force_id=Named.FORCE, individual_id=Named.MEMBER)
    force_id: str
    individual_id: str
    fate: str
    rule: str = "R8.1.2"


@dataclass(frozen=True, slots=True)
class ReactionSuffered(Event):
    fog: ClassVar[Fog] = Fog(Seen.SUBJECTS, force_id=Named.FORCE)
    force_id: str
    old_status: str
    new_status: str
    rule: str = "R8.5"


@dataclass(frozen=True, slots=True)
class LootLost(Event):
    fog: ClassVar[Fog] = Fog(Seen.SUBJECTS, force_id=Named.FORCE, holding_id=Named.HOLDING)
    force_id: str
    holding_id: str
    rule: str = "§11.6 rule 4"


@dataclass(frozen=True, slots=True)
class LeaderPromoted(Event):
    fog: ClassVar[Fog] = Fog(Seen.OWN_SIDE, force_id=Named.FORCE, general_id=Named.MEMBER)
    force_id: str
    general_id: str
    source: str
    rule: str = "R8.6"


@dataclass(frozen=True, slots=True)
class WorksLost(Event):
    fog: ClassVar[Fog] = Fog(Seen.SUBJECTS, force_id=Named.FORCE)
    force_id: str
    rule: str = "R7.8.5"


# --- Phases 5–8 ---
@dataclass(frozen=True, slots=True)
class WillToFightTested(Event):
    fog: ClassVar[Fog] = Fog(Seen.SUBJECTS, player_id=Named.PLAYER)
    player_id: str
    total: int
    passed: bool
    triggers: tuple[str, ...]
    rule: str = "R9.1"


@dataclass(frozen=True, slots=True)
class PlayerSurrendered(Event):
    fog: ClassVar[Fog] = Fog(Seen.PUBLIC, player_id=Named.PLAYER)
    player_id: str
    rule: str = "R9.1"


@dataclass(frozen=True, slots=True)
class DayAdvanced(Event):
    fog: ClassVar[Fog] = Fog(Seen.PUBLIC)
    day: int
    rule: str = "R9.2"


@dataclass(frozen=True, slots=True)
class ReinforcementsAvailable(Event):
    fog: ClassVar[Fog] = Fog(Seen.SUBJECTS, player_id=Named.PLAYER)
    player_id: str
    points: int
    bank: int
    rule: str = "R9.3"


@dataclass(frozen=True, slots=True)
class ReinforcementsArrived(Event):
    """What arrived (units as "figures type", then the general's and characters' names)
    and where: the capital (`capital_id`, not a subject: the force makes it visible)."""

    fog: ClassVar[Fog] = Fog(
        Seen.OWN_SIDE, player_id=Named.PLAYER, force_id=Named.FORCE, capital_id=Named.PLACE
    )
    player_id: str
    force_id: str
    joined: bool
    points: int
    rule: str = "R9.3.3"
    units: tuple[str, ...] = ()
    people: tuple[str, ...] = ()
    capital_id: str = ""
    request: int | None = None  # its place in `PlayerOrders.reinforcements`


@dataclass(frozen=True, slots=True)
class RandomEvent(Event):
    fog: ClassVar[Fog] = Fog(Seen.SUBJECTS, player_id=Named.PLAYER)
    player_id: str
    table: str
    event: str
    total: int
    rule: str = "§9.4"
    # what the event did is told by the events after it; `outcome` (rules.event_codes) says
    # what kept it from happening, with `count` of `kind` lost; `kept`: the player kept a
    # "roll again" result; `day` and `role`: a scenario key day's table (§11.8)
    outcome: str = "done"
    kept: bool = False
    kind: str = ""
    count: int = 0
    day: int | None = None
    role: str = ""


@dataclass(frozen=True, slots=True)
class ShipsReceived(Event):
    """R6.11.2: a force on Defend in its port received its free ships."""

    fog: ClassVar[Fog] = Fog(Seen.OWN_SIDE, force_id=Named.FORCE, holding_id=Named.PLACE)
    force_id: str
    holding_id: str
    ships: int
    total: int
    rule: str = "R6.11.2"


@dataclass(frozen=True, slots=True)
class CraftReceived(Event):
    """R6.11.5: a force on Defend at its holding in a forest by a river built its free boats
    and rafts."""

    fog: ClassVar[Fog] = Fog(Seen.OWN_SIDE, force_id=Named.FORCE, holding_id=Named.PLACE)
    force_id: str
    holding_id: str
    boats: int
    rafts: int
    rule: str = "R6.11.5"


@dataclass(frozen=True, slots=True)
class SupplyConvoy(Event):
    """R9.3.9: a supply convoy reached the player on its schedule, with the effect its
    scenario gives it (`event` "none": the book gives it none)."""

    fog: ClassVar[Fog] = Fog(Seen.SUBJECTS, player_id=Named.PLAYER)
    player_id: str
    day: int
    event: str
    rule: str = "R9.3.9"
    outcome: str = "done"  # as RandomEvent's
    kind: str = ""
    count: int = 0


@dataclass(frozen=True, slots=True)
class CampaignEnded(Event):
    fog: ClassVar[Fog] = Fog(Seen.PUBLIC)
    reason: str
    winner: str | None
    rule: str


@dataclass(frozen=True, slots=True)
class OrderRefused(Event):
    """A standing order the rules do not allow at resolution time (it is ignored)."""

    fog: ClassVar[Fog] = Fog(Seen.OWN_SIDE, force_id=Named.FORCE)
    force_id: str
    reason: str
    rule: str


# --- Phases 4–8 additions ---
@dataclass(frozen=True, slots=True)
class RegroupSpent(Event):
    """R8.3.2: a force's pool bought figures for one of its units; R8.3.3, with
    `new_unit_id`: it formed a new unit of that unit's type."""

    fog: ClassVar[Fog] = Fog(
        Seen.OWN_SIDE, force_id=Named.FORCE, unit_id=Named.MEMBER, new_unit_id=Named.MEMBER
    )
    force_id: str
    unit_id: str
    figures: int
    speciality: str
    points: int
    pool: int
    new_unit_id: str = ""
    rule: str = "R8.3.2"


@dataclass(frozen=True, slots=True)
class RegroupPooled(Event):
    """Recovered figures' points joined a force's pool of one speciality."""

    fog: ClassVar[Fog] = Fog(Seen.OWN_SIDE, force_id=Named.FORCE)
    force_id: str
    speciality: str
    points: int
    pool: int
    rule: str = "R8.3"


@dataclass(frozen=True, slots=True)
class ArtefactsCaptured(Event):
    fog: ClassVar[Fog] = Fog(
        Seen.SUBJECTS, holding_id=Named.HOLDING, by_player=Named.PLAYER, from_player=Named.PLAYER
    )
    holding_id: str
    feature: str
    by_player: str
    from_player: str
    rule: str = "R8.7"


@dataclass(frozen=True, slots=True)
class ReinforcementsRefused(Event):
    """A reinforcement delivery (`request` None) or one standing request that could not be
    carried out; any points stay in the bank. Its cost and the bank are the side's own
    business, even when the force it was for is in an enemy's sight."""

    fog: ClassVar[Fog] = Fog(Seen.OWN_SIDE, player_id=Named.PLAYER, force_id=Named.FORCE)
    player_id: str
    request: int | None
    reason: str
    rule: str
    # the reason's parameters (rules.event_codes.REINFORCEMENTS_REFUSED)
    force_id: str = ""
    cost: int | None = None
    bank: int | None = None
    units: tuple[str, ...] = ()
    status: str = ""


@dataclass(frozen=True, slots=True)
class BankChanged(Event):
    fog: ClassVar[Fog] = Fog(Seen.SUBJECTS, player_id=Named.PLAYER)
    player_id: str
    change: int
    bank: int
    reason: str
    rule: str


@dataclass(frozen=True, slots=True)
class IndividualJoined(Event):
    fog: ClassVar[Fog] = Fog(Seen.SUBJECTS, force_id=Named.FORCE, individual_id=Named.MEMBER)
    force_id: str
    individual_id: str
    kind: str
    rule: str
    magic_points: int = 0  # a Wizard's, when he joins


@dataclass(frozen=True, slots=True)
class LeaderCvChanged(Event):
    fog: ClassVar[Fog] = Fog(Seen.OWN_SIDE, force_id=Named.FORCE, general_id=Named.MEMBER)
    force_id: str
    general_id: str
    old_cv: int
    new_cv: int
    rule: str


@dataclass(frozen=True, slots=True)
class TokensGained(Event):
    fog: ClassVar[Fog] = Fog(Seen.OWN_SIDE, force_id=Named.FORCE)
    force_id: str
    kind: str
    count: int
    rule: str


@dataclass(frozen=True, slots=True)
class ForcePointsLost(Event):
    fog: ClassVar[Fog] = Fog(Seen.SUBJECTS, force_id=Named.FORCE)
    force_id: str
    points: int
    figures: int
    reason: str
    rule: str


@dataclass(frozen=True, slots=True)
class CaptureBlocked(Event):
    fog: ClassVar[Fog] = Fog(Seen.SUBJECTS, holding_id=Named.HOLDING, force_id=Named.FORCE)
    holding_id: str
    force_id: str
    reason: str
    rule: str = "R2.3.6"


@dataclass(frozen=True, slots=True)
class AttritionSuffered(Event):
    fog: ClassVar[Fog] = Fog(Seen.SUBJECTS, force_id=Named.FORCE, unit_id=Named.MEMBER)
    force_id: str
    unit_id: str
    lost: int
    recovered: int
    deserted: int
    rule: str = "R6.10"


@dataclass(frozen=True, slots=True)
class MagicPointsGained(Event):
    """A Wizard of the force received magic points (§9.4.1 17)."""

    fog: ClassVar[Fog] = Fog(Seen.OWN_SIDE, force_id=Named.FORCE, individual_id=Named.MEMBER)
    force_id: str
    individual_id: str
    points: int
    rule: str


@dataclass(frozen=True, slots=True)
class EpidemicStruck(Event):
    """An epidemic struck one of the player's holdings (§9.4.3 4, the owner's choice, A-41);
    the points it cost follow as BankChanged and ForcePointsLost. The holding is where, not
    who: a side that watches it does not read the owner's misfortune."""

    fog: ClassVar[Fog] = Fog(Seen.SUBJECTS, player_id=Named.PLAYER, holding_id=Named.PLACE)
    player_id: str
    holding_id: str
    rule: str


@dataclass(frozen=True, slots=True)
class CatastropheStruck(Event):
    """A catastrophe struck a square of the player's (§9.4.3 6); its losses follow."""

    fog: ClassVar[Fog] = Fog(Seen.SUBJECTS, player_id=Named.PLAYER, square=Named.SQUARE)
    player_id: str
    square: tuple[int, int]
    rule: str


# --- construction -----------------------------------------------------------------------------
# A turn makes hundreds of events, and a frozen dataclass's `__init__` sets each field with
# `object.__setattr__`, several times a plain store. Each event class gets an `__init__` that
# turns the new instance into a plain twin class (same slots, same base), stores the fields
# and gives the instance its class back: the same object, fields and signature; instances
# stay frozen (the class's own `__setattr__` still refuses). `Event` itself has no field to
# guard: its frozen `__setattr__` goes, so that the twins' stores are plain.
del Event.__setattr__, Event.__delattr__


def _plain_init(cls: type[Event]) -> None:
    params, lines = [], []
    scope: dict[str, Any] = {"set_class": object.__setattr__, "cls": cls}
    for f in fields(cls):
        if f.default is MISSING:
            params.append(f.name)
        else:
            scope[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        lines.append(f"    self.{f.name} = {f.name}\n")
    scope["twin"] = type(f"_{cls.__name__}Init", (Event,), {"__slots__": cls.__slots__})
    src = (
        f"def __init__(self, {', '.join(params)}):\n"
        '    set_class(self, "__class__", twin)\n' + "".join(lines) + "    self.__class__ = cls\n"
    )
    exec(src, scope)  # noqa: S102 (built from the class's own field names)
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init  # type: ignore[method-assign]


for _cls in [c for c in globals().values() if isinstance(c, type) and issubclass(c, Event)]:
    if _cls is not Event and fields(_cls) and _cls.__bases__ == (Event,):
        _plain_init(_cls)


# every event class by its type name (`to_dict()["type"]`): how a stored event finds its
# declarations
EVENT_TYPES: dict[str, type[Event]] = {
    c.__name__: c
    for c in list(globals().values())
    if isinstance(c, type) and issubclass(c, Event) and c is not Event
}
