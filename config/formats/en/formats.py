"""English dates, day first and on a 24-hour clock ("7 Dec 2026, 18:40"), never the American
"12/07/2026 6:40 p.m." (Django's `en`). What `campaign.moments.moment` shows."""

DATE_FORMAT = "j F Y"
SHORT_DATE_FORMAT = "j M Y"
DATETIME_FORMAT = "l j F Y, H:i"
SHORT_DATETIME_FORMAT = "j M Y, H:i"
TIME_FORMAT = "H:i"
