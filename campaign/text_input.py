"""Free text a person typed, checked before it reaches the database: PostgreSQL stores no NUL
character (in a text column or in JSONB) and UTF-8 has no unpaired surrogate (U+D800–U+DFFF
alone), so either would end in a server error on the write or on the page that shows it.

A form's own `forms.CharField` refuses NUL already (Django's `ProhibitNullCharactersValidator`);
`TextField` refuses a lone surrogate too. Text a view reads from the request itself (not through
a form field) goes through `text_clean`. A browser never sends a lone surrogate (Django decodes
the request's bytes with U+FFFD for what is not UTF-8): they come in through JSON's `\\ud800`
escapes, which `campaign.json_input` refuses with the same words.
"""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.utils.translation import gettext as _

from campaign.errors import ServiceError

_UNSTORABLE = re.compile(r"[\x00\ud800-\udfff]")


def text_problem(value: str, *, in_json: bool = False) -> str | None:
    """Why `value` cannot be stored, in words; None when it can. `in_json`: it is a string
    of a JSON text (`campaign.json_input`), where it was written as an escape."""
    found = _UNSTORABLE.search(value)
    if found is None:
        return None
    escape = f"\\u{ord(found.group()):04x}"
    if in_json and found.group() == "\x00":
        return _("This JSON holds a NUL character (\\u0000), which cannot be stored.")
    if in_json:  # quoted as written
        return _(
            "This JSON holds %(escape)s, an unpaired surrogate: it stands for no character "
            "without its pair."
        ) % {"escape": f'"{escape}"'}
    if found.group() == "\x00":
        return _("This text holds a NUL character, which cannot be stored: remove it.")
    return _(
        "This text holds an unpaired surrogate (%(escape)s), which is no character: remove it."
    ) % {"escape": escape}


def text_clean(value: Any, *, field: str | None = None) -> str:
    """`value` as text, refused (`ServiceError`, beside `field` if given) when it holds what
    cannot be stored."""
    text = "" if value is None else str(value)
    problem = text_problem(text)
    if problem is not None:
        raise ServiceError({field: [problem]} if field else problem)
    return text


def text_validator(value: Any) -> None:
    """A form field's validator: NUL and lone surrogates refused."""
    problem = text_problem(str(value))
    if problem is not None:
        raise forms.ValidationError(problem, code="unstorable")


class TextField(forms.CharField):
    """A `CharField` that refuses a lone surrogate too (NUL it refuses already)."""

    default_validators = [text_validator]
