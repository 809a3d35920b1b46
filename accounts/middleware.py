"""The language a view chose for the user, made the browser's: the language cookie, which
Django's LocaleMiddleware reads on every later request (so no request reads the profile)."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

_ATTRIBUTE = "account_language"


def language_remember(request: HttpRequest, language: str) -> None:
    """Set the language cookie on this request's response (logging in, signing up)."""
    setattr(request, _ATTRIBUTE, language)


class AccountLanguage:
    """Put after AuthenticationMiddleware; sets the cookie `language_remember` asked for."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
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
