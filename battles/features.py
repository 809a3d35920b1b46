"""A holding's feature in the battle pack (R2.4, R8.7 [NARAN]): what the feature of the holding
fought over gives, in this battle, to whom. The engine's pack says whom its objects serve
(their holder) and its free characters (the first owner, while he holds it); this puts it
in words for the table, with a Burial Mound's relic as its set-up roll gave it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from campaign.models import Holding, SetupRoll
from campaign.text.labels import HOLDING_FEATURE, RELIC, label

OBJECTS = {
    "sacred-wood": gettext_lazy(
        "a Talisman, whose protection works only inside this wood and cannot be carried out"
    ),
    "tower-of-magic": gettext_lazy(
        "the tower's Talisman, whose protection works only in this square and cannot be carried out"
    ),
    "stonehenge-temple": gettext_lazy(
        "the protection of a Stonehenge Temple: Blessed for a force of the Light, Cursed for "
        "one of the Dark"
    ),
    "sanctuary": gettext_lazy(
        "a Sacred Amulet, whose protection works only in this square and cannot be carried out"
    ),
    "burial-mound": gettext_lazy(
        "a great warrior's relic, for one individual character and only in this square: %(relic)s"
    ),
    "village": gettext_lazy(
        "the village's 12 warriors, one unit of the lowest quality of its army list (archers "
        "if the square has a forest)"
    ),
    "city": gettext_lazy(
        "the city's two units (at most Veteran, with Leader, Champion, Standard-bearer and "
        "Musician) and one Special Fighter"
    ),
    "mine": gettext_lazy("100 points of Ars Arcana magic items, special weapons and protections"),
}
CHARACTERS = {
    "sacred-wood": gettext_lazy(
        "a Wizard with 20 magic points, who commands the Golem guarding the wood (it attacks "
        "only enemy intruders)"
    ),
    "tower-of-magic": gettext_lazy(
        "a Wizard with 20 magic points, who commands the Wood Guardians (they attack only "
        "enemy intruders)"
    ),
    "stonehenge-temple": gettext_lazy("a Seer"),
    "sanctuary": gettext_lazy("two Priests"),
}


@dataclass(frozen=True)
class FeatureLine:
    """The feature of the holding fought over, and what it gives here, in sentences."""

    holding: str
    feature: str
    benefits: list[str]


def feature_line(
    campaign_id: int, data: Mapping[str, Any], players: Mapping[str, str]
) -> FeatureLine | None:
    """The pack's `holding_feature` in words (None when the battle has none)."""
    feature = str(data.get("feature") or "")
    if not feature:
        return None
    hid = str(data.get("holding", ""))
    holding = Holding.objects.filter(campaign_id=campaign_id, key=hid).first()
    name = (holding.name if holding is not None else "") or hid
    benefits = []
    objects_with = str(data.get("objects_with") or "")
    if feature in OBJECTS:
        what = str(OBJECTS[feature])
        if feature == "burial-mound":
            what = what % {"relic": _relic(campaign_id, hid)}
        if objects_with:
            benefits.append(
                _("For %(army)s: %(what)s.")
                % {"army": players.get(objects_with, objects_with), "what": what}
            )
        else:
            benefits.append(
                _("For nobody now (its first owner lost it): %(what)s.") % {"what": what}
            )
    chars_with = str(data.get("characters_with") or "")
    if feature in CHARACTERS and chars_with:
        benefits.append(
            _("Fighting here for %(army)s, its first owner (R2.4.2): %(who)s.")
            % {"army": players.get(chars_with, chars_with), "who": CHARACTERS[feature]}
        )
    return FeatureLine(name, label(HOLDING_FEATURE, feature), benefits)


def _relic(campaign_id: int, holding_key: str) -> str:
    """The relic its set-up roll gave (R2.4, 1D6); unnamed when the GM chose the feature."""
    roll = (
        SetupRoll.objects.filter(
            campaign_id=campaign_id, kind=SetupRoll.Kind.FEATURE, target=holding_key
        )
        .order_by("-pk")
        .first()
    )
    relic = (roll.detail if roll is not None else "") or ""
    if relic in RELIC:
        return str(RELIC[relic])
    return _("the one the players agreed at set-up (Ars Arcana 3.16)")
