"""Accounts: creating one (with its profile), confirming its email address, changing it.

A sign-up makes a Django user whose display name is `first_name` and whose language and time
zone are on its `Profile`. With `settings.ACCOUNT_EMAIL_VERIFICATION` on, the account is
inactive until the link in the email we send is followed; a sign-up from an invitation link
then keeps the invitation's token in that link, and the campaign is joined when the address
is confirmed.
"""

from __future__ import annotations

import smtplib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.core.mail import EmailMessage
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode
from django.utils.translation import gettext as _

from accounts.models import Profile
from campaign.errors import ServiceError
from campaign.models import Invitation, Membership
from campaign.moments import (
    DEFAULT_ZONE,
    Reading,
    reading_as,
    reading_for_email,
    reading_of,
    zone_valid,
)
from campaign.setup import invitations


class VerificationTokenGenerator(PasswordResetTokenGenerator):
    """Django's reset tokens, salted apart (a confirmation link is no password reset link)
    and spent once the account is active."""

    key_salt = "accounts.services.VerificationTokenGenerator"

    def _make_hash_value(self, user: User, timestamp: int) -> str:
        return f"{super()._make_hash_value(user, timestamp)}{user.is_active}"


verification_tokens = VerificationTokenGenerator()


@dataclass(frozen=True)
class Signup:
    user: User
    membership: Membership | None  # the campaign joined at once by an invitation
    verifying: bool  # the account waits for its email address to be confirmed


def absolute_url(path: str) -> str:
    """An address for an email: the site's own (SITE_URL), never the request's host."""
    return settings.SITE_URL.rstrip("/") + path


@transaction.atomic
def account_create(
    *,
    username: str,
    display_name: str,
    email: str,
    password: str,
    language: str,
    active: bool,
    time_zone: str = DEFAULT_ZONE,
) -> User:
    _zone_check(time_zone)
    user = User(username=username, first_name=display_name, email=email, is_active=active)
    user.set_password(password)
    user.save()
    Profile.objects.create(user=user, language=language, time_zone=time_zone)
    return user


@transaction.atomic
def account_signup(
    *,
    username: str,
    display_name: str,
    email: str,
    password: str,
    language: str,
    time_zone: str = DEFAULT_ZONE,
    invitation_token: str | None = None,
) -> Signup:
    """A new account, active at once or waiting for its address to be confirmed (then the
    email goes out). With `invitation_token` the account joins that campaign now, or when
    confirmed; a refused invitation refuses the sign-up, and no account is left behind."""
    verifying = bool(settings.ACCOUNT_EMAIL_VERIFICATION)
    user = account_create(
        username=username,
        display_name=display_name,
        email=email,
        password=password,
        language=language,
        time_zone=time_zone,
        active=not verifying,
    )
    membership = None
    if invitation_token is not None:
        if verifying:
            refusal = _invitation_refusal(token=invitation_token, user=user)
            if refusal:
                raise ServiceError(refusal)
        else:
            membership = invitations.invitation_accept(token=invitation_token, user=user)
    if verifying:
        verification_send(user=user, invitation_token=invitation_token)
    return Signup(user=user, membership=membership, verifying=verifying)


def _invitation_refusal(*, token: str, user: User) -> str | None:
    invitation = Invitation.objects.select_related("campaign").filter(token=token).first()
    if invitation is None:
        return _("This invitation link is not valid.")
    return invitations.invitation_refusal(invitation=invitation, user=user)


def verification_url(*, user: User, invitation_token: str | None = None) -> str:
    path = reverse(
        "accounts:verify",
        kwargs={
            "uidb64": urlsafe_base64_encode(force_bytes(user.pk)),
            "token": verification_tokens.make_token(user),
        },
    )
    if invitation_token:
        path += "?" + urlencode({"invitation": invitation_token})
    return absolute_url(path)


def verification_send(*, user: User, invitation_token: str | None = None) -> None:
    """The email with the link that activates `user`. Sent while the sign-up's transaction
    is open: if it cannot go out, no account is made that nobody could ever activate."""
    context = {
        "user": user,
        "url": verification_url(user=user, invitation_token=invitation_token),
        "days": max(1, settings.PASSWORD_RESET_TIMEOUT // 86400),
    }
    # in the language he chose at sign-up, whatever the page's
    with reading_for(user=user):
        subject = render_to_string("accounts/email/verify_subject.txt", context)
        body = render_to_string("accounts/email/verify.txt", context).strip()
    message = EmailMessage(subject=" ".join(subject.split()), body=body, to=[user.email])
    try:
        message.send()
    except (smtplib.SMTPException, OSError) as e:
        raise ServiceError(
            _("We could not send the confirmation email. Please try again later.")
        ) from e


def verification_user(*, uidb64: str, token: str) -> User | None:
    """The inactive account this confirmation link is for; None if the link is not valid
    (mistyped, expired, or already used)."""
    try:
        pk = urlsafe_base64_decode(uidb64).decode()
        user = User.objects.get(pk=pk)
    except (ValueError, TypeError, OverflowError, User.DoesNotExist):
        return None
    if user.is_active or not verification_tokens.check_token(user, token):
        return None
    return user


@transaction.atomic
def account_activate(*, user: User) -> User:
    user.is_active = True
    user.save(update_fields=["is_active"])
    return user


@transaction.atomic
def account_update(
    *, user: User, display_name: str, email: str, language: str, time_zone: str | None = None
) -> User:
    user.first_name = display_name
    user.email = email
    user.save(update_fields=["first_name", "email"])
    profile_language_set(user=user, language=language)
    if time_zone is not None:
        profile_zone_set(user=user, time_zone=time_zone)
    return user


def _zone_check(time_zone: str) -> None:
    if not zone_valid(time_zone):
        raise ServiceError({"time_zone": [_("Choose one of the time zones offered.")]})


def profile_zone_set(*, user: User, time_zone: str) -> Profile:
    _zone_check(time_zone)
    profile, _created = Profile.objects.update_or_create(
        user=user, defaults={"time_zone": time_zone}
    )
    return profile


def profile_language_set(*, user: User, language: str) -> Profile:
    if language not in dict(settings.LANGUAGES):
        raise ServiceError({"language": [_("Choose one of the languages offered.")]})
    profile, _created = Profile.objects.update_or_create(user=user, defaults={"language": language})
    return profile


def profile_language(*, user: User) -> str | None:
    """The language `user` chose, None if he never did."""
    return Profile.objects.filter(user=user).values_list("language", flat=True).first()


def profile_reading(*, user: User) -> Reading:
    """The language and time zone `user` reads in (the site's defaults where he chose none)."""
    return reading_of(user)


@contextmanager
def reading_for(*, user: User) -> Iterator[Reading]:
    """Write an email for `user`: in his language and on his clock; for an account that never
    chose (no profile), in the page's language."""
    with reading_as(reading_for_email(user)) as reading:
        yield reading
