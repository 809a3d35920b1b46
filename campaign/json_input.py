"""JSON a person typed or pasted into a form, read with limits, so that no text of his ends in
a server error and each refusal says why (issue 28):

- its length, checked before anything reads it;
- its nesting, counted outside strings before `json.loads` (whose parser recurses once a
  level: 50,000 `[` exhaust Python's stack);
- numbers JSON cannot hold (`NaN`, `Infinity`, `1e999`) and integers beyond 64 bits;
- text no database can store (NUL, lone surrogates from `\\ud800` escapes: `campaign.text_input`);
- the kind of value at the top (an object where an object is expected).

`json_parse` raises `JsonRefused`, a `ValueError` whose message a form puts beside its field.
"""

from __future__ import annotations

import json
import re
from typing import Any

from django.utils.translation import gettext as _

from campaign.text_input import text_problem

MAX_DEPTH = 32  # orders and options nest 5 deep; a map or a state a little more
INT_MAX = 2**63  # beyond what any column or rule counts

# a JSON string (closed or not) or a bracket: what the depth scan must see, strings skipped
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)


class JsonRefused(ValueError):
    """The text is not the JSON asked for; the message says why, for people. For a syntax
    error, `line` and `column` (from 1) say where and `detail` what the parser expected."""

    def __init__(
        self, message: str, line: int | None = None, column: int | None = None, detail: str = ""
    ) -> None:
        super().__init__(message)
        self.message, self.line, self.column = message, line, column
        self.detail = detail or message


def _too_deep(text: str, limit: int) -> bool:
    depth = 0
    for token in _TOKENS.finditer(text):
        c = token.group()[0]
        if c in "[{":
            depth += 1
            if depth > limit:
                return True
        elif c in "]}":
            depth -= 1
    return False


def _shown(literal: str) -> str:
    return literal if len(literal) <= 20 else literal[:19] + "…"


def _constant(literal: str) -> Any:  # NaN, Infinity, -Infinity: JSON has none
    raise JsonRefused(
        _("This JSON holds %(value)s, which is not a number JSON can hold.") % {"value": literal}
    )


def _float(literal: str) -> float:
    value = float(literal)
    if value in (float("inf"), float("-inf")):
        _constant(_shown(literal))
    return value


def _int(literal: str) -> int:
    digits = literal.lstrip("-")
    if len(digits) > 19 or not -INT_MAX <= int(literal) < INT_MAX:
        raise JsonRefused(
            _("This JSON holds %(value)s, a number too large to be stored.")
            % {"value": _shown(literal)}
        )
    return int(literal)


def _strings_check(value: Any) -> None:
    """Every key and string of `value` storable (its depth is bounded already)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, str):
            problem = text_problem(v, in_json=True)
            if problem is not None:
                raise JsonRefused(problem)


def _kind(value: Any) -> str:
    if isinstance(value, list):
        return _("a list")
    if isinstance(value, str):
        return _("a string")
    if isinstance(value, bool) or value is None:
        return _("true, false or null")
    return _("a number")


def json_parse(
    text: str, *, max_chars: int, max_depth: int = MAX_DEPTH, want_object: bool = True
) -> Any:
    """The value `text` holds; `JsonRefused` saying why it is not one we take."""
    if len(text) > max_chars:
        raise JsonRefused(
            _("This is too long: at most %(max)s characters, this is %(n)s.")
            % {"max": max_chars, "n": len(text)}
        )
    if _too_deep(text, max_depth):
        raise JsonRefused(
            _("This JSON is nested too deep: at most %(max)s levels of [ ] and { }.")
            % {"max": max_depth}
        )
    try:
        value = json.loads(text, parse_constant=_constant, parse_float=_float, parse_int=_int)
    except json.JSONDecodeError as e:
        why = _("This is not JSON: %(why)s") % {"why": e}
        raise JsonRefused(why, e.lineno, e.colno, e.msg) from None
    _strings_check(value)
    if want_object and not isinstance(value, dict):
        raise JsonRefused(
            _("This must be a JSON object ({ … }), not %(kind)s.") % {"kind": _kind(value)}
        )
    return value
