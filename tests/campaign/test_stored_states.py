"""Stored states: a resolution keeps the state it started from as a delta of the one before
(the map by reference, once per campaign), and reads back exactly the state it was given."""

from __future__ import annotations

import json
import random

import pytest

from campaign import adapters, stored_states
from campaign.models import StoredMap, TurnResolution
from campaign.stored_states import delta_apply, delta_make
from rules import to_data

pytestmark = pytest.mark.django_db


def _random_json(rng: random.Random, depth: int = 0):
    kind = rng.randrange(7 if depth < 4 else 3)
    if kind == 0:
        return rng.randrange(5)
    if kind == 1:
        return rng.choice(["a", "b", None, True, 1.5])
    if kind == 2:
        return [rng.randrange(3) for _ in range(rng.randrange(3))]
    if kind in (3, 4):
        return {rng.choice("abcd"): _random_json(rng, depth + 1) for _ in range(rng.randrange(4))}
    ids = rng.sample(["f1", "f2", "f3", "f4"], rng.randrange(1, 4))
    return [{"id": i, "v": _random_json(rng, depth + 1)} for i in ids]


@pytest.mark.django_db(False)
def test_a_delta_turns_one_document_into_the_other_and_changes_neither():
    rng = random.Random(7)
    for _ in range(3000):
        a, b = _random_json(rng), _random_json(rng)
        if a == b:
            continue
        a_text, b_text = json.dumps(a), json.dumps(b)
        delta = delta_make(a, b)
        assert delta_apply(a, json.loads(json.dumps(delta))) == b  # through JSON, as stored
        assert (json.dumps(a), json.dumps(b)) == (a_text, b_text)


def _line(campaign) -> list[TurnResolution]:
    order = TurnResolution.STAGE_ORDER
    rows = TurnResolution.objects.filter(turn__campaign=campaign).select_related("turn")
    return sorted(rows, key=lambda r: (r.turn.number, order[r.stage]))


def test_each_resolution_reads_back_the_state_it_started_from(
    make_campaign, play_turn, monkeypatch
):
    monkeypatch.setattr(stored_states, "CHAIN_MAX", 3)  # a full row every third
    seen: list = []
    fields = adapters.resolution_state_fields

    def spy(*, campaign, state):
        seen.append(to_data(state))
        return fields(campaign=campaign, state=state)

    monkeypatch.setattr(adapters, "resolution_state_fields", spy)
    campaign = make_campaign(forces=12, seed=3)
    for n in range(4):
        play_turn(campaign, seed=n + 1)
    line = _line(campaign)
    assert len(line) == len(seen) == 8
    kinds = ["delta" if "$delta" in r.state_before else "full" for r in line]
    assert kinds == ["full", "delta", "delta", "full", "delta", "delta", "full", "delta"]
    # one by one (each a query for its chain) and all at once: the states given
    assert [stored_states.state_data_of(r) for r in line] == seen
    by_pk = stored_states.states_data_of(line)
    assert [by_pk[r.pk] for r in line] == seen
    assert [r.squares_before for r in line] == [stored_states.squares_of(s) for s in seen]
    # the map is stored once, and no row holds it
    assert StoredMap.objects.filter(campaign=campaign).count() == 1
    digest = StoredMap.objects.get(campaign=campaign).digest
    assert [r.state_before["map"] for r in line if "$delta" not in r.state_before] == [
        {"$map": digest}
    ] * 3
    # a delta is a small part of the whole
    whole = len(json.dumps(line[0].state_before))
    assert all(
        len(json.dumps(r.state_before)) < whole / 2 for r in line if "$delta" in r.state_before
    )


def test_the_next_row_stores_the_same_delta_whether_the_last_was_noted_or_read(
    make_campaign, play_turn
):
    """A resolution starts from the row before it as this process noted it when it wrote
    it, or as read and replayed from its chain: both give the same stored state."""
    campaign = make_campaign(forces=6, seed=5)
    play_turn(campaign)
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    whole = stored_states.state_data_of(_line(campaign)[-1])
    with CaptureQueriesContext(connection) as noted_queries:
        noted = stored_states.state_stored(campaign=campaign, data=whole)
    stored_states.noted_forget()
    with CaptureQueriesContext(connection) as read_queries:
        read = stored_states.state_stored(campaign=campaign, data=whole)
    assert "$delta" in noted and noted == read
    # noted: the latest row's key and the map asked for; read: its chain too
    assert len(noted_queries) == 2 and len(read_queries) == 3


def test_a_row_written_before_deltas_reads_as_it_is_and_the_next_is_whole(make_campaign, play_turn):
    campaign = make_campaign(forces=6, seed=5)
    play_turn(campaign)
    first, second = _line(campaign)
    whole = stored_states.state_data_of(first)
    # the row as it was stored before deltas: the whole state, map and all, no marker
    TurnResolution.objects.filter(pk=first.pk).update(state_before=whole)
    TurnResolution.objects.filter(pk=second.pk).delete()
    legacy = TurnResolution.objects.get(pk=first.pk)
    assert stored_states.state_data_of(legacy) == whole
    stored_states.noted_forget()  # as an old process's row: this one never wrote it
    after = stored_states.state_stored(campaign=campaign, data=whole)
    assert "$delta" not in after  # never a delta of a row it cannot follow


def test_a_missing_row_of_a_chain_is_named(make_campaign, play_turn):
    campaign = make_campaign(forces=6, seed=5)
    play_turn(campaign)
    first, second = _line(campaign)
    assert second.state_before["$chain"] == [first.pk]
    TurnResolution.objects.filter(pk=first.pk).delete()
    with pytest.raises(ValueError, match=f"resolution\\(s\\) \\[{first.pk}\\] of its chain"):
        stored_states.state_data_of(second)


# --- the ledger, stored compact ----------------------------------------------------------------


def test_a_ledger_is_stored_compact_and_read_back_as_it_was_written(make_campaign, play_turn):
    """Each entry is stored as an array of its values (the keys were half the text); readers
    take the same dicts the engine wrote. A row written before holds dicts: read as it is."""
    from django.db import connection
    from django.db.models import TextField
    from django.db.models.functions import Cast

    from campaign.records import LEDGER_KEYS, ledger_compact, ledger_expand

    def stored_text(pk: int) -> str:
        rows = TurnResolution.objects.filter(pk=pk)
        return rows.values_list(Cast("ledger", TextField()), flat=True).get()

    campaign = make_campaign(forces=6, seed=5)
    play_turn(campaign)
    first = _line(campaign)[0]
    assert first.ledger and all(list(e) == list(LEDGER_KEYS) for e in first.ledger)
    stored = json.loads(stored_text(first.pk))
    assert all(isinstance(e, list) for e in stored)
    assert ledger_expand(stored) == first.ledger
    assert len(json.dumps(stored)) < len(json.dumps(first.ledger)) * 0.6
    # odd entries are kept as they are
    odd = {"seq": 1, "purpose": "x", "extra": True}
    assert ledger_compact([odd]) == [odd] and ledger_expand([odd]) == [odd]
    # a row written before: dicts in the column, read as they are
    legacy = first.ledger[:3]
    with connection.cursor() as cursor:
        table = TurnResolution._meta.db_table
        cursor.execute(
            f"UPDATE {table} SET ledger = %s WHERE id = %s", [json.dumps(legacy), first.pk]
        )
    assert json.loads(stored_text(first.pk))[0] == legacy[0]  # a dict, as written
    assert TurnResolution.objects.get(pk=first.pk).ledger == legacy
