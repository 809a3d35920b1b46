"""The account forms: Django's own auth forms, with the fields this site asks for and the
login limit."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import forms as auth_forms
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from accounts import limits, services
from campaign.moments import DEFAULT_ZONE, timezone_choices, zone_valid

TOO_MANY = "too_many_attempts"


def language_initial() -> str:
    """The language the visitor reads the site in now, if it is one we offer."""
    current = translation.get_language() or ""
    offered = dict(settings.LANGUAGES)
    return current if current in offered else settings.LANGUAGE_CODE


def _language_field() -> forms.ChoiceField:
    # each language in its own name, as the header's switcher lists them
    choices = [
        (code, translation.get_language_info(code)["name_local"].capitalize())
        for code, _name in settings.LANGUAGES
    ]
    return forms.ChoiceField(
        label=_("Language"),
        choices=choices,
        help_text=_("The language you read the site in."),
    )


class ZoneField(forms.ChoiceField):
    """A time zone of the IANA database, chosen from its regions (`campaign.moments`). On
    the sign-up form the browser's own zone is preselected by static/js/site.js
    (`data-browser-zone`), UTC without JavaScript. Left out of a form posted by other means:
    UTC for a new account, unchanged on the account page."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("label", _("Time zone"))
        kwargs.setdefault(
            "help_text", _("Every date and time on the site and in our emails is on its clock.")
        )
        super().__init__(choices=timezone_choices, **kwargs)

    def validate(self, value: Any) -> None:
        super().validate(value)
        if value and not zone_valid(value):
            raise ValidationError(_("Choose one of the time zones offered."), code="zone")


class _EmailUnique:
    """An email address is one account's: the password reset finds the account by it."""

    instance: User
    cleaned_data: dict[str, Any]

    def clean_email(self) -> str:
        email = User.objects.normalize_email(self.cleaned_data["email"])
        taken = User.objects.filter(email__iexact=email).exclude(pk=self.instance.pk)
        if email and taken.exists():
            raise ValidationError(
                _("An account with this email address already exists."), code="email_taken"
            )
        return email


class SignupForm(_EmailUnique, auth_forms.UserCreationForm[User]):
    """User name, display name, email, the password twice (checked by Django's password
    validators), the language and the time zone."""

    email = forms.EmailField(
        label=_("Email address"),
        help_text=_("We send the links to confirm it and to reset your password here."),
    )
    language = _language_field()
    time_zone = ZoneField(initial=DEFAULT_ZONE)

    class Meta(auth_forms.UserCreationForm.Meta):
        model = User
        fields = ("username", "first_name", "email")
        labels = {"first_name": _("Display name")}
        help_texts = {"first_name": _("The name other players see in the campaigns.")}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("initial", {}).setdefault("language", language_initial())
        super().__init__(*args, **kwargs)
        self.fields["first_name"].required = True
        if not self.is_bound:  # the browser's zone, unless the visitor chose one
            self.fields["time_zone"].widget.attrs["data-browser-zone"] = ""

    def account_fields(self) -> dict[str, str]:
        """The cleaned fields, as `accounts.services.account_signup` takes them."""
        d = self.cleaned_data
        return {
            "username": d["username"],
            "display_name": d["first_name"].strip(),
            "email": d["email"],
            "password": d["password1"],
            "language": d["language"],
            "time_zone": d["time_zone"] or DEFAULT_ZONE,
        }


class AccountForm(_EmailUnique, forms.ModelForm):  # type: ignore[type-arg]
    """The account page: display name, email address, language and time zone."""

    email = forms.EmailField(label=_("Email address"))
    language = _language_field()
    time_zone = ZoneField()

    class Meta:
        model = User
        fields = ("first_name", "email")
        labels = {"first_name": _("Display name")}
        help_texts = {"first_name": _("The name other players see in the campaigns.")}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["first_name"].required = True


class _LoginLimit:
    """Counts a login before it is tried, per user name (`limits.LOGIN`) and per client
    address (`limits.LOGIN_ADDRESS`), and refuses it at once when either is over its limit.
    A successful login gives its count back: only failures count."""

    request: Any
    limited = False

    def clean(self) -> dict[str, Any]:
        data = self.cleaned_data  # type: ignore[attr-defined]
        username = str(data.get("username") or "")
        counted = None
        if self.request is not None and username and data.get("password"):
            counted = limits.attempt(
                limits.per_name(limits.LOGIN, username),
                limits.per_client(self.request, limits.LOGIN_ADDRESS),
            )
            if counted.wait:
                self.limited = True
                raise ValidationError(limits.too_many_message(counted.wait), code=TOO_MANY)
        cleaned: dict[str, Any] = super().clean()  # type: ignore[misc]  # a failure raises
        if counted is not None:
            counted.undo()
        return cleaned


class LoginForm(_LoginLimit, auth_forms.AuthenticationForm):
    def clean(self) -> dict[str, Any]:
        try:
            return super().clean()
        except ValidationError as e:
            if e.code == "invalid_login" and self._waiting_for_confirmation():
                raise ValidationError(
                    _(
                        "This account is not active. If you have just signed up, open the "
                        "link in the email we sent you to confirm your address."
                    ),
                    code="inactive",
                ) from e
            raise

    def _waiting_for_confirmation(self) -> bool:
        """The right password for an account that is not active (yet): the one case where
        saying so tells nothing to someone who does not know the password."""
        username = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        user = User.objects.filter(username=username).first()
        return (
            user is not None
            and not user.is_active
            and password is not None
            and user.check_password(password)
        )


class AdminLoginForm(_LoginLimit, AdminAuthenticationForm):
    """The admin's login, under the same limit."""


class PasswordResetForm(auth_forms.PasswordResetForm):
    """Django's reset form; the link in its email is built on SITE_URL, not on the host
    the request came to."""

    def save(self, *args: Any, **kwargs: Any) -> None:
        site = urlsplit(settings.SITE_URL)
        kwargs["domain_override"] = site.netloc
        kwargs["use_https"] = site.scheme == "https"
        kwargs["extra_email_context"] = {
            **(kwargs.get("extra_email_context") or {}),
            "site_url": settings.SITE_URL.rstrip("/"),
        }
        super().save(*args, **kwargs)

    def send_mail(
        self,
        subject_template_name: str,
        email_template_name: str,
        context: dict[str, Any],
        from_email: str | None,
        to_email: str,
        html_email_template_name: str | None = None,
    ) -> None:
        """In the language and on the clock the user chose, else the page's."""
        with services.reading_for(user=context["user"]):
            super().send_mail(
                subject_template_name,
                email_template_name,
                context,
                from_email,
                to_email,
                html_email_template_name,
            )
