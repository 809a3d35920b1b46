"""Hostile form input for the hypothesis tests of every form (issue 12, defect 6).

A posted form is drawn as plausible values for every field with up to three fields turned
hostile: left out, posted twice, or one of the value classes below (empty, blanks, 10k-char
text, digits of other scripts, integers beyond the database's and of thousands of digits,
floats, NUL and control characters, line breaks, HTML, dates at the ends of the calendar,
malformed JSON). Each example runs in a savepoint rolled back after it, through a fresh
client, so that every example starts from the same campaign and no message of an earlier
one is read as this one's.

`answered` is the one check: no server error, and a refusal (any answer but the success
the test names) says why in words: a form error, an alert or a message, never a Python
repr, a traceback or an internal code.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from django.contrib.messages import ERROR, WARNING, get_messages
from django.core.cache import cache
from django.db import transaction
from django.http import HttpResponse
from django.test import Client
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

# FW_FUZZ_EXAMPLES=500 digs deeper by hand; the suite keeps to a bounded, fixed run
EXAMPLES = int(os.environ.get("FW_FUZZ_EXAMPLES", "30"))

FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,  # the same examples every run
    database=None,
    deadline=None,  # no timing: a loaded machine passes too
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,  # each example rolls its changes back
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)

HUGE_DIGITS = "9" * 4400  # past Python's 4,300-digit limit for int()

NASTY: tuple[str, ...] = (
    "",
    " ",
    " \t \n ",
    "x" * 10_001,
    "é" * 10_001,
    "²",
    "٣",
    "１２",
    "-1",
    "0",
    "-2147483649",
    str(2**31),
    str(2**63),
    HUGE_DIGITS,
    "-" + HUGE_DIGITS,
    "1.5",
    "1e9",
    "NaN",
    "inf",
    "\x00",
    "a\x00b",
    "\x01\x1b\x7f",
    "\u200b\ufeff",
    "line\nbreak",
    "\r\n\r\n",
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "0001-01-01T00:00",
    "9999-12-31T23:59",
    "0000-00-00T00:00",
    "2025-02-30T25:61",
    "[" * 5000,
    '{"a": ' * 3000,
    "{}",
    "[]",
    "null",
    "true",
    "1,1; " * 2000,
    HUGE_DIGITS + "," + HUGE_DIGITS,
    "-1,-1",
    "%s%(x)s{0}",
)

MISSING = object()  # a field left out of the POST

# random text too, without what would read as a repr or markup if echoed back in a field
_TEXT = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"], exclude_characters="[{<&'\""),
    max_size=30,
)


def nasty() -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(NASTY), _TEXT)


# JSON values of any shape for the forms that take JSON (issue 28): text with lone surrogates
# and NUL, floats beyond JSON (NaN, Infinity), integers beyond 64 bits
JSON_VALUES = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=12),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def or_junk(plausible: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly `plausible`, else any JSON value."""
    return st.one_of(plausible, plausible, JSON_VALUES)


def json_text(values: st.SearchStrategy[Any]) -> st.SearchStrategy[str]:
    """`values` as a form would post their JSON: ASCII, lone surrogates and NUL written as
    escapes (no form can send them raw), NaN and Infinity as Python writes them; or hostile
    text."""
    return st.one_of(values.map(json.dumps), values.map(json.dumps), nasty())


def _hostile(plausible: Sequence[str]) -> st.SearchStrategy[Any]:
    one = st.one_of(nasty(), st.sampled_from(plausible)) if plausible else nasty()
    return st.one_of(
        st.just(MISSING),
        nasty(),
        st.lists(one, min_size=2, max_size=3),  # the field posted more than once
    )


@st.composite
def posted(
    draw: st.DrawFn, fields: Mapping[str, Sequence[str]], extra: Sequence[str] = ()
) -> dict[str, Any]:
    """A POST of the form whose fields and plausible values are `fields`: plausible values
    everywhere, then up to three of the fields (or of the `extra` names, which a form does
    not declare but its view reads) hostile."""
    data: dict[str, Any] = {
        name: draw(st.sampled_from(values)) if values else "" for name, values in fields.items()
    }
    names = sorted({*fields, *extra})
    for name in draw(st.lists(st.sampled_from(names), max_size=3, unique=True)):
        data[name] = draw(_hostile(fields.get(name, ())))
    return {k: v for k, v in data.items() if v is not MISSING}


@contextmanager
def rolled_back() -> Iterator[None]:
    """One example: whatever it writes is undone after it (the cache too: the sign-up and
    login limits count there)."""
    cache.clear()
    with transaction.atomic():
        yield
        transaction.set_rollback(True)


def client_for(user: Any) -> Client:
    """A fresh client (no message cookie of an earlier example), logged in as `user`."""
    c = Client()
    if user is not None:
        c.force_login(user)
    return c


# what a refusal may not show: a Python repr, a traceback, a database's or a program's words
TELLTALES = (
    "Traceback",
    "object at 0x",
    "ValidationError",
    "[&#x27;",
    "{&#x27;",
    "['",
    "{'",
    "Error(",
    "psycopg",
    "sqlite",
    "IntegrityError",
    "DataError",
    "OperationalError",
)
# in a page, the HTML the examples post must come back escaped
MARKUP = ("<script>alert", "<img src=x")

# where the pages say why: a form error, an alert, an error notice, a row's error (not a
# notice of any kind: the set-up pages always show their guidance in one)
_SAYS_WHY = re.compile(
    r'class="[^"]*\b(errorlist|notice-error|field-error|field-errors|row-error|control-error)\b'
    r'|role="alert"'
)

# answers that need no words of ours: not found (nothing to reveal), wrong method; a 403
# says why (templates/403.html)
QUIET = frozenset({404, 405})


def _telltales(text: str, *, page: bool = True) -> list[str]:
    return [t for t in (*TELLTALES, *(MARKUP if page else ())) if t in text]


def redirected(response: HttpResponse) -> bool:
    """The usual success: a redirect that carries no error message."""
    said = get_messages(response.wsgi_request)  # type: ignore[attr-defined]
    return response.status_code == 302 and not any(m.level >= ERROR for m in said)


def answered(
    response: HttpResponse, *, success: Callable[[HttpResponse], bool] = redirected
) -> bool:
    """Assert the answer is no server error and, if it is a refusal, that it says why in
    words; return whether it was one."""
    status = response.status_code
    assert status < 500, status
    messages = list(get_messages(response.wsgi_request))  # type: ignore[attr-defined]
    for message in messages:
        assert not _telltales(str(message), page=False), message
    said = [str(m) for m in messages if m.level >= WARNING]  # why it was refused
    body = response.content.decode("utf-8", "replace")
    if status in QUIET or success(response):
        assert not _telltales(body), _telltales(body)
        return not success(response)
    assert not _telltales(body), _telltales(body)
    if status == 302:
        assert said, "a refusal redirected without a message"
    else:
        plain = body.strip() and "<" not in body  # a sentence, not a page
        assert said or plain or _SAYS_WHY.search(body), f"{status} without a message: {body[:300]}"
    return True
