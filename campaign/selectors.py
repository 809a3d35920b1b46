"""Reads for the campaign pages. Keyword-only, named `<entity>_<get/list>[_for_<who>]`."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import OuterRef, QuerySet, Subquery

from campaign.models import Campaign, Membership


def campaigns_list_for_user(*, user: AbstractBaseUser | AnonymousUser) -> QuerySet[Campaign]:
    """The campaigns `user` may open, by name: staff see them all, anyone else those they
    belong to, an anonymous visitor none. Each carries `user_role`, the user's membership
    role ("gm", "player", "observer"), or None where a staff user is not a member."""
    if not user.is_authenticated:
        return Campaign.objects.none()
    memberships = Membership.objects.filter(user=user)
    campaigns = Campaign.objects.annotate(
        user_role=Subquery(memberships.filter(campaign=OuterRef("pk")).values("role")[:1])
    )
    if not user.is_staff:
        campaigns = campaigns.filter(pk__in=memberships.values("campaign"))
    return campaigns.order_by("name", "pk")
