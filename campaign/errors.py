"""What the campaign's services refuse, and why, in words for people.

Every service raises a `ServiceError`, a Django `ValidationError`: given one message it is
about the whole request; given a mapping (form field → messages) it says which field each
message is about, and a view puts each beside its field (`form_errors_add`). The subclasses
name the refusals that callers tell apart (a task skips a turn already taken, the middleware
sends a campaign in set-up to its set-up pages).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError

if TYPE_CHECKING:
    from django import forms

    from campaign.models import Campaign


class ServiceError(ValidationError, ValueError):
    """A request the campaign cannot carry out; the messages say why, for people."""

    def __init__(self, message: Any, code: str | None = None, params: Any = None) -> None:
        if isinstance(message, Mapping):  # None: the request as a whole
            message = {
                NON_FIELD_ERRORS if k is None else k: list(v) if _many(v) else [v]
                for k, v in message.items()
                if v
            }
        super().__init__(message, code, params)

    def __str__(self) -> str:
        return " ".join(str(m) for m in self.messages)

    @property
    def field_messages(self) -> dict[str, list[str]]:
        """Form field (NON_FIELD_ERRORS: the whole form) → its messages."""
        if hasattr(self, "error_dict"):
            return {k: [str(m) for e in v for m in e.messages] for k, v in self.error_dict.items()}
        return {NON_FIELD_ERRORS: [str(m) for m in self.messages]}


def _many(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str)


class TurnNotOpen(ServiceError):
    """The turn no longer takes orders (or is not open to be closed)."""


class StaleTurn(ServiceError):
    """The form was rendered for another turn than the current one (a second tab, the Back
    button, a form posted twice): nothing was done (architecture.md, "Nothing acts on a
    stale page")."""


class TurnBusy(ServiceError):
    """The turn is already being resolved, or has been (the loser of a race gets this)."""


class SetupInProgress(ServiceError):
    """The campaign is still being set up: it has no turn yet."""

    def __init__(self, campaign: Campaign) -> None:
        self.campaign = campaign
        super().__init__(f"{campaign.name} is still being set up: the first turn has not opened.")


def form_errors_add(error: ServiceError, *forms_: forms.BaseForm) -> None:
    """Put each message beside its field, in the first of `forms_` that has the field; the
    others on the first form, above its fields."""
    for field, messages in error.field_messages.items():
        target = next((f for f in forms_ if field in f.fields), None)
        for message in messages:
            (target or forms_[0]).add_error(field if target else None, message)
