"""Each event class declares who may see it and what its fields name (`fog`, rules.seen), and
fog of war (campaign.fog) reads those declarations: no event is shown by default (issue 29).

The lens is built by hand, as in test_fog_lens.py: side A owns f1 and f2 (f2 an ally's), sees
the enemy's f3, and does not see the enemy's f4; it watches the squares (1, 1) and (2, 2)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest

from campaign.fog import Lens, event_scrub, event_visible
from rules import EVENT_TYPES, Fog, Named, Seen
from rules import events as rules_events
from rules.events import Event

LENS = Lens(
    everything=False,
    forces=frozenset({"f1", "f2", "f3", "f4"}),
    seen_forces=frozenset({"f1", "f2", "f3"}),
    own_forces=frozenset({"f1", "f2"}),
    member_force={"f1u1": "f1", "f3u1": "f3", "f3g1": "f3", "f4u1": "f4"},
    players=frozenset({"pa", "pa2", "pb"}),
    own_players=frozenset({"pa", "pa2"}),
    battles=frozenset({"t1-b1", "t1-b2"}),
    seen_battles=frozenset({"t1-b1"}),
    watched=frozenset({(1, 1), (2, 2)}),
)
GM = Lens(everything=True)
# an observer who follows no side: only what is map-wide
NO_SIDE = Lens(
    everything=False,
    forces=LENS.forces,
    member_force=LENS.member_force,
    players=LENS.players,
    battles=LENS.battles,
)

# field names that hold an id, a square or a path: each must be declared
ID_NAMES = frozenset({"square", "frm", "to", "path", "owner", "order", "by_player", "from_player"})


def _id_bearing(name: str) -> bool:
    return name.endswith(("_id", "_ids")) or name in ID_NAMES


def _event_classes() -> list[type[Event]]:
    return [
        c
        for c in vars(rules_events).values()
        if isinstance(c, type) and issubclass(c, Event) and c is not Event
    ]


# --- every class of rules/events.py declares -------------------------------------------------


def test_the_base_event_declares_nothing():
    """A class without its own declaration must be found, not given a default."""
    assert not hasattr(Event, "fog")


def test_every_event_class_is_known_by_its_type_name():
    assert {c.__name__: c for c in _event_classes()} == EVENT_TYPES
    assert len(EVENT_TYPES) > 40


def test_every_event_class_declares_who_sees_it_and_what_its_fields_name():
    problems: list[str] = []
    for cls in _event_classes():
        name = cls.__name__
        fog = vars(cls).get("fog")  # its own, never a parent's
        if not isinstance(fog, Fog):
            problems.append(f"{name}: no `fog: ClassVar[Fog] = Fog(Seen…, …)` declaration")
            continue
        fields = {f.name for f in dataclasses.fields(cls)}
        if "fog" in fields:
            problems.append(f"{name}: `fog` is a field, not a ClassVar")
        for field, named in fog.names.items():
            if field not in fields:
                problems.append(f"{name}: declares {field!r}, which is no field of it")
            if not isinstance(named, Named):
                problems.append(f"{name}: {field!r} declared as {named!r}, not a Named")
        for field in sorted(fields - set(fog.names)):
            if _id_bearing(field):
                problems.append(f"{name}: {field!r} names something but is not declared")
        if list(fog.names.values()).count(Named.FORCE) > 1:
            problems.append(f"{name}: more than one Named.FORCE (use Named.OTHER_FORCE)")
        needs_subject = fog.seen in (Seen.SUBJECTS, Seen.OWN_SIDE)
        if needs_subject and not any(n.subject for n in fog.names.values()):
            problems.append(f"{name}: {fog.seen} but no subject: nobody would see it")
    assert not problems, "\n".join(problems)


def test_the_walk_finds_a_class_that_declares_nothing_or_the_wrong_fields(monkeypatch):
    """The walk above fails for a class that forgot its declaration, declares a field it does
    not have, or leaves an id undeclared."""

    @dataclass(frozen=True, slots=True)
    class Forgotten(Event):
        force_id: str

    @dataclass(frozen=True, slots=True)
    class Misdeclared(Event):
        fog: ClassVar[Fog] = Fog(Seen.SUBJECTS, force=Named.FORCE)
        force_id: str
        square: tuple[int, int]

    monkeypatch.setattr(rules_events, "Forgotten", Forgotten, raising=False)
    monkeypatch.setattr(rules_events, "Misdeclared", Misdeclared, raising=False)
    with pytest.raises(AssertionError) as failed:
        test_every_event_class_declares_who_sees_it_and_what_its_fields_name()
    text = str(failed.value)
    assert "Forgotten: no `fog" in text
    assert "Misdeclared: declares 'force', which is no field of it" in text
    assert "Misdeclared: 'force_id' names something but is not declared" in text
    assert "Misdeclared: 'square' names something but is not declared" in text


# --- a throwaway event class, read through its declaration ---------------------------------


@dataclass(frozen=True, slots=True)
class PlotHatched(Event):
    """What a force plots in its own camp: its side's business only."""

    fog: ClassVar[Fog] = Fog(Seen.OWN_SIDE, force_id=Named.FORCE, general_id=Named.MEMBER)
    force_id: str
    general_id: str
    plot: str
    rule: str = "test"


