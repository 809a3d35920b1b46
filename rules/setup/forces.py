"""R2.5 army organisation into forces: a leader, units, commands, individuals, allies."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from rules import tables as T
from rules.setup.problems import Problems, SetupProblem
from rules.setup.sea_folk import validate_sea_folk_force
from rules.types import Force

CV_MIN = 1  # a promoted leader has CV 1 (R8.6.1)


@dataclass(frozen=True, slots=True)
class ForceOrganisation:
    force_id: str
    leader_id: str | None
    leader_cv: int
    individuals: int  # generals not counted
    units: int
    figures: int
    problems: tuple[SetupProblem, ...] = ()

    @property
    def valid(self) -> bool:
        return not self.problems


def validate_force_organisation(
    force: Force, *, allied_commands: Collection[str] = (), sea_folk: bool = False
) -> ForceOrganisation:
    """R2.5: a leader (highest CV) and at least one unit; every command a general with units;
    individuals ≤ units, generals not counted (A-24); allies and mercenaries never alone
    (R2.5.7) unless it is an all-sea-folk pirate force (R6.11.6, checked by
    `validate_sea_folk_force`).

    A command is allied or mercenary when its id is in `allied_commands` or all its units
    are mercenaries."""
    fid = force.id
    out = Problems()
    units, generals = force.units, force.generals
    if not generals:
        out.add("no-leader", "R2.5.2", f"Force {fid} has no general to lead it.", fid)
    if not units:
        out.add("no-units", "R2.5.2", f"Force {fid} has no unit; it needs at least one.", fid)
    for c in force.commands:
        if c.general is None:
            out.add("command-without-general", "§1.1", f"Command {c.id} has no general.", fid)
        if not c.units:
            out.add("command-without-units", "§1.1", f"Command {c.id} has no units.", fid)
    for g in generals:
        if not CV_MIN <= g.cv <= T.CV_MAX:
            msg = f"General {g.id} has CV {g.cv}; CV runs from {CV_MIN} to {T.CV_MAX}."
            out.add("cv-out-of-range", "§1.1", msg, fid)
    if force.leader_id is not None and generals:
        best = max(g.cv for g in generals)
        chosen = next((g for g in generals if g.id == force.leader_id), None)
        if chosen is None or chosen.cv != best:
            msg = (
                f"The designated leader {force.leader_id} is not a general of force {fid} "
                f"with its highest CV ({best})."
            )
            out.add("leader-not-highest-cv", "R2.5.4", msg, fid)
    n_ind, n_units = len(force.individuals), len(units)
    if n_ind > n_units:
        msg = (
            f"Force {fid} has {n_ind} individual characters but only {n_units} unit(s); "
            "individuals may not outnumber units (generals do not count)."
        )
        out.add("too-many-individuals", "R2.5.5", msg, fid)
    regular = [
        c
        for c in force.commands
        if c.id not in allied_commands and not (c.units and all(u.mercenary for u in c.units))
    ]
    if sea_folk or force.sea_folk:
        out.extend(validate_sea_folk_force(force).problems)
    elif force.commands and not regular:
        msg = (
            f"Force {fid} holds only allied or mercenary commands; they must support a "
            "regular command."
        )
        out.add("allies-alone", "R2.5.7", msg, fid)
    leader = force.leader
    return ForceOrganisation(
        force_id=fid,
        leader_id=leader.id if leader else None,
        leader_cv=force.cv,
        individuals=n_ind,
        units=n_units,
        figures=force.figures,
        problems=out(),
    )
