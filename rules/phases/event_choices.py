"""The random-event choices the book leaves to the player (§9.4, §11.8), read from his
standing orders (`PlayerOrders.event_reroll`, `PlayerOrders.event_targets`).

- "Potete rilanciare" (§9.4.1 result 8, the Incursion day-7 table's 6): he *may* roll again;
  `event_reroll` says whether he does. Without orders he does (the spec's reading, A-41).
- The blows that fall on "one of his" forces, holdings or squares (A-41: the owner chooses):
  `event_targets[kind]` ranks his force or holding ids, and the first one still valid when the
  event strikes is used. With none valid, the phase's default applies (see random_events).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from rules.scenarios import EventSpec, scenario_for
from rules.types import CampaignState


def rolls_again(state: CampaignState, pid: str, spec: EventSpec) -> bool:
    """An event that allows another roll, taken if the player's orders say so."""
    if not spec.get("reroll", False):
        return False
    po = state.orders.get(pid)
    return po is None or po.event_reroll


def chosen[T](
    state: CampaignState, pid: str, kind: str, valid: Iterable[T], key: Callable[[T], str]
) -> T | None:
    """The first of the player's ranked targets for `kind` that is among `valid`, else None."""
    po = state.orders.get(pid)
    if po is None:
        return None
    by_id = {key(v): v for v in valid}
    return next((by_id[i] for i in po.event_targets.get(kind, ()) if i in by_id), None)


# The effect (rules.phases.random_events.EFFECTS) behind each kind of choice of target.
KIND_EFFECT = {
    "leader-stress": "leader-stress",
    "blizzard": "blizzard",
    "epidemic-holding": "epidemic-holding",
    "catastrophe-force": "catastrophe",
    "catastrophe-holding": "catastrophe",
}


def event_choices_offered(state: CampaignState, pid: str) -> tuple[bool, tuple[str, ...]]:
    """Whether a roll-again event may come up for this player, and the kinds of target
    (`rules.orders.EVENT_TARGET_KINDS`) he may be asked to choose: all of them with the §9.4
    tables on (option `random_events`), else those of his role's scenario tables (§11.8)."""
    effects: set[str] = set()
    reroll = False
    if state.options.random_events:
        return True, tuple(KIND_EFFECT)
    scenario = scenario_for(state)
    role = next((p.role for p in state.players if p.id == pid), "")
    for key in scenario.schedule if scenario is not None else ():
        rd = key.roles.get(role)
        for row in rd.events.rows if rd is not None and rd.events is not None else ():
            effects.add(row.value.key)
            reroll = reroll or bool(row.value.get("reroll", False))
    return reroll, tuple(k for k, e in KIND_EFFECT.items() if e in effects)
