"""How a request names a row: by its key (an army's, a force's, a unit's …) or an
invitation's token, in the URL (the `key` path converter) or in a query or form value
(`key_asked`). What cannot be a key is not found (404) before any query: a control character
(PostgreSQL refuses a NUL in text) or more characters than the longest key holds."""

from __future__ import annotations

from django.http import Http404
from django.urls.converters import StringConverter

KEY_MAX_LENGTH = 64  # an invitation's token; the rows' keys hold 50


class KeyConverter(StringConverter):
    """`<key:name>` in a URL: like `<str:name>`, without control characters, at most
    KEY_MAX_LENGTH characters."""

    regex = rf"[^/\x00-\x1f\x7f]{{1,{KEY_MAX_LENGTH}}}"


def key_asked(raw: str | None) -> str:
    """A key as a query or form value gives it ("" when none is given); not found (404) when
    it cannot be one."""
    if not raw:
        return ""
    if len(raw) > KEY_MAX_LENGTH or any(ord(c) < 32 or c == "\x7f" for c in raw):
        raise Http404("No such key.")
    return raw
