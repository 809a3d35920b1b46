"""Phase 6 — time (§9.2), and the end conditions of a scenario.

R9.2.3 [SR]: Phase 6 of turn n sets day = n. Scenario end checks run here [SR], once the
day has advanced and after Will to Fight (Phase 5), so a surrender this turn takes
precedence; Phases 7–8 do nothing once the campaign has ended. For the Incursion (§11.7):
R11.7.2 the raiders win when their forces in their capital's square carry at least
`options.incursion_loot_required` loot (A-47; loot is never unloaded, so loot brought home
by a force that stays there keeps counting); R11.7.3 on day 42 both sides withdraw with
honour. The loot check comes first, so loot brought home on day 42 still wins.
"""

from __future__ import annotations

from dataclasses import replace

from rules.dice import Dice
from rules.events import CampaignEnded, DayAdvanced, Event
from rules.scenarios import Scenario, scenario_for
from rules.types import CampaignState


def resolve(state: CampaignState, dice: Dice) -> tuple[CampaignState, list[Event]]:
    del dice  # no dice in this phase
    state = replace(state, day=state.turn)
    events: list[Event] = [DayAdvanced(state.day)]
    scenario = scenario_for(state)
    if scenario is not None and not state.ended:
        state, ev = end_checks(state, scenario)
        events.extend(ev)
    return state, events


def end_checks(state: CampaignState, scenario: Scenario) -> tuple[CampaignState, list[Event]]:
    role = scenario.victory.loot_to_capital
    if role is not None:
        players = [p for p in state.active_players() if p.role == role]
        homes = {
            h.square
            for h in state.holdings
            if h.capital and not h.destroyed and any(h.original_owner == p.id for p in players)
        }
        sides = {p.side for p in players}
        loot = sum(
            len(f.loot)
            for f in state.forces
            if f.square in homes and state.side_of(f.owner) in sides
        )
        if players and loot >= state.options.incursion_loot_required:
            winner = players[0].side
            state = replace(state, ended=f"{role}-win", winner=winner)
            return state, [CampaignEnded("loot-brought-home", winner, "R11.7.2")]
    end = scenario.victory.end_day
    if end is not None and state.day >= end:
        state = replace(state, ended=scenario.victory.end_reason, winner=None)
        return state, [CampaignEnded(scenario.victory.end_reason, None, "R11.7.3")]
    return state, []
