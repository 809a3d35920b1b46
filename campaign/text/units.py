"""A unit's kind in words: its quality and speciality composed in the order of the reader's
language ("Veteran infantry", "Fanteria veterana")."""

from __future__ import annotations

from django.utils.text import capfirst
from django.utils.translation import pgettext


def unit_kind(quality: str, speciality: str) -> str:
    """The kind of a unit from the names of its quality and speciality (labels.QUALITY,
    labels.SPECIALITY, already in the reader's language)."""
    if not (quality and speciality):
        return capfirst(quality or speciality)
    return capfirst(
        pgettext("a unit's kind: its quality, then its speciality", "%(quality)s %(speciality)s")
        % {"quality": quality.lower(), "speciality": speciality.lower()}
    )
