"""An invitation link opened by someone without an account: he sees what it offers, and
either creates his account and joins in one step (one atomic POST: a refused invitation
leaves no account behind) or logs in to join. With email verification on, the invitation
rides in the confirmation link and is accepted when the address is confirmed."""

from __future__ import annotations

from types import SimpleNamespace
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.urls import reverse

from accounts import services
from campaign.errors import ServiceError
from campaign.models import Invitation, Membership
from campaign.setup.invitations import invitation_create, invitation_revoke
from tests.accounts.conftest import PASSWORD, link_in, signup_data
from tests.campaign.setup.test_setup import World, make_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world() -> World:
    return make_world()


def _invite(world: World, **kwargs) -> Invitation:
    kwargs.setdefault("role", "player")
    return invitation_create(campaign=world.campaign, created_by=world.users["gm"], **kwargs)


def _url(inv: Invitation) -> str:
    return reverse("campaign:join", args=[inv.token])


def test_a_visitor_sees_the_offer_and_both_ways_in(world, client):
    inv = _invite(world, player=world.blue)
    html = client.get(_url(inv)).content.decode()
    assert "Join Wend Valley" in html and "You are invited to command Blue Orcs." in html
    assert "Create an account and join" in html
    assert f'href="{reverse("login")}?next={_url(inv)}">Log in to join</a>' in html
    assert "Join the campaign</button>" not in html  # that is the logged-in user's button


def test_sign_up_and_join_in_one_step(world, client, settings):
    settings.ACCOUNT_EMAIL_VERIFICATION = False
    inv = _invite(world, player=world.blue)
    response = client.post(_url(inv), signup_data())
    assert response.status_code == 302
    assert response["Location"] == world.url("roster")  # as the logged-in join: set-up is open
    user = User.objects.get(username="wanda")
    assert user.is_active and client.session["_auth_user_id"] == str(user.pk)
    membership = Membership.objects.get(user=user)
    assert (membership.campaign, membership.role, membership.player) == (
        world.campaign,
        "player",
        world.blue,
    )
    inv.refresh_from_db()
    assert inv.uses == 1
    assert "Welcome to Wend Valley." in client.get(response["Location"]).content.decode()


def test_a_new_army_is_named_after_the_display_name(world, client):
    red_side = world.red.side
    inv = _invite(world, side=red_side)
    client.post(_url(inv), signup_data())
    membership = Membership.objects.get(user__username="wanda")
    assert membership.player.name == "Wanda the Bold" and membership.player.side == red_side


def test_a_refused_invitation_makes_no_account(world, client):
    inv = invitation_revoke(invitation=_invite(world, player=world.blue))
    page = client.get(_url(inv)).content.decode()
    assert "withdrawn by the game master" in page and "Create an account and join" not in page
    response = client.post(_url(inv), signup_data())
    assert response.status_code == 400
    assert "withdrawn by the game master" in response.content.decode()
    assert not User.objects.filter(username="wanda").exists()


def test_a_refusal_found_while_joining_rolls_the_account_back(world, client, monkeypatch):
    """The invitation is used up between the page's check and the join (another guest was
    quicker): the sign-up is refused with the reason on the form, and no account remains."""
    inv = _invite(world, player=world.blue)
    Invitation.objects.filter(pk=inv.pk).update(uses=1)
    monkeypatch.setattr(
        "accounts.join.invitations", SimpleNamespace(invitation_refusal=lambda **kw: None)
    )
    response = client.post(_url(inv), signup_data())
    assert response.status_code == 400
    errors = response.context["signup_form"].non_field_errors()
    assert "already been used as many times as it allows" in " ".join(errors)
    assert "already been used" in response.content.decode()
    assert not User.objects.filter(username="wanda").exists()
    assert "_auth_user_id" not in client.session


def test_the_signup_service_is_atomic(world):
    inv = invitation_revoke(invitation=_invite(world, role="observer"))
    fields = {k: v for k, v in signup_data().items() if k not in ("password1", "password2")}
    fields["display_name"] = fields.pop("first_name")
    with pytest.raises(ServiceError, match="withdrawn"):
        services.account_signup(**fields, password=PASSWORD, invitation_token=inv.token)
    assert not User.objects.filter(username="wanda").exists()


def test_a_bad_sign_up_on_the_join_page_shows_its_errors(world, client):
    inv = _invite(world, player=world.blue)
    response = client.post(_url(inv), signup_data(password2="nope-nope-nope"))
    assert response.status_code == 400
    assert "password2" in response.context["signup_form"].errors
    assert "You are invited to command Blue Orcs." in response.content.decode()
    assert not User.objects.filter(username="wanda").exists() and not Membership.objects.filter(
        player=world.blue, user__username="wanda"
    )


def test_log_in_to_join_comes_back_to_the_join_page(world, client):
    inv = _invite(world, role="observer")
    response = client.post(
        reverse("login"),
        {"username": "oscar", "password": "oscar-pass-1", "next": _url(inv)},
    )
    assert response["Location"] == _url(inv)
    html = client.get(_url(inv)).content.decode()
    assert "Join the campaign</button>" in html and "Create an account and join" not in html
    response = client.post(_url(inv))
    assert response["Location"] == world.url("setup-options")
    assert Membership.objects.get(user=world.users["outsider"]).role == "observer"


# --- with email verification -----------------------------------------------------------------


def test_with_verification_the_campaign_is_joined_when_the_address_is_confirmed(
    world, client, settings
):
    settings.ACCOUNT_EMAIL_VERIFICATION = True
    inv = _invite(world, player=world.blue)
    response = client.post(_url(inv), signup_data())
    assert response["Location"] == reverse("accounts:signup-done")
    user = User.objects.get(username="wanda")
    assert not user.is_active and not Membership.objects.filter(user=user).exists()
    assert "_auth_user_id" not in client.session

    url = link_in(mail.outbox[0].body)
    assert url.startswith("https://campaigns.example.org/accounts/verify/")
    assert f"?invitation={inv.token}" in url
    split = urlsplit(url)
    path = f"{split.path}?{split.query}"
    assert "Then you will join Wend Valley." in client.get(path).content.decode()
    response = client.post(path)
    assert response["Location"] == world.url("roster")
    assert Membership.objects.get(user=user).player == world.blue
    assert client.session["_auth_user_id"] == str(user.pk)


def test_with_verification_a_refused_invitation_makes_no_account(world, client, settings):
    settings.ACCOUNT_EMAIL_VERIFICATION = True
    inv = _invite(world, player=world.blue)
    Invitation.objects.filter(pk=inv.pk).update(uses=1)
    response = client.post(_url(inv), signup_data())
    assert response.status_code == 400
    assert not User.objects.filter(username="wanda").exists() and not mail.outbox


def test_an_invitation_used_up_before_confirmation_still_activates_the_account(
    world, client, settings
):
    settings.ACCOUNT_EMAIL_VERIFICATION = True
    inv = _invite(world, player=world.blue)
    client.post(_url(inv), signup_data())
    invitation_revoke(invitation=inv)
    split = urlsplit(link_in(mail.outbox[0].body))
    response = client.post(f"{split.path}?{split.query}")
    assert response["Location"] == "/"
    user = User.objects.get(username="wanda")
    assert user.is_active and not Membership.objects.filter(user=user).exists()
    html = client.get("/").content.decode()
    assert "Your account is ready, but you could not join Wend Valley:" in html
    assert "withdrawn by the game master" in html
