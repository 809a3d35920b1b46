"""The codec's readers and writers made once per type say and do what the careful way does."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import codec
from rules.generate import generate_campaign, generate_orders
from rules.orders import PlayerOrders
from rules.types import CampaignState

STATE = generate_campaign(width=8, height=6, players=3, forces=6, units_per_force=2, seed=5)
DATA = codec.to_data(STATE)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 20) | st.sampled_from(["", "x", "open", "a1"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=6,
)


def _outcome(read: Any) -> tuple[str, Any]:
    try:
        return "ok", read()
    except Exception as e:  # noqa: BLE001 - the kind and text of any error are compared
        return type(e).__name__, str(e)


def _paths(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(data, dict):
        for k, v in data.items():
            out += _paths(v, (*path, k))
    elif isinstance(data, list):
        for i, v in enumerate(data[:3]):
            out += _paths(v, (*path, i))
    return out


PATHS = _paths(DATA)[1:]


def test_a_state_reads_back_equal_both_ways() -> None:
    assert codec.from_data(CampaignState, DATA) == STATE
    assert codec._read(CampaignState, DATA) == STATE


def test_writing_is_as_json_sees_it() -> None:
    orders = generate_orders(STATE, seed=2)
    for obj in (STATE, *orders.values()):
        data = codec.to_data(obj)
        assert json.loads(json.dumps(data)) == data


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(PATHS), json_values, st.booleans())
def test_damaged_data_gets_the_careful_answer(
    path: tuple[Any, ...], value: Any, drop: bool
) -> None:
    data = copy.deepcopy(DATA)
    parent = data
    for k in path[:-1]:
        parent = parent[k]
    if drop and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    assert _outcome(lambda: codec.from_data(CampaignState, data, "state")) == _outcome(
        lambda: codec._read(CampaignState, data, "state")
    )


@pytest.mark.parametrize(
    "data",
    [
        {"player_id": "p1", "forces": {"f1": {"force_id": "f1", "order": "no-such"}}},
        {"player_id": "p1", "forces": []},
        {"player_id": 3},
        {},
    ],
)
def test_bad_orders_say_where(data: Any) -> None:
    kind, text = _outcome(lambda: codec.from_data(PlayerOrders, data, "orders"))
    assert kind == "FormatError" and text.startswith("orders")
    assert (kind, text) == _outcome(lambda: codec._read(PlayerOrders, data, "orders"))


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ({"player_id": "p1", "initiative_priority": [{"": None}]}, 'got {"": null}'),
        ({"player_id": "p1", "forces": {"f1": {"force_id": "f1", "zoc": [1]}}}, "[1] is not one"),
        ({"player_id": "p1", "initiative_priority": [["x" * 500]]}, 'got ["xxxx'),
        ({"player_id": "p1", "initiative_priority": ["\ud800", 1]}, "got 1"),
        ({"player_id": "p1", "initiative_priority": [["\ud800"]]}, 'got ["\\ud800"]'),
    ],
)
def test_a_refused_value_is_quoted_as_json_and_cut_short(data: Any, said: str) -> None:
    """A person reads these: the value as the JSON he wrote, not a Python repr, never whole."""
    _kind, text = _outcome(lambda: codec.from_data(PlayerOrders, data, "orders"))
    assert said in text and "'" not in text and len(text) < 200
    text.encode("utf-8")  # a lone surrogate quoted escaped: the page can be written
