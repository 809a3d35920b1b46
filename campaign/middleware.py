"""Turns `campaign.access.LoginRequired` into a redirect to the login page, so that views can
resolve their viewer in one call."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from campaign.access import LoginRequired


class LoginRequiredRedirect:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception):
        if isinstance(exception, LoginRequired):
            return exception.response()
        return None
