"""The GM's turn-control forms: the deadlines (orders, battle results) and the extension."""

from __future__ import annotations

import zoneinfo
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any, cast

from django import forms
from django.utils import timezone as djtz
from django.utils.translation import gettext, gettext_lazy

from campaign.models import DEADLINE_AHEAD_MAX, Turn
from campaign.moments import timezone_choices
from campaign.turns.services import MAX_EXTENSION


class WallClockField(forms.DateTimeField):
    """A date and time as the GM's clock shows it, read in the time zone chosen beside it
    (not the server's): the service makes it aware."""

    widget = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")

    def to_python(self, value: Any) -> datetime | None:
        if value in self.empty_values:
            return None
        if isinstance(value, datetime):
            return value
        try:
            return datetime.fromisoformat(str(value).strip())
        except ValueError:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid") from None


MAX_AHEAD = DEADLINE_AHEAD_MAX  # far beyond any campaign (see there)
_SLACK = timedelta(days=2)  # the wall clock of any time zone, against the server's UTC


class DeadlineForm(forms.Form):
    deadline = WallClockField(
        label=gettext_lazy("Deadline"),
        required=False,
        help_text=gettext_lazy("Leave it empty for no deadline: you will close the turn."),
    )
    timezone = forms.ChoiceField(label=gettext_lazy("Time zone"))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # declared above as a ChoiceField (`self.fields` types it `Field`)
        cast(forms.ChoiceField, self.fields["timezone"]).choices = timezone_choices()
        zone = self.data.get("timezone") if self.is_bound else None
        zone = zone or self.initial.get("timezone") or "UTC"
        field = self.fields["deadline"]
        sentence = gettext("Read on the clock of the time zone below (now: %(zone)s).")
        field.help_text = f"{sentence % {'zone': zone}} {field.help_text}"

    def clean_deadline(self) -> datetime | None:
        """Roughly within the next century (the service checks the exact moment in the zone)."""
        deadline: datetime | None = self.cleaned_data.get("deadline")
        if deadline is None:
            return None
        wall = deadline.replace(tzinfo=None)  # ± a day: the zone is applied later
        now = djtz.now().astimezone(UTC).replace(tzinfo=None)
        if wall > now + MAX_AHEAD:
            raise forms.ValidationError(
                gettext_lazy("A deadline can be at most 100 years ahead."), code="too-far"
            )
        if wall < now - _SLACK:
            raise forms.ValidationError(
                gettext_lazy("The deadline must be in the future."), code="past"
            )
        return deadline


class BattlesDeadlineForm(DeadlineForm):
    """When the results of the waiting battles are due."""

    deadline = WallClockField(
        label=gettext_lazy("Results due by"),
        required=False,
        help_text=gettext_lazy(
            "Leave it empty for no deadline. At the deadline, the battles you marked "
            "“auto-resolve at the deadline” that still have no result are fought by the "
            "tactical engine; the others keep waiting."
        ),
    )


class ExtendForm(forms.Form):
    days = forms.IntegerField(
        label=gettext_lazy("Days"), min_value=0, max_value=MAX_EXTENSION.days, initial=1
    )
    hours = forms.IntegerField(label=gettext_lazy("Hours"), min_value=0, max_value=23, initial=0)


def deadline_initial(turn: Turn, deadline: datetime | None) -> dict[str, Any]:
    """A deadline as the GM's form shows it: on the clock of the time zone it was set in; with
    none set yet, the GM's own zone is offered (the reader's: `campaign.moments`)."""
    initial: dict[str, Any] = {"timezone": turn.timezone}
    if deadline is None:
        initial["timezone"] = djtz.get_current_timezone_name()
    else:
        zone: tzinfo
        try:
            zone = zoneinfo.ZoneInfo(turn.timezone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            zone = UTC
        initial["deadline"] = deadline.astimezone(zone).replace(tzinfo=None)
    return initial
