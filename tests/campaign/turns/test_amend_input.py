"""Bad input on the GM's amend form (issue 28, point 5) answers 400 with a message beside the
field, the form shown again with what the GM typed, and nothing changed: JSON nested past any
sane depth, a value of the wrong type, numbers JSON cannot hold, escapes of lone surrogates and
NUL. A hypothesis test posts random JSON values and random text to the form's JSON fields and
never meets a server error."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from battles.models import Battle
from campaign.models import Amendment, AuditEntry, Turn
from campaign.turns.amend_views import TurnAmendForm
from rules import Options, to_data
from tests.campaign.turns.test_amend_views import resolved  # noqa: F401 (a fixture)
from tests.fuzzing import (
    FUZZ,
    JSON_VALUES,
    answered,
    client_for,
    json_text,
    nasty,
    or_junk,
    rolled_back,
)

pytestmark = pytest.mark.django_db

URL = reverse("campaign:amend-turn", args=["incursion", 1])


def _rows() -> list[Any]:
    return [
        list(Amendment.objects.values()),
        list(AuditEntry.objects.values()),
        list(Turn.objects.order_by("pk").values("pk", "status", "number")),
    ]


def _post(cast, kind: str, text: str) -> tuple[int, str]:
    data = {"kind": kind, "player": "raiders", kind: text, "reason": "A typo."}
    response = cast.client("gm").post(URL, data)
    return response.status_code, response.content.decode()


BAD = [
    ("[" * 50_000 + "]" * 50_000, "nested too deep"),
    ('{"a": ' * 20_000 + "1" + "}" * 20_000, "nested too deep"),
    ('"x"', "must be a JSON object"),
    ("1e999", "not a number JSON can hold"),
    ("[]", "must be a JSON object"),
    ('[{"forces": {}}]', "must be a JSON object"),
    ('{"forces": {"\\ud800": {}}}', "unpaired surrogate"),
    ('{"forces": {"a\\u0000b": {}}}', "NUL"),
    ('{"forces": {}, "x": NaN}', "not a number JSON can hold"),
    ('{"forces": {}, "x": 1e999}', "not a number JSON can hold"),
    ('{"forces": {}, "x": -Infinity}', "not a number JSON can hold"),
]


@pytest.mark.parametrize("kind", ["orders", "options"])
@pytest.mark.parametrize(("text", "said"), BAD, ids=[f"bad{i}" for i in range(len(BAD))])
def test_bad_json_is_refused_beside_the_field(resolved, kind, text, said):  # noqa: F811
    before = _rows()
    status, page = _post(resolved, kind, text)
    assert status == 400
    label = page.index(f'for="id_{kind}"')
    assert said in page[label : page.index(f'id="id_{kind}"', label)]  # beside its field
    assert 'id="id_reason"' in page and "A typo." in page  # the form again, as typed
    assert _rows() == before


def test_what_the_gm_typed_is_kept(resolved):  # noqa: F811
    status, page = _post(resolved, "orders", '"x"')
    assert status == 400 and "&quot;x&quot;" in page


def test_a_text_too_long_is_refused_before_it_is_read(resolved):  # noqa: F811
    status, page = _post(resolved, "options", '{"x": "' + "y" * 2_000_000 + '"}')
    assert status == 400 and "too long" in page


def test_a_nul_in_the_reason_of_a_result_amendment_is_refused_beside_it(resolved):  # noqa: F811
    """The result amendment's reason is read from the request, not through a form field."""
    battle = Battle.objects.get(campaign=resolved.campaign, key="t1-b1")
    form = {f"u-{u['unit_id']}-killed": "1" for u in battle.result["units"]}
    form |= {"outcome": "stalemate", "reason": "One\x00each."}
    url = reverse("campaign:amend-result", args=["incursion", "t1-b1"])
    before = _rows()
    response = resolved.client("gm").post(url, form)
    assert response.status_code == 400
    assert "This text holds a NUL character" in response.content.decode()
    assert _rows() == before


@pytest.mark.parametrize("text", ['"x"', "1e999", "[]", "[1, 2]", "true", "7"])
def test_orders_of_the_wrong_type_are_a_format_error(text):
    from campaign import adapters
    from rules import FormatError

    value = json.loads(text)
    with pytest.raises(FormatError):
        adapters.orders_from_data("raiders", value)


def test_the_form_alone_reads_the_json_of_its_kind():
    form = TurnAmendForm(
        {"kind": "options", "options": '{"a": 1}', "orders": "[" * 10, "reason": "x"},
        players=[("raiders", "Raiders")],
    )
    assert form.is_valid(), form.errors
    assert form.cleaned_data["parsed"] == {"a": 1}


# --- hypothesis: random JSON values and random text ----------------------------------------

_SQUARE = st.lists(st.integers(-1, 17), min_size=2, max_size=2)


_FORCE = st.fixed_dictionaries(
    {},
    optional={
        "change_to": or_junk(st.sampled_from([None, "defend", "probe", "full-speed", "rout"])),
        "path": or_junk(st.lists(_SQUARE, max_size=4)),
        "zoc": or_junk(st.sampled_from(["stop", "engage"])),
        "countermarch": or_junk(st.sampled_from(["never", "if-stopped-in-zoc", "always"])),
        "countermarch_square": or_junk(st.one_of(st.none(), _SQUARE)),
        "retreat_squares": or_junk(st.lists(_SQUARE, max_size=3)),
        "sack": or_junk(st.booleans()),
        "initiative": or_junk(st.sampled_from(["early", "late"])),
        "weather_shift": or_junk(st.integers(-3, 3)),
        "x": JSON_VALUES,
    },
)
_ORDERS = st.fixed_dictionaries(
    {},
    optional={
        "forces": st.dictionaries(
            st.sampled_from(["r1", "r2", "r3", "d1", "x", "\ud800", "a\x00b"]), _FORCE, max_size=3
        ),
        "initiative_priority": or_junk(st.lists(st.sampled_from(["r1", "r2", "d1"]))),
        "reinforcements": JSON_VALUES,
        "army_initiative": or_junk(st.sampled_from(["first", "last"])),
    },
)
_OPTIONS = st.builds(
    lambda name, value: {**to_data(Options()), name: value},
    st.sampled_from(sorted(to_data(Options()))),
    st.one_of(st.booleans(), st.integers(-2, 30), st.sampled_from(["core", "winter"]), JSON_VALUES),
)


_JSON_TEXT = st.one_of(json_text(_ORDERS), json_text(_OPTIONS), json_text(JSON_VALUES))


@FUZZ
@given(
    kind=st.sampled_from(["orders", "options"]),
    text=_JSON_TEXT,
    reason=st.one_of(st.just("Fuzz."), nasty()),
)
def test_random_json_never_ends_in_a_server_error(resolved, kind, text, reason):  # noqa: F811
    data = {"kind": kind, "player": "raiders", kind: text, "reason": reason}
    with rolled_back():
        before = _rows()
        response = client_for(resolved.users["gm"]).post(URL, data)
        if answered(response):
            assert _rows() == before
