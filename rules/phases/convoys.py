"""Phase 7 — supply convoys (R9.3.9, p. 39).

"A supply convoy may be sent to a force every seven days, or may follow a reinforcement
force." The booklet gives the convoy no effect ([SR] A-40 d: a scheduled hook). A scenario
that schedules convoys (`[convoys]`, `rules.scenarios.Convoys`) has one reach every active
player on its days, each with the effect the scenario gives his role (an event of the key-day
vocabulary, applied as the key-day tables apply theirs), or none. Where no scenario
schedules them, the option `supply_convoys` has one reach every active player every seven
days, with no effect: the book gives none, and none is invented.
"""

from __future__ import annotations

from rules.dice import Dice
from rules.events import Event, SupplyConvoy
from rules.phases.random_events import apply_event
from rules.scenarios import Convoys, EventSpec, scenario_for
from rules.types import CampaignState

NONE = EventSpec("none")


def resolve(state: CampaignState, dice: Dice) -> tuple[CampaignState, list[Event]]:
    scenario = scenario_for(state)
    convoys = scenario.convoys if scenario is not None else None
    if convoys is None and state.options.supply_convoys:
        convoys = Convoys()  # every seven days, no effect (R9.3.9)
    if convoys is None or not convoys.due(state.day) or state.ended:
        return state, []
    events: list[Event] = []
    for p in state.active_players():
        spec = convoys.effects.get(p.role or "", NONE)
        purpose = f"convoy:{p.id}:day-{state.day}"
        state, ev, told = apply_event(state, dice, p.id, spec, "R9.3.9", purpose)
        convoy = SupplyConvoy(
            p.id, state.day, spec.key, "R9.3.9", told.outcome, told.kind, told.count
        )
        events.append(convoy)
        events.extend(ev)
    return state, events
