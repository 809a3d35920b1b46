"""Reads every part of the campaign app shares. Keyword-only, `<entity>_<get/list>[_for_<who>]`.

A feature's own reads are in its `selectors.py`; these are the few that several features and
the battles app need (the current turn, the active players, how a user is named).
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import OuterRef, QuerySet, Subquery
from django.utils.translation import gettext as _

from campaign.errors import ServiceError, SetupInProgress, StaleTurn
from campaign.models import Campaign, Membership, Player, Turn


def campaigns_list_for_user(*, user: User | AnonymousUser) -> QuerySet[Campaign]:
    """The campaigns `user` may open, by name: those he belongs to (staff too: a campaign is
    its members'), an anonymous visitor none. Each carries `user_role`, the user's membership
    role ("gm", "player", "observer"), and
    `current_turn`, the number of its latest turn (None during set-up)."""
    if not user.is_authenticated:
        return Campaign.objects.none()
    memberships = Membership.objects.filter(user=user)
    campaigns = Campaign.objects.filter(pk__in=memberships.values("campaign")).annotate(
        user_role=Subquery(memberships.filter(campaign=OuterRef("pk")).values("role")[:1]),
        # the latest turn's number: the rules' turn counter runs one past it once ended
        current_turn=Subquery(
            Turn.objects.filter(campaign=OuterRef("pk")).order_by("-number").values("number")[:1]
        ),
    )
    return campaigns.order_by("name", "pk")


def turn_current(*, campaign: Campaign) -> Turn:
    """The campaign's latest turn; `SetupInProgress` while it is being set up."""
    if campaign.setup_open:
        raise SetupInProgress(campaign)
    turn = campaign.turns.order_by("-number").first()
    if turn is None:
        raise ServiceError(f"Campaign {campaign.slug} has no turn.")
    return turn


TURN_FIELD = "turn"  # the hidden field every state-changing form of a turn carries


def turn_expected(*, campaign: Campaign, posted: object) -> Turn:
    """The current turn, if it is the one the form was rendered for (`posted`: the form's
    `turn` field, the turn's number); `StaleTurn`, naming both turns, otherwise. A form without
    the field is refused too: it cannot say which turn it meant."""
    turn = turn_current(campaign=campaign)
    try:
        number = int(str(posted))
    except ValueError:
        raise StaleTurn(
            _(
                "This form did not say which turn it was for, so nothing was done. The page "
                "now shows turn %(number)s: check it and try again."
            )
            % {"number": turn.number}
        ) from None
    if number != turn.number:
        raise StaleTurn(turn_moved_message(campaign=campaign, number=number, current=turn))
    return turn


def turn_moved_message(*, campaign: Campaign, number: int, current: Turn) -> str:
    """Why a form of turn `number` was refused: what became of it, and what is current."""
    old = campaign.turns.filter(number=number).first()
    values = {
        "old": number,
        "new": current.number,
        "new_status": current.get_status_display().lower(),
    }
    if old is None:
        return (
            _(
                "This page was for turn %(old)s, which does not exist; turn %(new)s is current "
                "(%(new_status)s). Nothing was done."
            )
            % values
        )
    values["old_status"] = old.get_status_display().lower()
    return (
        _(
            "This page was for turn %(old)s, which is now %(old_status)s; turn %(new)s is "
            "current (%(new_status)s). Nothing was done: check the page as it is now."
        )
        % values
    )


def players_active(*, campaign: Campaign) -> list[Player]:
    """The players who still give orders: those who have not surrendered."""
    return list(campaign.players.filter(surrendered=False).order_by("position", "key"))


def user_label(user: User | None) -> str:
    """How a user is named on the pages: full name, else user name."""
    if user is None:
        return _("someone no longer registered")
    return user.get_full_name() or user.get_username()
