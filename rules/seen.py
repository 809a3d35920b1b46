"""Who may see an event under fog of war: what each event class of `rules.events` declares
(`fog`), and what `campaign.fog` reads. The engine itself hides nothing."""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from types import MappingProxyType


class Seen(Enum):
    """Who may see an event (the game master, and everyone when there is no fog of war,
    sees every event)."""

    PUBLIC = "public"  # everyone: map-wide (snow, the day, a surrender, the end)
    SUBJECTS = "subjects"  # the sides that see one of its subjects (`Named.subject`)
    # everyone when it names no subject (the map's weather), else as SUBJECTS (a force's)
    SUBJECTS_OR_PUBLIC = "subjects-or-public"
    # what a force does in its own camp: the sides one of its subjects belongs to (their
    # forces and members, their players, a battle they fought, a holding they own or watch),
    # even when another side sees the force on the map
    OWN_SIDE = "own-side"
    GM = "gm"  # the game master only


class Named(Enum):
    """What one of an event's fields names: whether it makes the event a side's (a subject)
    and what is removed from the event when hidden from that side."""

    FORCE = "force"  # the force the event is about: its side sees its squares and path whole
    OTHER_FORCE = "other-force"  # another force (the one that did it to the first)
    FORCES = "forces"  # a list of forces: the hidden ones leave it
    MEMBER = "member"  # a unit, general, command or character (of a force)
    PLAYER = "player"
    HOLDING = "holding"
    PLACE = "place"  # a holding named only as where: not a subject (its force makes it seen)
    BATTLE = "battle"
    SQUARE = "square"  # where the event's force was: shown to a side that watched it
    PATH = "path"  # the event's force's path: a side keeps only the squares it watched

    @property
    def subject(self) -> bool:
        """A field of this kind makes the event visible to the sides that see what it names
        (or, for `Seen.OWN_SIDE`, to the side whose own it is)."""
        return self not in (Named.PLACE, Named.SQUARE, Named.PATH)


class Fog:
    """An event class's declaration: who may see it, and what its fields name (field →
    `Named`; every field that holds an id, a square or a path is one of them)."""

    __slots__ = ("names", "seen")

    def __init__(self, seen: Seen, /, **names: Named) -> None:
        self.seen = seen
        self.names: Mapping[str, Named] = MappingProxyType(names)

    def __repr__(self) -> str:
        names = "".join(f", {k}={v}" for k, v in self.names.items())
        return f"Fog({self.seen}{names})"
