"""`{% load moments %}`: moments and people as a reader reads them.

    {{ turn.deadline|moment }}          →  "7 Dec 2026, 18:40 CET" / "07/12/2026 18:40 CET"
    {{ turn.deadline|moment:"long" }}   →  with the weekday and the month's name
    {{ entry.user|display_name }}       →  the display name, never the user name if he has one

The moment is on the reader's clock (the current time zone: `campaign.moments`), with the
zone named; the person is named by `campaign.selectors.user_label`.
"""

from __future__ import annotations

from django import template

from campaign.moments import moment
from campaign.selectors import user_label

register = template.Library()

register.filter("moment", moment)
register.filter("display_name", user_label)
