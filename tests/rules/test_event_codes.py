"""Events speak data: every coded field holds a declared code, and the command line has
English words for every event type and every code (rules.event_codes, rules.cli.event_words)."""

from __future__ import annotations

from dataclasses import fields, replace

from rules import event_codes
from rules import events as E
from rules.cli.event_words import _LINES, WORDS, event_lines
from rules.dice import SeededDice
from rules.generate import generate_campaign, generate_orders
from rules.turn import resolve_after_battles, resolve_turn
from rules.types import Options
from tests.rules.test_properties import random_results

EVENT_TYPES = [
    c
    for c in vars(E).values()
    if isinstance(c, type) and issubclass(c, E.Event) and c is not E.Event
]


def test_every_event_type_and_code_has_english_words() -> None:
    assert {c.__name__ for c in EVENT_TYPES} == set(_LINES)
    for key, codes in event_codes.CODED_FIELDS.items():
        assert set(WORDS[key]) == set(codes), key
        kind, field = key
        assert field in {f.name for f in fields(getattr(E, kind))}, key


def test_generated_turns_write_only_declared_codes_and_read_in_english() -> None:
    options = Options(random_events=True, reinforcement_interval_days=1)
    state = generate_campaign(
        width=8, height=6, players=3, forces=6, units_per_force=2, seed=11, options=options
    )
    seen = 0
    for turn in range(6):
        out = resolve_turn(state, generate_orders(state, seed=turn), SeededDice(100 + turn))
        results = random_results(out.state, turn)
        after = resolve_after_battles(out.state, results, SeededDice(200 + turn))
        for ev in (*out.events, *after.events):
            d = ev.to_dict()
            for (kind, field), codes in event_codes.CODED_FIELDS.items():
                if d["type"] == kind:
                    assert d[field] in codes, d
                    seen += 1
            assert "detail" not in d
        event_lines([e.to_dict() for e in (*out.events, *after.events)])
        state = replace(after.state)
        if state.ended:
            break
    assert seen
