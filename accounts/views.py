"""The account pages: sign-up, the confirmation of an email address, the account page, the
language switcher, and Django's login and password reset views with this site's forms."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views import i18n
from django.views.decorators.http import require_http_methods, require_POST

from accounts import limits, services
from accounts.calendar import calendar_token
from accounts.calendar_views import calendar_url
from accounts.forms import (
    AccountForm,
    LoginForm,
    PasswordResetForm,
    SignupForm,
    language_initial,
)
from accounts.middleware import language_remember, reading_keep
from campaign.errors import ServiceError, form_errors_add
from campaign.keys import key_asked
from campaign.models import Invitation
from campaign.selectors import user_label
from campaign.setup import invitations
from campaign.setup.views.players import after_join

TOO_MANY_REQUESTS = 429


def signup_attempt(
    request: HttpRequest, form: SignupForm, *, invitation_token: str | None = None
) -> tuple[services.Signup | None, int]:
    """Sign up from a posted form: the new account (logged in unless it waits for its
    email address), or None and the status to show the form again with (429 over the
    limit: then nothing else is looked at)."""
    counted = limits.attempt(limits.per_client(request, limits.SIGNUP))
    if counted.wait:
        form.add_error(None, limits.too_many_message(counted.wait))
        return None, TOO_MANY_REQUESTS
    if not form.is_valid():
        counted.undo()  # only accounts made count
        return None, 400
    try:
        signup = services.account_signup(**form.account_fields(), invitation_token=invitation_token)
    except ServiceError as e:
        counted.undo()
        form_errors_add(e, form)
        return None, 400
    if signup.verifying:
        language_remember(request, form.cleaned_data["language"])
    else:
        login(request, signup.user)  # the user_logged_in receiver applies his language
    return signup, 200


@require_http_methods(["GET", "HEAD", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """Create an account: active at once, or once its email address is confirmed
    (ACCOUNT_EMAIL_VERIFICATION)."""
    if request.user.is_authenticated:
        return redirect(settings.LOGIN_REDIRECT_URL)
    form = SignupForm(request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST":
        done, status = signup_attempt(request, form)
        if done is not None and done.verifying:
            return redirect("accounts:signup-done")
        if done is not None:
            messages.success(request, _("Welcome, %(name)s: your account is ready.") % _named(done))
            return redirect(settings.LOGIN_REDIRECT_URL)
    return render(request, "accounts/signup.html", {"form": form}, status=status)


def _named(signup: services.Signup) -> dict[str, str]:
    return {"name": user_label(signup.user)}


@require_http_methods(["GET", "HEAD"])
def signup_done(request: HttpRequest) -> HttpResponse:
    """After a sign-up that waits for its email address: go and read the email."""
    days = max(1, settings.PASSWORD_RESET_TIMEOUT // 86400)
    return render(request, "accounts/signup_done.html", {"days": days})


@require_http_methods(["GET", "HEAD", "POST"])
def verify(request: HttpRequest, uidb64: str, token: str) -> HttpResponse:
    """The link in the confirmation email. GET asks to confirm (a mail scanner that opens
    the link must not spend it); POST activates the account, logs its user in and joins the
    campaign of the invitation the account was made from, if any."""
    user = services.verification_user(uidb64=uidb64, token=token)
    invitation_token = key_asked(request.GET.get("invitation")) or None
    invitation = (
        Invitation.objects.select_related("campaign").filter(token=invitation_token).first()
        if invitation_token
        else None
    )
    if user is None or request.method != "POST":
        context = {"valid": user is not None, "invitation": invitation}
        return render(request, "accounts/verify.html", context, status=200 if user else 400)
    services.account_activate(user=user)
    login(request, user)  # the user_logged_in receiver applies his language
    if invitation is None:
        messages.success(request, _("Your email address is confirmed: your account is ready."))
        return redirect(settings.LOGIN_REDIRECT_URL)
    try:
        membership = invitations.invitation_accept(token=invitation.token, user=user)
    except ServiceError as e:
        messages.error(
            request,
            _("Your account is ready, but you could not join %(c)s: %(why)s")
            % {"c": invitation.campaign.name, "why": e},
        )
        return redirect(settings.LOGIN_REDIRECT_URL)
    messages.success(request, _("Welcome to %(c)s.") % {"c": invitation.campaign.name})
    return redirect(after_join(membership))


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def profile(request: HttpRequest) -> HttpResponse:
    """The account page: display name, email address, language and time zone; links to the
    password and the notification settings."""
    user = request.user
    assert isinstance(user, User)  # login_required
    language = services.profile_language(user=user)
    form = AccountForm(
        request.POST if request.method == "POST" else None,
        instance=user,
        initial={
            "language": language or language_initial(),
            "time_zone": services.profile_reading(user=user).zone,
        },
    )
    status = 200
    if request.method == "POST":
        if form.is_valid():
            d = form.cleaned_data
            try:
                services.account_update(
                    user=user,
                    display_name=d["first_name"].strip(),
                    email=d["email"],
                    language=d["language"],
                    time_zone=d["time_zone"] or None,
                )
            except ServiceError as e:
                form_errors_add(e, form)
            else:
                language_remember(request, d["language"])
                reading_keep(request, user)
                messages.success(request, _("Your account was saved."))
                return redirect("accounts:profile")
        status = 400
    context = {
        "form": form,
        "calendar_url": calendar_url(request, user),
        "calendar_token": calendar_token(user=user) or "",
    }
    return render(request, "accounts/profile.html", context, status=status)


@require_POST
def language_set(request: HttpRequest) -> HttpResponse:
    """The header's language switcher: Django's `set_language` (the cookie), and for a
    logged-in user his account's language too (and his session's copy of it), which
    `accounts.middleware` activates on each of his requests: the switcher and the account page
    set one and the same language."""
    response = i18n.set_language(request)
    language = request.POST.get("language", "")
    chosen = settings.LANGUAGE_COOKIE_NAME in response.cookies
    if chosen and request.user.is_authenticated and language in dict(settings.LANGUAGES):
        assert isinstance(request.user, User)
        services.profile_language_set(user=request.user, language=language)
        reading_keep(request, request.user)
    return response


class LoginView(auth_views.LoginView):
    """Django's login, under the limit of failed logins: over it the form says how long to
    wait, with 429."""

    form_class = LoginForm

    def form_invalid(self, form: Any) -> HttpResponse:
        response = super().form_invalid(form)
        if getattr(form, "limited", False):
            response.status_code = TOO_MANY_REQUESTS
        return response


class PasswordResetView(auth_views.PasswordResetView):
    """Django's password reset; the emailed link is built on SITE_URL. Each request sends an
    email, so one client may ask only so often, and one email address be sent only so many,
    whoever asks (the "reset" limit, counted both ways); over it the form says how long to
    wait, with 429, and nothing is sent. The address is counted whether an account has it
    or not: a 429 tells nothing of who has an account."""

    form_class = PasswordResetForm

    def form_valid(self, form: Any) -> HttpResponse:
        counted = limits.attempt(
            limits.per_name(limits.RESET, form.cleaned_data["email"]),
            limits.per_client(self.request, limits.RESET),
        )
        if counted.wait:
            form.add_error(None, limits.too_many_message(counted.wait))
            response = self.form_invalid(form)
            response.status_code = TOO_MANY_REQUESTS
            return response
        return super().form_valid(form)
