"""Readable names for the ids of a stage of a turn: forces, their units, generals and
characters, holdings, players and battles, as the turn report, the battle report and the
digest e-mail print them. A name comes from the stage's states (a force lost during the stage
is still in the state it started from); an id the viewer may not see is never passed in (the
fog-of-war lens scrubs it first), so it reads as "an unseen force"."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from django.utils.translation import get_language
from django.utils.translation import gettext as _

from campaign.fog import Lens, id_tokens
from campaign.state_rows import derived
from campaign.text.labels import INDIVIDUAL_KIND, SPECIALITY, battle_number, label
from rules import CampaignState, Force, General, Individual


def force_label(force: Force) -> str:
    return force.name or _("force %(id)s") % {"id": force.id}


def unnamed_general(force_name: str) -> str:
    """A general without a name, by his force (never by his id)."""
    return _("the general of %(force)s") % {"force": force_name}


def general_label(general: General, force: Force) -> str:
    """A general's name; one without a name (a generated campaign's) is named by his force,
    never by his id."""
    return general.name or unnamed_general(force_label(force))


def individual_label(individual: Individual) -> str:
    """A character's name, or the rulebook's name of his kind when he has none."""
    return individual.name or str(label(INDIVIDUAL_KIND, individual.kind))


def member_labels(force: Force) -> Iterator[tuple[str, str]]:
    """Each member of a force (its generals, units and characters) with its readable name."""
    for c in force.commands:
        if c.general is not None:
            yield c.general.id, general_label(c.general, force)
        for u in c.units:
            yield u.id, u.type or str(label(SPECIALITY, u.speciality))
    for i in force.individuals:
        yield i.id, individual_label(i)


_StateNames = tuple[dict[str, str], dict[str, tuple[str, str]], dict[str, str], dict[str, str]]


def _state_names(states: Sequence[CampaignState]) -> _StateNames:
    """Forces, members (id → (label, force id)), holdings and players by id, in `states`."""
    forces: dict[str, str] = {}
    members: dict[str, tuple[str, str]] = {}
    holdings: dict[str, str] = {}
    players: dict[str, str] = {}
    for s in states:
        for p in s.players:
            players[p.id] = p.name or p.id
        for h in s.holdings:
            holdings[h.id] = h.name or h.id
        for f in s.forces:
            forces[f.id] = force_label(f)
            for mid, name in member_labels(f):
                members[mid] = (name, f.id)
    return forces, members, holdings, players


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
        parts = tuple(x for s in states for x in (s.players, s.holdings, s.forces))
        self._forces, self._members, self._holdings, self._players = derived(
            ("names", get_language()), parts, lambda: _state_names(states)
        )

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
        return _("battle %(id)s") % {"id": battle_number(bid)}

    def forces(self, fids: Iterable[Any]) -> str:
        names = [self.force(f) for f in fids]
        return ", ".join(names) if names else _("no force you can see")

    def subject(self, lens: Lens, purpose: str) -> str:
        """Who a roll is about, by name."""
        found: list[str] = []
        for t in sorted(id_tokens(purpose), key=purpose.find):
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