@dataclass(frozen=True, slots=True)
class SpyCaught(Event):
    """A force caught another's spy: seen by the sides that see either force."""

    fog: ClassVar[Fog] = Fog(
        Seen.SUBJECTS,
        force_id=Named.FORCE,
        by_force_id=Named.OTHER_FORCE,
        spy_id=Named.MEMBER,
        square=Named.SQUARE,
        path=Named.PATH,
        battle_id=Named.BATTLE,
        witness_ids=Named.FORCES,
    )
    force_id: str
    by_force_id: str
    spy_id: str
    square: tuple[int, int]
    path: tuple[tuple[int, int], ...]
    battle_id: str
    witness_ids: tuple[str, ...]
    detail: str = ""
    rule: str = "test"


@dataclass(frozen=True, slots=True)
class OmenSeen(Event):
    """Something only the game master knows of."""

    fog: ClassVar[Fog] = Fog(Seen.GM, player_id=Named.PLAYER)
    player_id: str
    rule: str = "test"


@dataclass(frozen=True, slots=True)
class Undeclared(Event):
    """A class that forgot its declaration."""

    force_id: str
    rule: str = "test"


@pytest.fixture
def throwaway(monkeypatch):
    for cls in (PlotHatched, SpyCaught, OmenSeen, Undeclared):
        monkeypatch.setitem(EVENT_TYPES, cls.__name__, cls)


def _e(event: Event) -> dict[str, Any]:
    return event.to_dict()


def test_an_own_side_event_of_an_enemy_force_in_sight_is_hidden(throwaway):
    enemy = _e(PlotHatched("f3", "f3g1", "ambush"))
    ally = _e(PlotHatched("f2", "f2g1", "ambush"))
    assert not event_visible(LENS, enemy)  # f3 is in sight, yet its camp is its own
    assert event_visible(LENS, ally)  # an ally's plot: the side's own
    assert event_visible(GM, enemy)


def test_a_subjects_event_of_a_hidden_force_is_hidden(throwaway):
    hidden = _e(SpyCaught("f4", "f4", "f4u1", (5, 5), ((5, 5),), "t1-b2", ("f4",)))
    assert not event_visible(LENS, hidden)
    assert not event_visible(NO_SIDE, hidden)
    assert event_visible(GM, hidden)


def test_a_subjects_event_shown_keeps_nothing_hidden(throwaway):
    """f3 (in sight) caught a spy of the hidden f4 beyond the side's sight: the event is
    shown for f3, but f4, its spy, the battle the side did not fight, the squares it did
    not watch and the detail naming f4's unit are removed."""
    e = _e(
        SpyCaught(
            "f3",
            "f4",
            "f4u1",
            (5, 5),
            ((1, 1), (4, 4), (2, 2)),
            "t1-b2",
            ("f1", "f4", "f3"),
            detail="f4u1 confessed",
        )
    )
    assert event_visible(LENS, e)
    assert not event_visible(NO_SIDE, e)
    assert event_scrub(LENS, e) == {
        "type": "SpyCaught",
        "force_id": "f3",
        "by_force_id": None,
        "spy_id": None,
        "square": None,
        "path": [[1, 1], [2, 2]],
        "battle_id": None,
        "witness_ids": ["f1", "f3"],
        "detail": "",
        "rule": "test",
    }
    assert event_scrub(GM, e) == e


def test_the_squares_of_the_sides_own_force_are_shown_whole(throwaway):
    e = _e(SpyCaught("f1", "f3", "f3u1", (5, 5), ((4, 4), (5, 5)), "t1-b1", ()))
    scrubbed = event_scrub(LENS, e)
    assert (scrubbed["square"], scrubbed["path"]) == ([5, 5], [[4, 4], [5, 5]])
    assert (scrubbed["by_force_id"], scrubbed["spy_id"], scrubbed["battle_id"]) == (
        "f3",
        "f3u1",
        "t1-b1",
    )


def test_a_game_master_event_is_hidden_from_every_player(throwaway):
    own = _e(OmenSeen("pa"))  # even about the side's own player
    assert not event_visible(LENS, own)
    assert not event_visible(NO_SIDE, own)
    assert event_visible(GM, own)


def test_an_event_whose_class_declares_nothing_is_the_game_masters_only(throwaway):
    e = _e(Undeclared("f1"))  # the side's own force: still not shown
    assert not event_visible(LENS, e)
    assert event_visible(GM, e)
    assert not event_visible(LENS, {"type": "NoSuchEvent", "force_id": "f1"})


def test_the_map_weather_is_public_and_a_forces_weather_its_subjects():
    """Seen.SUBJECTS_OR_PUBLIC: the map's weather names no force."""
    assert event_visible(NO_SIDE, {"type": "WeatherRolled", "weather": "fine", "total": 7})
    force = {"type": "WeatherRolled", "weather": "fine", "total": 7, "force_id": "f4"}
    assert not event_visible(LENS, force)
    assert event_visible(LENS, {**force, "force_id": "f3"})


@pytest.mark.parametrize("kind", ["ShipsReceived", "CraftReceived"])
def test_an_enemy_port_watched_does_not_show_what_the_enemy_received_there(kind):
    """R6.11.2, R6.11.5: the ships and boats a force receives are its side's business; a side
    that watches the enemy's port (the holding is among its seen holdings) sees the force on
    the map, never what it was given (the holding is where, not who)."""
    lens = dataclasses.replace(LENS, holdings=frozenset({"h9"}), seen_holdings=frozenset({"h9"}))
    fields = {"ships": 2, "total": 2} if kind == "ShipsReceived" else {"boats": 1, "rafts": 1}
    enemy = EVENT_TYPES[kind](force_id="f3", holding_id="h9", **fields).to_dict()
    own = EVENT_TYPES[kind](force_id="f1", holding_id="h9", **fields).to_dict()
    assert not event_visible(lens, enemy)
    assert event_visible(lens, own)
