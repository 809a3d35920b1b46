"""Who joins a campaign: invitation links the GM shares (a player of an army, a new army of a
side, an observer, a co-GM), with expiry, uses and withdrawal; and memberships and users as
the demo, the commands and the tests create them."""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from campaign.errors import ServiceError
from campaign.models import Campaign, Invitation, Membership, Player, Side
from campaign.moments import moment, reading_as, reading_for_email
from campaign.selectors import user_label
from campaign.setup.base import campaign_lock
from campaign.setup.services import player_create

INVITATION_TOKEN_BYTES = 24


@transaction.atomic
def invitation_create(
    *,
    campaign: Campaign,
    role: str,
    player: Player | None = None,
    side: Side | None = None,
    max_uses: int = 1,
    expires: datetime | None = None,
    created_by: User | None = None,
) -> Invitation:
    """A link that makes whoever follows it a member. A player invitation names the army
    (`player`), or a `side` whose new army the guest will command (set-up only); an observer
    may follow an army; a GM invitation adds a co-GM."""
    if role not in Membership.Role.values:
        raise ServiceError({"role": [_("Unknown role %(r)r.") % {"r": role}]})
    for field, obj in (("player", player), ("side", side)):
        if obj is not None and obj.campaign_id != campaign.pk:
            raise ServiceError({field: [_("That belongs to another campaign.")]})
    if role == Membership.Role.PLAYER and (player is None) == (side is None):
        raise ServiceError({"target": [_("A player invitation names one army or one side.")]})
    if role == Membership.Role.OBSERVER and side is not None:
        raise ServiceError({"target": [_("An observer may follow an army, not a side.")]})
    if role == Membership.Role.GM and (player is not None or side is not None):
        raise ServiceError({"target": [_("A game master invitation names no army or side.")]})
    if side is not None and not Campaign.objects.get(pk=campaign.pk).setup_open:
        raise ServiceError(
            {"target": [_("New armies can join only during set-up; invite to an army instead.")]}
        )
    if max_uses < 1:
        raise ServiceError({"max_uses": [_("An invitation can be used at least once.")]})
    if expires is not None and expires <= timezone.now():
        raise ServiceError({"expires": [_("The expiry must be in the future.")]})
    return Invitation.objects.create(
        campaign=campaign,
        token=secrets.token_urlsafe(INVITATION_TOKEN_BYTES),
        role=role,
        player=player,
        side=side,
        max_uses=max_uses,
        expires_at=expires,
        created_by=created_by,
    )


def invitation_url(*, invitation: Invitation) -> str:
    """The invitation's absolute link, on the site's public address (`SITE_URL`)."""
    return settings.SITE_URL + reverse("campaign:join", args=[invitation.token])


def invitation_send(*, invitation: Invitation, to: str) -> None:
    """Email the invitation's link to `to`, saying what it offers and who sends it: in the
    language and on the clock of the account with that address if there is one, else in the
    GM's page's language, on UTC's clock."""
    campaign = invitation.campaign
    inviter = invitation.created_by
    context = {
        "campaign": campaign,
        "invitation": invitation,
        "url": invitation_url(invitation=invitation),
        "inviter": user_label(inviter) if inviter else "",
    }
    # a line break in a name must not reach a mail header
    name = " ".join(campaign.name.split())
    known = get_user_model().objects.filter(email__iexact=to).order_by("pk").first()
    with reading_as(reading_for_email(known)):
        subject = _("You are invited to the campaign %(c)s") % {"c": name}
        body = render_to_string("campaign/email/invitation.txt", context)
    send_mail(subject, body, None, [to])


@transaction.atomic
def invitation_revoke(*, invitation: Invitation) -> Invitation:
    invitation.revoked = True
    invitation.save(update_fields=["revoked"])
    return invitation


def invitation_refusal(*, invitation: Invitation, user: User | None) -> str | None:
    """Why `user` cannot accept `invitation` now, for people; None when he can. `user` None:
    a visitor who is not logged in (and may sign up to accept it)."""
    campaign = invitation.campaign
    if invitation.revoked:
        return _("This invitation has been withdrawn by the game master.")
    if invitation.expires_at is not None and invitation.expires_at <= timezone.now():
        when = moment(invitation.expires_at)
        return _("This invitation expired on %(when)s.") % {"when": when}
    if invitation.uses >= invitation.max_uses:
        return _("This invitation has already been used as many times as it allows (%(n)d).") % {
            "n": invitation.max_uses
        }
    member = Membership.objects.filter(campaign=campaign, user=user).first() if user else None
    if member is not None:
        return _("You are already a member of %(campaign)s, as %(role)s.") % {
            "campaign": campaign.name,
            "role": member.get_role_display().lower(),
        }
    if invitation.side_id is not None and not campaign.setup_open:
        return _(
            "%(campaign)s has started: new armies can no longer join. Ask the game master "
            "for an invitation to an existing army."
        ) % {"campaign": campaign.name}
    return None


@transaction.atomic
def invitation_accept(*, token: str, user: User) -> Membership:
    """Join the campaign by an invitation: take its army, command a new army of its side,
    observe, or co-run the campaign. Expired, withdrawn or used-up invitations are refused,
    and so is a user who is a member already."""
    invitation = Invitation.objects.select_for_update(of=("self",)).filter(token=token).first()
    if invitation is None:
        raise ServiceError(_("This invitation link is not valid."))
    # the campaign row is locked so that joins and the start of the campaign never interleave
    campaign = invitation.campaign = campaign_lock(invitation.campaign, setup=False)
    refusal = invitation_refusal(invitation=invitation, user=user)
    if refusal:
        raise ServiceError(refusal)
    player = invitation.player
    if invitation.side is not None:
        name = user_label(user).strip()
        player = player_create(campaign=campaign, side=invitation.side, name=name)
    membership = Membership.objects.create(
        campaign=campaign, user=user, role=invitation.role, player=player
    )
    invitation.uses += 1
    invitation.save(update_fields=["uses"])
    return membership


@transaction.atomic
def membership_add(
    *, campaign: Campaign, user: User, role: str, player: Player | None = None
) -> Membership:
    if role == Membership.Role.PLAYER and player is None:
        raise ServiceError("A player membership needs the player (army) it controls.")
    if player is not None and player.campaign_id != campaign.pk:
        raise ServiceError("That player belongs to another campaign.")
    try:
        return Membership.objects.create(campaign=campaign, user=user, role=role, player=player)
    except IntegrityError as e:
        raise ServiceError(f"{user} is already a member of {campaign}.") from e


def user_get_or_create(*, username: str, password: str | None = None, **fields: Any) -> User:
    """The user with this name, created (with an unusable password unless one is given)."""
    user, created = get_user_model().objects.get_or_create(username=username, defaults=fields)
    if created or password is not None:
        if password is None:
            user.set_unusable_password()
        else:
            user.set_password(password)
        user.save()
    return user
