"""A notice's title, written when it is read, in its reader's language: a notice keeps the code
of its title and the values in it (`Notification.params`: {"title": code, ...}), not only the
words. The email's subject is the same title, written once in its recipient's language when it
is sent (`Notification.subject`, which is also what a notice from before titles had codes
shows)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _


def _titles() -> dict[str, str]:
    # read at each call: in the language active then
    return {
        "turn-opened": _("%(campaign)s: turn %(turn)s is open for orders"),
        "deadline-changed": _("%(campaign)s: the deadline of turn %(turn)s has changed"),
        "reminder": _("%(campaign)s: orders for turn %(turn)s are due within a day"),
        "battle": _("%(campaign)s: battle at (%(x)s, %(y)s) on turn %(turn)s"),
        "missing-orders": _("%(campaign)s: your forces had no orders on turn %(turn)s"),
        "turn-resolved": _("%(campaign)s: turn %(turn)s has been resolved"),
        "gm-reminder": _(
            "%(campaign)s: the game master reminds you of your orders for turn %(turn)s"
        ),
        "amended": _("%(campaign)s: the game master amended turn %(turn)s"),
    }


CODES = frozenset(_titles())


def title(code: str, params: Mapping[str, Any]) -> str:
    """The title `code` with its values, in the active language, on one line (a line break
    in a campaign's name must never reach a mail header)."""
    return " ".join((_titles()[code] % dict(params)).split())[:200]


def title_params(code: str, **values: Any) -> dict[str, Any]:
    """What a notice keeps to write its title again (`Notification.params`)."""
    assert code in CODES, code
    return {"title": code, **values}


def title_read(params: Mapping[str, Any] | None, fallback: str) -> str:
    """A notice's title in the active language; `fallback` (its stored subject) when it has
    no code, or one this version does not know, or values that do not fit."""
    code = (params or {}).get("title")
    if not isinstance(code, str) or code not in CODES:
        return fallback
    try:
        return title(code, {k: v for k, v in (params or {}).items() if k != "title"})
    except (KeyError, TypeError, ValueError):
        return fallback
