"""Phase 1, first: regrouping pools spent (R8.3.2 [NARAN], option `naran_regroup`).

A force's pool of recovered figures' points (R8.3.1, filled after its battles) buys figures
for its units of the same speciality, as its owner's standing orders say
(`PlayerOrders.regroup`). [SR] They are bought at the start of the turn's Phase 1, so that
the figures fight in the force's next battle ("the army fielded in the next battle"); what
is not spent stays in the pool (R8.3.4). No dice.
"""

from __future__ import annotations

from dataclasses import replace

from rules.dice import Dice
from rules.events import Event, RegroupSpent
from rules.orders import regroup_cost, regroup_errors
from rules.types import CampaignState


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
            commands = tuple(
                replace(
                    c,
                    units=tuple(
                        replace(u, figures=u.figures + p.figures) if u.id == p.unit_id else u
                        for u in c.units
                    ),
                )
                for c in force.commands
            )
            state = state.replace_force(replace(force, commands=commands, regroup_pool=pool))
            events.append(
                RegroupSpent(p.force_id, p.unit_id, p.figures, speciality, points, pool[speciality])
            )
    return state, events
