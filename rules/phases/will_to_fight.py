"""Phase 5 — Will-to-Fight test (§9.1).

Every active player with a trigger this turn takes one test (A-38): triggers collected in
`state.wtf_triggers` (lost battle R9.1.2, lost holding R9.1.3, force-test disaster R9.1.4,
last force lost R9.1.1), plus "all-forces-lost" for a player with no force left. The tests
are simultaneous [SR R3.2]: all are rolled, in player order, before anyone surrenders.
"""

from __future__ import annotations

from dataclasses import replace

from rules.checks import WillToFightInputs, will_to_fight
from rules.dice import Dice
from rules.events import CampaignEnded, Event, PlayerSurrendered, WillToFightTested
from rules.phases.common import remove_force
from rules.scenarios import scenario_for
from rules.types import CampaignState, Holding


def holder(state: CampaignState, h: Holding) -> str | None:
    """Who holds a holding for Will to Fight: its owner; while carried as loot, the carrier's
    owner (A-47); a destroyed holding counts for no one (A-47)."""
    if h.destroyed:
        return None
    if h.carried_by is not None:
        carrier = next((f for f in state.forces if f.id == h.carried_by), None)
        return carrier.owner if carrier is not None else None
    return h.owner


def inputs_for(state: CampaignState, pid: str) -> WillToFightInputs:
    """R9.1 modifiers from the record (cumulative, A-39) and the holdings as they stand. A
    capital counts only for ±3, never also for ±1 (A-39)."""
    rec = state.record(pid)
    held = lost = 0
    enemy_capital = capital_lost = False
    for h in state.holdings:
        by = holder(state, h)
        if by is None:
            continue
        if by == pid and state.hostile(h.original_owner, pid):
            if h.capital:
                enemy_capital = True
            else:
                held += 1
        elif h.original_owner == pid and state.hostile(by, pid):
            if h.capital:
                capital_lost = True
            else:
                lost += 1
    scenario = scenario_for(state)
    snow = state.snow.levels if scenario and "will-to-fight" in scenario.snow_effects else 0
    return WillToFightInputs(
        won=rec.battles_won,
        lost=rec.battles_lost,
        held=held,
        holdings_lost=lost,
        enemy_capital=enemy_capital,
        capital_lost=capital_lost,
        snow=snow,  # §11.5: Incursion only (D-22)
    )


def resolve(state: CampaignState, dice: Dice) -> tuple[CampaignState, list[Event]]:
    events: list[Event] = []
    failed: list[str] = []
    for p in state.active_players():
        triggers = tuple(state.wtf_triggers.get(p.id, ()))
        if not any(f.owner == p.id for f in state.forces) and "all-forces-lost" not in triggers:
            triggers += ("all-forces-lost",)  # R9.1.1
        if not triggers:
            continue
        rec, passed = will_to_fight(
            dice,
            purpose=f"will-to-fight:player-{p.id}",
            inputs=inputs_for(state, p.id),
            as_printed=state.options.will_to_fight_as_printed,
        )
        assert rec.total is not None
        events.append(WillToFightTested(p.id, rec.total, passed, triggers))
        if not passed:
            failed.append(p.id)
    for pid in failed:
        state, ev = _surrender(state, pid)
        events.extend(ev)
    if failed:
        state, ev = _maybe_end(state)
        events.extend(ev)
    return state, events


def _surrender(state: CampaignState, pid: str) -> tuple[CampaignState, list[Event]]:
    """R9.1: the campaign is over for this player. [SR] His forces leave play at once (any
    loot they carry is lost, A-47); his holdings stay where they are, counting as before."""
    players = tuple(replace(p, surrendered=True) if p.id == pid else p for p in state.players)
    state = replace(state, players=players)
    events: list[Event] = [PlayerSurrendered(pid)]
    for f in [f for f in state.forces if f.owner == pid]:
        state, ev = remove_force(state, f, reason="player-surrendered", rule="R9.1")
        events.extend(ev)
    return state, events


def _maybe_end(state: CampaignState) -> tuple[CampaignState, list[Event]]:
    """[NARAN fn 30] the others may play on; the campaign ends when one side or none is left
    with active players (R11.7.1 in the Incursion: that side wins)."""
    sides = list(dict.fromkeys(p.side for p in state.active_players()))
    if len(sides) > 1 or state.ended:
        return state, []
    rule = "R11.7.1" if state.scenario == "incursion" else "R9.1"
    if sides:
        state = replace(state, ended="will-to-fight", winner=sides[0])
        return state, [CampaignEnded("will-to-fight", sides[0], rule)]
    # [SR] every side failed in the same phase: the campaign ends without a winner
    state = replace(state, ended="all-surrendered", winner=None)
    return state, [CampaignEnded("all-surrendered", None, rule)]
