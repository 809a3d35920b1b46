"""Phase 1, first: regrouping pools spent (R8.3.2 [NARAN], option `naran_regroup`).

A force's pool of recovered figures' points (R8.3.1, filled after its battles) buys figures
for its units of the same speciality, or forms a new unit of one of their types (R8.3.3),
as its owner's standing orders say (`PlayerOrders.regroup`). [SR] They are bought at the
start of the turn's Phase 1, so that the figures fight in the force's next battle ("the army
fielded in the next battle"); what is not spent stays in the pool (R8.3.4). No dice.
"""

from __future__ import annotations

from dataclasses import replace

from rules.dice import Dice
from rules.events import Event, RegroupSpent
from rules.orders import RegroupPurchase, regroup_cost, regroup_errors
from rules.types import CampaignState, Command, Force


def resolve(state: CampaignState, dice: Dice) -> tuple[CampaignState, list[Event]]:
    if not state.options.naran_regroup:
        return state, []
    events: list[Event] = []
    for pid in sorted(state.orders):
        purchases = state.orders[pid].regroup
        if not purchases or regroup_errors(state, pid, purchases):
            continue  # refused when saved; a pool that changed since buys nothing [SR]
        for p in purchases:
            force = state.force(p.force_id)
            cost = regroup_cost(force, p)
            assert cost is not None
            speciality, points = cost
            pool = dict(force.regroup_pool)
            pool[speciality] -= points
            commands, new_id = _bought(state, force, p)
            state = state.replace_force(replace(force, commands=commands, regroup_pool=pool))
            events.append(
                RegroupSpent(
                    p.force_id,
                    p.unit_id,
                    p.figures,
                    speciality,
                    points,
                    pool[speciality],
                    new_unit_id=new_id,
                    rule="R8.3.3" if new_id else "R8.3.2",
                )
            )
    return state, events


def _bought(
    state: CampaignState, force: Force, p: RegroupPurchase
) -> tuple[tuple[Command, ...], str]:
    """The force's commands with the figures bought: added to the unit (R8.3.2), or, R8.3.3,
    a new unit of its type (minimum size and Leader paid) in the same command, whose id is
    the model's with the turn, made unique in the campaign. Returns the new unit's id."""
    if not p.new_unit:
        grown = tuple(
            replace(
                c,
                units=tuple(
                    replace(u, figures=u.figures + p.figures) if u.id == p.unit_id else u
                    for u in c.units
                ),
            )
            for c in force.commands
        )
        return grown, ""
    taken = {u.id for f in state.forces for u in f.units}
    new_id = f"{p.unit_id}-t{state.turn}"
    n = 1
    while new_id in taken:
        n += 1
        new_id = f"{p.unit_id}-t{state.turn}-{n}"
    out = []
    for c in force.commands:
        model = next((u for u in c.units if u.id == p.unit_id), None)
        if model is not None:
            c = replace(c, units=(*c.units, replace(model, id=new_id, figures=p.figures)))
        out.append(c)
    return tuple(out), new_id
