"""What the account tests share: a fast password hasher, a good sign-up, and the link an
email carries."""

from __future__ import annotations

import re

import pytest

PASSWORD = "brave-ravens-of-the-north"


@pytest.fixture(autouse=True)
def fast_hasher(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.SITE_URL = "https://campaigns.example.org"


def signup_data(**changes: str) -> dict[str, str]:
    """A sign-up that passes every check."""
    data = {
        "username": "wanda",
        "first_name": "Wanda the Bold",
        "email": "wanda@example.org",
        "password1": PASSWORD,
        "password2": PASSWORD,
        "language": "en",
    }
    return {**data, **changes}


def link_in(body: str) -> str:
    """The one link in an email's text."""
    links = re.findall(r"https?://\S+", body)
    assert len(links) == 1, body
    return links[0]
