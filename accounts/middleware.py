"""The account's language and time zone, on every request of a logged-in user.

The account is what counts: its language and time zone (`Profile`) are read once a session
(kept in it, `reading_keep`) and activated for each of its requests, after Django's
LocaleMiddleware, whatever the browser sent. Everything that changes them (the sign-up, the
account page, the header's language switcher, which saves the account's language too) keeps
the session's copy as well. The language cookie is still set at login and by every such
change: a visitor who logs out goes on reading the language he chose. A visitor with no
account reads the cookie's (or his browser's) language, on UTC's clock."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.utils import timezone, translation

from campaign.moments import Reading, reading_of, zone_of

_ATTRIBUTE = "account_language"
SESSION_KEY = "account_reading"


def language_remember(request: HttpRequest, language: str) -> None:
    """Set the language cookie on this request's response (logging in, signing up)."""
    setattr(request, _ATTRIBUTE, language)


def reading_keep(request: HttpRequest, user: User) -> Reading:
    """Read the account's language and zone into the session (at login, after a change)."""
    reading = reading_of(user)
    if hasattr(request, "session"):
        request.session[SESSION_KEY] = [reading.language, reading.zone, reading.chosen]
    return reading


def _reading(request: HttpRequest) -> Reading | None:
    user = getattr(request, "user", None)
    if not isinstance(user, User) or not user.is_authenticated:
        return None
    kept = request.session.get(SESSION_KEY)
    if isinstance(kept, list) and len(kept) == 3:
        return Reading(str(kept[0]), str(kept[1]), bool(kept[2]))
    return reading_keep(request, user)  # a session from before this was kept


class AccountLanguage:
    """Put after AuthenticationMiddleware: activates the account's language and time zone
    (UTC for a visitor), and sets the cookie `language_remember` asked for."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        reading = _reading(request)
        if reading is None:
            timezone.deactivate()  # the server's UTC, never the last request's reader's
        else:
            timezone.activate(zone_of(reading.zone))
            if reading.chosen and reading.language in dict(settings.LANGUAGES):
                translation.activate(reading.language)
                request.LANGUAGE_CODE = reading.language
        response = self.get_response(request)
        language = getattr(request, _ATTRIBUTE, None)
        if language:
            response.set_cookie(
                settings.LANGUAGE_COOKIE_NAME,
                language,
                max_age=settings.LANGUAGE_COOKIE_AGE,
                path=settings.LANGUAGE_COOKIE_PATH,
                domain=settings.LANGUAGE_COOKIE_DOMAIN,
                secure=settings.LANGUAGE_COOKIE_SECURE,
                httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
                samesite=settings.LANGUAGE_COOKIE_SAMESITE,
            )
        return response
