"""The turn stamp a test's POST carries, as the page's form would (campaign.selectors.
turn_expected): the number of the campaign's current turn."""

from __future__ import annotations

from typing import Any

from campaign.models import Turn


def current_turn(slug: str) -> int:
    return (
        Turn.objects.filter(campaign__slug=slug)
        .order_by("-number")
        .values_list("number", flat=True)[0]
    )


def stamped(slug: str, data: dict[str, Any] | None = None) -> dict[str, Any]:
    """`data` with the current turn's number, as the overview's forms send it."""
    return {"turn": current_turn(slug), **(data or {})}
