"""`campaign.json_input` and `campaign.text_input`: JSON and free text a person typed, read with
limits and refused with a sentence (issue 28). The nesting is counted before `json.loads`
recurses, exactly: brackets inside strings do not count, escaped quotes do not end a string."""

from __future__ import annotations

import pytest
from django import forms

from campaign.errors import ServiceError
from campaign.json_input import MAX_DEPTH, JsonRefused, json_parse
from campaign.text_input import TextField, text_clean, text_problem


def _refused(text: str, **kw) -> str:
    with pytest.raises(JsonRefused) as e:
        json_parse(text, max_chars=kw.pop("max_chars", 10_000), **kw)
    return e.value.message


def test_an_object_is_read():
    assert json_parse('{"a": [1, 2.5, "x", null, true]}', max_chars=100) == {
        "a": [1, 2.5, "x", None, True]
    }


def test_the_depth_limit_is_exact():
    value = json_parse("[" * MAX_DEPTH + "]" * MAX_DEPTH, max_chars=1000, want_object=False)
    depth = 0
    while isinstance(value, list):
        depth, value = depth + 1, value[0] if value else None
    assert depth == MAX_DEPTH
    over = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
    assert "nested too deep" in _refused(over, want_object=False)


def test_brackets_in_strings_do_not_count():
    inside = '{"a": "' + "[{" * 5000 + '\\"]"}'
    assert json_parse(inside, max_chars=20_000) == {"a": "[{" * 5000 + '"]'}


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000,
        '{"a": ' * 50_000,
        '"unclosed' + "[" * 10,  # an unclosed string: its brackets are text
        '["\\\\"' + ", [" * 40 + "]" * 40 + "]",  # an escaped backslash ends before the quote
    ],
)
def test_what_is_deep_or_broken_is_refused_without_recursion(text):
    message = _refused(text, max_chars=1_000_000, want_object=False)
    assert "nested too deep" in message or "This is not JSON" in message


def test_the_length_is_checked_first():
    assert "too long" in _refused("[" * 101, max_chars=100)


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e999", "-1e999"])
def test_numbers_json_cannot_hold(literal):
    assert "not a number JSON can hold" in _refused('{"a": ' + literal + "}")


@pytest.mark.parametrize("literal", [str(2**63), str(-(2**63) - 1), "9" * 5000])
def test_integers_beyond_64_bits(literal):
    assert "too large" in _refused('{"a": ' + literal + "}")
    assert json_parse('{"a": ' + str(2**63 - 1) + "}", max_chars=100) == {"a": 2**63 - 1}


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"\\ud800": 1}', '"\\ud800", an unpaired surrogate'),
        ('{"a": ["x\\udfffy"]}', '"\\udfff", an unpaired surrogate'),
        ('{"a\\u0000": 1}', "NUL"),
        ('{"a": "\\u0000"}', "NUL"),
    ],
)
def test_text_no_database_stores(text, said):
    assert said in _refused(text)


def test_a_surrogate_pair_is_one_character():
    assert json_parse('{"a": "\\ud83d\\ude00"}', max_chars=100) == {"a": "😀"}


@pytest.mark.parametrize(
    ("text", "kind"),
    [("[]", "a list"), ('"x"', "a string"), ("1", "a number"), ("null", "true, false or null")],
)
def test_an_object_where_an_object_is_wanted(text, kind):
    message = _refused(text)
    assert "must be a JSON object" in message and kind in message
    json_parse(text, max_chars=10, want_object=False)  # any value, when any is wanted


def test_a_syntax_error_says_where():
    with pytest.raises(JsonRefused) as e:
        json_parse('{"a": 1,\n "b": ,}', max_chars=100)
    assert (e.value.line, e.value.column) == (2, 7)
    assert "This is not JSON" in e.value.message and e.value.detail == "Expecting value"


@pytest.mark.parametrize("text", ["a\x00b", "\ud800", "x\udfff"])
def test_text_fields_refuse_what_cannot_be_stored(text):
    assert text_problem(text)
    with pytest.raises(ServiceError) as e:
        text_clean(text, field="name")
    assert list(e.value.field_messages) == ["name"]
    with pytest.raises(forms.ValidationError):
        TextField().clean(text)
    assert text_clean("Sir Hugh") == "Sir Hugh" and TextField().clean(" ok ") == "ok"
