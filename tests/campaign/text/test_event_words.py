"""Every event the rules can write reads as a sentence in English and in Italian, from its
codes and parameters: each event class of `rules.events` has a renderer, each declared code
(`rules.event_codes`) has words, and no code reaches the reader as a slug."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import MISSING, fields
from typing import Any

import pytest
from django.utils import translation

from campaign.text import event_words as W
from campaign.text.names import Names
from campaign.text.sentences import RENDERERS, event_sentence
from rules import event_codes
from rules import events as E
from rules import tables as T
from rules.phases.random_events import CATASTROPHE, GENERAL, TRIBAL
from rules.scenarios import EVENT_PARAMS, load_scenario

EVENT_TYPES = sorted(
    {c for c in vars(E).values() if isinstance(c, type) and issubclass(c, E.Event)},
    key=lambda c: c.__name__,
)
EVENT_TYPES.remove(E.Event)

SAMPLE: dict[str, Any] = {  # a value for each field type (annotations are strings)
    "str": "x1",
    "str | None": "x1",
    "int": 3,
    "int | None": 3,
    "bool": True,
    "tuple[int, int]": [1, 2],
    "tuple[str, ...]": ["x1", "x2"],
    "tuple[tuple[int, int], ...]": [[1, 2], [2, 2]],
    "dict[str, str]": {"a": "won", "b": "lost"},
}
CODE_SAMPLE = {  # a valid value for fields that hold another table's code
    "weather": "storm",
    "weather_from": "fine",
    "weather_to": "storm",
    "requested": "probe",
    "outcome": "ok",
    "old_status": "defend",
    "new_status": "shattered",
    "method": "by-force",
    "choice": "last",
    "kind": "scout",
    "speciality": "infantry",
    "feature": "city",
    "source": "ranks",
    "triggers": ["lost-battle"],
    "table": "general",
    "event": "leader-emerges",
    "status": "probe",
    "role": "defenders",
}


def _names() -> Names:
    return Names([], sides={}, everything=True)


def sample(cls: type[E.Event], **given: Any) -> dict[str, Any]:
    d: dict[str, Any] = {"type": cls.__name__}
    for f in fields(cls):
        if f.name == "rule":
            d[f.name] = f.default if f.default is not MISSING else "R1"
            continue
        d[f.name] = CODE_SAMPLE.get(f.name, SAMPLE[str(f.type)])
    codes = event_codes.CODED_FIELDS
    for (kind, field), allowed in codes.items():
        if kind == cls.__name__:
            d[field] = sorted(allowed)[0]
    if cls is E.TokensGained:
        d["kind"] = "spirit"
    return {**d, **given}


def both(event: dict[str, Any]) -> tuple[str, str]:
    """The sentence in English and in Italian; a code without words (logged by `W.word`)
    fails."""
    with assert_no_missing_words():
        with translation.override("en"):
            en = event_sentence(event, _names())
        with translation.override("it"):
            it = event_sentence(event, _names())
    return en, it


@contextmanager
def assert_no_missing_words() -> Iterator[None]:
    missing: list[str] = []

    class Catch(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            missing.append(record.getMessage())

    handler = Catch(logging.ERROR)
    W.log.addHandler(handler)
    try:
        yield
    finally:
        W.log.removeHandler(handler)
    assert not missing, missing


@pytest.mark.parametrize("cls", EVENT_TYPES, ids=lambda c: c.__name__)
def test_every_event_type_reads_in_english_and_italian(cls: type[E.Event]) -> None:
    assert cls.__name__ in RENDERERS, f"{cls.__name__} has no sentence"
    en, it = both(sample(cls))
    assert en != it, f"{cls.__name__} has no Italian sentence: {en}"


CODES = [
    (kind, field, code)
    for (kind, field), codes in event_codes.CODED_FIELDS.items()
    for code in sorted(codes)
]


@pytest.mark.parametrize(("kind", "field", "code"), CODES, ids=lambda v: str(v))
def test_every_code_has_words_in_both_languages(kind: str, field: str, code: str) -> None:
    table = W.WORDS[(kind, field)]
    assert code in table, f"{kind}.{field} {code!r} has no words"
    event = sample(getattr(E, kind), **{field: code})
    if code == "nobody":
        event["kind"] = "magic-item"  # tokens of some kind were lost
    if field == "outcome":
        event["count"] = 2
    en, it = both(event)
    assert en != it, (kind, code)
    for text in (en, it):
        assert "—" not in text.replace(" — ", ""), text  # a missing word reads as a dash
        if "-" in code:
            assert code not in text, text


def test_every_random_event_table_row_and_role_has_a_name() -> None:
    keys = {*GENERAL, *TRIBAL, *CATASTROPHE, *EVENT_PARAMS, *T.GENERAL_EVENTS.values()}
    assert keys <= set(W.RANDOM_EVENTS), keys - set(W.RANDOM_EVENTS)
    assert set(event_codes.EVENT_TABLES) == set(W.EVENT_TABLES)
    incursion = load_scenario("incursion")
    assert {r.id for r in incursion.roles} <= set(W.ROLES)
    for key in W.RANDOM_EVENTS:
        en, it = both(sample(E.RandomEvent, event=key))
        assert en != it and key not in en.replace(key.replace("-", " "), ""), key


def test_a_key_day_table_reads_as_the_roles_table_of_its_day() -> None:
    event = sample(E.RandomEvent, table="day-7-defenders", day=7, role="defenders", event="points")
    event |= {"outcome": "done", "kept": True}
    en, it = both(event)
    assert "the events table of the Defenders for day 7" in en
    assert "he keeps this result" in en
    assert "day-7" not in en and "day-7" not in it and "defenders" not in it


def test_a_leader_whose_cv_does_not_change_does_not_read_changed() -> None:
    event = sample(E.LeaderCvChanged, old_cv=2, new_cv=2)
    en, _it = both(event)
    assert "stays at 2" in en and "changed" not in en


def test_a_character_an_event_brings_is_named_by_his_kind_never_his_id() -> None:
    from tests.rules.casefile import load_state

    state = load_state(
        {
            "players": [{"id": "orc", "side": "orc"}],
            "map": {"width": 3, "height": 3},
            "forces": [
                {
                    "id": "f11",
                    "name": "Varga Riders",
                    "owner": "orc",
                    "square": [1, 1],
                    "status": "probe",
                    "units": [
                        {
                            "id": "u1",
                            "type": "Wolves",
                            "speciality": "cavalry",
                            "quality": "average",
                            "figures": 8,
                        }
                    ],
                    "individuals": [{"id": "i26", "kind": "scout", "name": ""}],
                }
            ],
        }
    )
    names = Names([state], sides={}, everything=True)
    event = sample(E.IndividualJoined, force_id="f11", individual_id="i26", kind="scout")
    event["magic_points"] = 0
    assert event_sentence(event, names) == "Varga Riders was joined by a new character, Scout."
    with translation.override("it"):
        assert "i26" not in event_sentence(event, names)


def test_a_general_without_a_name_reads_by_his_force_and_his_cv_once() -> None:
    from dataclasses import replace as evolve

    from tests.rules.test_phases_5_8 import force, state_with

    state = state_with(evolve(force("f7", "orc", cv=4), name="Varga Host"))
    names = Names([state], sides={}, everything=True)
    event = sample(E.LeaderCvChanged, force_id="f7", general_id="g-f7", old_cv=4, new_cv=5)
    text = event_sentence(event, names)
    assert text == "The general of Varga Host now has command value 5 (it was 4)."
    event |= {"old_cv": 2, "new_cv": 2}
    assert event_sentence(event, names) == "The general of Varga Host keeps command value 2."
