"""Invitation links: the GM creates them (an army, a side's new army, an observer, a co-GM),
guests accept them; expired, withdrawn and used-up links and existing members are refused
with a clear message. Then the pages: the GM's invitations page and the join page."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from campaign.access import viewer_for
from campaign.errors import ServiceError
from campaign.models import Campaign, Invitation, Membership, Player
from campaign.setup.invitations import (
    invitation_accept,
    invitation_create,
    invitation_revoke,
    user_get_or_create,
)
from campaign.setup.services import campaign_create_blank, campaign_start
from tests.campaign.setup.test_setup import World, make_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(settings) -> World:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    return make_world()


@pytest.fixture
def guest():
    return user_get_or_create(username="gwen", password="gwen-pass-1", first_name="Gwen")


def _invite(world: World, **kwargs) -> Invitation:
    kwargs.setdefault("role", "player")
    return invitation_create(campaign=world.campaign, created_by=world.users["gm"], **kwargs)


# --- creating --------------------------------------------------------------------------------


def test_an_invitation_has_an_unguessable_token(world):
    a = _invite(world, player=world.red)
    b = _invite(world, player=world.red)
    assert len(a.token) == 32 and a.token != b.token  # secrets.token_urlsafe(24)
    assert (a.role, a.player, a.max_uses, a.uses, a.revoked) == ("player", world.red, 1, 0, False)


@pytest.mark.parametrize(
    ("kwargs", "field", "message"),
    [
        ({"role": "player"}, "target", "names one army or one side"),
        ({"role": "player", "both": True}, "target", "names one army or one side"),
        ({"role": "observer", "side": True}, "target", "not a side"),
        ({"role": "gm", "player": True}, "target", "names no army or side"),
        ({"role": "king"}, "role", "Unknown role"),
        ({"role": "player", "player": True, "max_uses": 0}, "max_uses", "at least once"),
        ({"role": "player", "player": True, "expires": -1}, "expires", "in the future"),
    ],
)
def test_invitation_create_refusals(world, kwargs, field, message):
    if kwargs.pop("both", False):
        kwargs.update(player=True, side=True)
    if kwargs.get("player"):
        kwargs["player"] = world.red
    if kwargs.get("side"):
        kwargs["side"] = world.red.side
    if "expires" in kwargs:
        kwargs["expires"] = timezone.now() + timedelta(days=kwargs["expires"])
    with pytest.raises(ServiceError) as e:
        _invite(world, **kwargs)
    assert any(message in m for m in e.value.field_messages[field]), e.value.field_messages


def test_an_invitation_to_another_campaigns_army_is_refused(world, cast):
    other = cast.campaign.players.first()
    with pytest.raises(ServiceError, match="another campaign"):
        _invite(world, player=other)


# --- accepting -------------------------------------------------------------------------------


def test_accepting_an_army_invitation_makes_its_player(world, guest):
    inv = _invite(world, player=world.blue)
    m = invitation_accept(token=inv.token, user=guest)
    assert (m.role, m.player) == ("player", world.blue)
    viewer = viewer_for(user=guest, campaign=world.campaign)
    assert viewer.is_player and viewer.player == world.blue  # a co-commander of bruno
    inv.refresh_from_db()
    assert inv.uses == 1


def test_a_side_invitation_raises_a_new_army_for_the_guest(world, guest):
    inv = _invite(world, side=world.red.side, max_uses=3)
    m = invitation_accept(token=inv.token, user=guest)
    assert m.role == "player" and m.player.name == "Gwen"
    assert m.player.side == world.red.side and m.player.key == "gwen"
    other = user_get_or_create(username="hal")
    assert invitation_accept(token=inv.token, user=other).player.key == "hal"
    assert Player.objects.filter(campaign=world.campaign, side=world.red.side).count() == 3


def test_observer_and_gm_invitations(world, guest):
    obs = invitation_accept(token=_invite(world, role="observer").token, user=guest)
    assert (obs.role, obs.player) == ("observer", None)
    follower = user_get_or_create(username="hal")
    m = invitation_accept(
        token=_invite(world, role="observer", player=world.red).token, user=follower
    )
    assert (m.role, m.player) == ("observer", world.red)
    assert not viewer_for(user=follower, campaign=world.campaign).is_player
    co_gm = user_get_or_create(username="ida")
    invitation_accept(token=_invite(world, role="gm").token, user=co_gm)
    assert viewer_for(user=co_gm, campaign=world.campaign).is_gm


def test_a_used_up_invitation_is_refused(world, guest):
    inv = _invite(world, player=world.blue, max_uses=2)
    invitation_accept(token=inv.token, user=guest)
    invitation_accept(token=inv.token, user=user_get_or_create(username="hal"))
    late = user_get_or_create(username="ida")
    with pytest.raises(ServiceError, match="already been used as many times as it allows"):
        invitation_accept(token=inv.token, user=late)
    assert not Membership.objects.filter(user=late).exists()


def test_an_expired_invitation_is_refused(world, guest):
    inv = _invite(world, player=world.blue, expires=timezone.now() + timedelta(days=1))
    Invitation.objects.filter(pk=inv.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    with pytest.raises(ServiceError, match="This invitation expired on"):
        invitation_accept(token=inv.token, user=guest)


def test_a_withdrawn_invitation_is_refused(world, guest):
    inv = invitation_revoke(invitation=_invite(world, player=world.blue))
    with pytest.raises(ServiceError, match="withdrawn by the game master"):
        invitation_accept(token=inv.token, user=guest)


def test_a_member_cannot_join_twice(world):
    inv = _invite(world, player=world.blue)
    with pytest.raises(ServiceError, match="already a member of Wend Valley, as player"):
        invitation_accept(token=inv.token, user=world.users["red"])
    inv.refresh_from_db()
    assert inv.uses == 0


def test_an_unknown_token_is_refused(world, guest):
    with pytest.raises(ServiceError, match="not valid"):
        invitation_accept(token="no-such-token", user=guest)


def test_a_side_invitation_is_refused_once_the_campaign_started(settings, guest):
    w = make_world(forces=True)
    inv = _invite(w, side=w.red.side)
    campaign_start(campaign=w.campaign)
    with pytest.raises(ServiceError, match="has started: new armies can no longer join"):
        invitation_accept(token=inv.token, user=guest)
    with pytest.raises(ServiceError, match="only during set-up"):
        _invite(w, side=w.red.side)
    # an army invitation still works after the start
    m = invitation_accept(token=_invite(w, player=w.red).token, user=guest)
    assert m.player == w.red


def test_the_gm_invites_players_into_the_scenarios_two_roles(db, guest):
    gm = user_get_or_create(username="gina")
    c = campaign_create_blank(gm=gm, slug="inc", name="Incursion", scenario="incursion")
    raiders, defenders = c.players.get(role="raiders"), c.players.get(role="defenders")
    hal = user_get_or_create(username="hal")
    for player, user in ((raiders, guest), (defenders, hal)):
        inv = invitation_create(campaign=c, role="player", player=player)
        invitation_accept(token=inv.token, user=user)
    assert viewer_for(user=guest, campaign=c).player == raiders
    assert viewer_for(user=hal, campaign=c).player == defenders


# --- the invitations page --------------------------------------------------------------------


def test_invitations_page_creates_lists_and_withdraws_links(world):
    client = world.client("gm")
    html = client.get(world.url("invite")).content.decode()
    assert 'value="player:blue-orcs"' in html and 'value="side:red"' in html
    response = client.post(
        world.url("invite"),
        {
            "role": "player",
            "target": "player:blue-orcs",
            "max_uses": 2,
            "expires_in_days": 7,
        },
    )
    assert response.status_code == 302
    inv = Invitation.objects.get(campaign=world.campaign)
    assert (inv.player, inv.max_uses, inv.created_by) == (world.blue, 2, world.users["gm"])
    assert timedelta(days=6) < inv.expires_at - timezone.now() <= timedelta(days=7)
    html = client.get(world.url("invite")).content.decode()
    assert f"http://testserver{reverse('campaign:join', args=[inv.token])}" in html
    assert client.post(world.url("invitation-revoke", inv.pk)).status_code == 302
    inv.refresh_from_db()
    assert inv.revoked
    assert "withdrawn" in client.get(world.url("invite")).content.decode()


def test_invitations_page_shows_refusals_beside_the_field(world):
    response = world.client("gm").post(
        world.url("invite"), {"role": "player", "target": "", "max_uses": 1}
    )
    assert response.status_code == 400
    assert "names one army or one side" in str(response.context["form"].errors["target"])


def test_invitations_page_stays_open_after_the_start(settings):
    w = make_world(forces=True)
    campaign_start(campaign=w.campaign)
    html = w.client("gm").get(w.url("invite")).content.decode()
    assert 'value="player:red-dwarves"' in html and 'value="side:red"' not in html


@pytest.mark.parametrize(("who", "status"), [("red", 403), ("observer", 403), ("outsider", 404)])
def test_only_the_gm_invites(world, who, status):
    client = world.client(who)
    assert client.get(world.url("invite")).status_code == status
    response = client.post(
        world.url("invite"),
        {"role": "gm", "target": "", "max_uses": 5},
    )
    assert response.status_code == status
    assert not Invitation.objects.exists()


# --- the join page ---------------------------------------------------------------------------


def test_join_page_then_join(world, guest, client):
    inv = _invite(world, player=world.blue)
    url = reverse("campaign:join", args=[inv.token])
    client.force_login(guest)
    html = client.get(url).content.decode()
    assert "You are invited to command Blue Orcs." in html and "Join the campaign" in html
    response = client.post(url)
    assert response.status_code == 302
    assert response["Location"] == world.url("roster")  # set-up is open: write the roster
    assert Membership.objects.get(user=guest).player == world.blue


def test_join_page_explains_a_refusal(world, guest, client):
    inv = invitation_revoke(invitation=_invite(world, role="observer"))
    client.force_login(guest)
    response = client.get(reverse("campaign:join", args=[inv.token]))
    html = response.content.decode()
    assert "withdrawn by the game master" in html and "Join the campaign" not in html
    response = client.post(reverse("campaign:join", args=[inv.token]))
    assert response.status_code == 400 and "withdrawn" in response.content.decode()
    assert not Membership.objects.filter(user=guest).exists()


def test_join_page_for_a_member(world):
    inv = _invite(world, role="observer")
    html = world.client("red").get(reverse("campaign:join", args=[inv.token])).content.decode()
    assert "already a member" in html


@pytest.mark.parametrize(("role", "page"), [("observer", "setup-options"), ("gm", "setup-map")])
def test_join_page_sends_each_role_to_its_first_page(world, guest, client, role, page):
    inv = _invite(world, role=role)
    client.force_login(guest)
    response = client.post(reverse("campaign:join", args=[inv.token]))
    assert response["Location"] == world.url(page)
    assert client.get(response["Location"]).status_code == 200


def test_joining_a_started_campaign_leads_to_its_overview(settings, guest, client):
    w = make_world(forces=True)
    campaign_start(campaign=w.campaign)
    inv = _invite(w, role="observer")
    client.force_login(guest)
    response = client.post(reverse("campaign:join", args=[inv.token]))
    assert response["Location"] == reverse("campaign:detail", args=[w.campaign.slug])


def test_join_page_offers_a_visitor_sign_up_or_log_in_and_needs_a_real_token(world, client):
    """Logged out, the join page says what the invitation offers and how to take it (the
    sign-up itself: tests/accounts/test_join.py)."""
    inv = _invite(world, player=world.blue)
    url = reverse("campaign:join", args=[inv.token])
    response = client.get(url)
    assert response.status_code == 200
    html = response.content.decode()
    assert "You are invited to command Blue Orcs." in html
    assert "Create an account and join" in html and 'name="password2"' in html
    assert f'href="{reverse("login")}?next={url}"' in html
    assert client.get(reverse("campaign:join", args=["nope"])).status_code == 404
    client.force_login(world.users["outsider"])
    assert client.get(reverse("campaign:join", args=["nope"])).status_code == 404


def test_the_gm_emails_an_invitation_link(world, mailoutbox, settings):
    settings.SITE_URL = "https://fw.example.org"
    response = world.client("gm").post(
        world.url("invite"),
        {
            "role": "player",
            "target": "player:blue-orcs",
            "max_uses": 1,
            "expires_in_days": 7,
            "email": "guest@example.org",
        },
        follow=True,
    )
    assert "Invitation created and sent to guest@example.org" in response.content.decode()
    (mail,) = mailoutbox
    assert mail.to == ["guest@example.org"]
    invitation = world.campaign.invitations.get()
    assert f"https://fw.example.org/join/{invitation.token}/" in mail.body
    assert "You would play the army" in mail.body


def test_an_invitation_email_subject_has_no_line_break(world, mailoutbox):
    from campaign.setup.invitations import invitation_create, invitation_send

    Campaign.objects.filter(pk=world.campaign.pk).update(name="Two\nLines")
    world.campaign.refresh_from_db()
    invitation = invitation_create(campaign=world.campaign, role="observer")
    invitation_send(invitation=invitation, to="o@example.org")
    assert mailoutbox[0].subject == "You are invited to the campaign Two Lines"
