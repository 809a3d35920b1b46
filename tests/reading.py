"""A test user's language and time zone, as his account page would set them (before his
client logs in: the session keeps them from the login on)."""

from __future__ import annotations

from accounts.models import Profile


def reads_in(user, *, zone: str = "UTC", language: str = "en") -> None:
    Profile.objects.update_or_create(user=user, defaults={"time_zone": zone, "language": language})
