"""What accounts do when Django logs someone in."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.http import HttpRequest

from accounts import services
from accounts.middleware import language_remember


@receiver(user_logged_in, dispatch_uid="accounts.language_apply")
def language_apply(sender: Any, request: HttpRequest | None, user: User, **kwargs: Any) -> None:
    """The language the user chose becomes the browser's (the language cookie): one read of
    his profile per login, none per request."""
    language = services.profile_language(user=user)
    if language and request is not None:
        language_remember(request, language)
