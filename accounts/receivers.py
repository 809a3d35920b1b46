"""What accounts do when Django logs someone in."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.http import HttpRequest

from accounts.middleware import language_remember, reading_keep


@receiver(user_logged_in, dispatch_uid="accounts.language_apply")
def language_apply(sender: Any, request: HttpRequest | None, user: User, **kwargs: Any) -> None:
    """The language and time zone the user chose are his session's (one read of his profile
    per login: `accounts.middleware`), and his language the browser's (the language cookie,
    for after he logs out)."""
    if request is None:
        return
    reading = reading_keep(request, user)
    if reading.chosen:
        language_remember(request, reading.language)
