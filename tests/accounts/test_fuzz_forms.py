"""Hostile input for the account forms (issue 12): sign-up, the join page's sign-up, login,
password reset and change, the account page, the language switcher and the notification
switches. No example ends in a server error; each refusal says why and creates or changes
no account. (tests/fuzzing.py draws the input.)"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from accounts.models import Profile
from campaign.models import Invitation, Membership
from campaign.setup.invitations import invitation_create, user_get_or_create
from campaign.setup.services import campaign_create_blank
from notifications.models import NotificationPreference
from tests.accounts.conftest import PASSWORD
from tests.fuzzing import FUZZ, answered, client_for, posted, rolled_back

pytestmark = pytest.mark.django_db

SIGNUP = {
    "username": ["wanda", "w.a+n_d@a", "gina"],
    "first_name": ["Wanda the Bold", "Ŵanda"],
    "email": ["wanda@example.org", "gina@example.org", "not-an-email"],
    "password1": [PASSWORD, "short"],
    "password2": [PASSWORD, "other-pass-9"],
    "language": ["en", "it", "xx"],
}


def _accounts() -> list[list[dict[str, Any]]]:
    return [
        list(User.objects.order_by("pk").values()),
        list(Profile.objects.order_by("pk").values()),
        list(Membership.objects.order_by("pk").values()),
        list(NotificationPreference.objects.order_by("pk").values()),
    ]


@pytest.fixture
def gina(db) -> User:
    return user_get_or_create(username="gina", password=PASSWORD, email="gina@example.org")


def _post(user: User | None, url: str, data: dict[str, Any], **kw: Any) -> None:
    """Post `data` in an example of its own; a refusal changes no account."""
    with rolled_back():
        client = client_for(user)  # its login is no change of the form's
        before = _accounts()
        if answered(client.post(url, data), **kw):
            assert _accounts() == before, data


@FUZZ
@given(data=posted(SIGNUP))
def test_signing_up(gina, data, mailoutbox):
    _post(None, reverse("accounts:signup"), data)


@pytest.fixture
def invitation(gina) -> Invitation:
    campaign = campaign_create_blank(gm=gina, slug="wend", name="Wend", width=9, height=6)
    return invitation_create(campaign=campaign, role="observer")


@FUZZ
@given(data=posted(SIGNUP))
def test_signing_up_from_an_invitation(invitation, data, mailoutbox):
    _post(None, reverse("campaign:join", args=[invitation.token]), data)


@FUZZ
@given(data=posted({"username": ["gina", "nobody"], "password": [PASSWORD, "wrong"]}))
def test_logging_in(gina, data):
    _post(None, reverse("login"), data)


@FUZZ
@given(data=posted({"email": ["gina@example.org", "nobody@example.org"]}))
def test_asking_for_a_password_reset(gina, data, mailoutbox):
    # the answer is the same for an unknown address: a redirect, no message
    with rolled_back():
        answered(client_for(None).post(reverse("password_reset"), data))


@FUZZ
@given(
    data=posted(
        {
            "old_password": [PASSWORD, "wrong"],
            "new_password1": ["New-pass-99", "short"],
            "new_password2": ["New-pass-99", "other"],
        }
    )
)
def test_changing_the_password(gina, data):
    _post(gina, reverse("password_change"), data)


@FUZZ
@given(
    data=posted(
        {
            "first_name": ["Gina", "Gina the GM"],
            "email": ["gina@example.org", "other@example.org", "@"],
            "language": ["en", "it"],
        }
    )
)
def test_the_account_page(gina, data):
    _post(gina, reverse("accounts:profile"), data)


@FUZZ
@given(
    data=posted({"language": ["en", "it", "xx"], "next": ["/", "https://evil.example/", ""]}),
    logged_in=st.booleans(),
)
def test_the_language_switcher(gina, data, logged_in):
    # Django's set_language: always a redirect (or 204), a language it does not offer ignored
    with rolled_back():
        response = client_for(gina if logged_in else None).post(reverse("set_language"), data)
        answered(response, success=lambda r: r.status_code in (302, 204))


@FUZZ
@given(data=posted({"kind": [k for k, _l in NotificationPreference.KINDS], "enabled": ["on", ""]}))
def test_the_notification_switches(gina, data):
    _post(gina, reverse("notifications:log"), data)
