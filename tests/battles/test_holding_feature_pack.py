"""A holding's feature serves in a battle on its square (R2.4, R8.7 [NARAN]): the pack names
it and says what it gives to whom, a Burial Mound with the relic its set-up roll gave."""

from __future__ import annotations

import pytest

from campaign.models import Holding, SetupRoll, Square
from tests.battles.test_pack import contact, html_of, pack_url, text

pytestmark = pytest.mark.django_db


def _feature_at_the_battle(campaign, feature: str) -> None:
    """Millbrook (the Defenders') moved to (4, 8), where the Southern March waits."""
    Holding.objects.filter(campaign=campaign, key="millbrook").update(x=4, y=8, feature=feature)


def test_a_sacred_wood_gives_its_talisman_and_its_wizard_to_the_defenders(cast):
    _feature_at_the_battle(cast.campaign, "sacred-wood")
    contact(cast.campaign, holding_features=True)
    page = text(html_of(cast.client("side_a"), pack_url()))
    assert "Holding feature (R2.4)" in page
    assert "Millbrook: Sacred wood" in page
    assert (
        "For The March of Ashbury: a Talisman, whose protection works only inside this wood" in page
    )
    assert (
        "Fighting here for The March of Ashbury, its first owner (R2.4.2): "
        "a Wizard with 20 magic points" in page
    )


def test_a_burial_mound_names_the_relic_of_its_roll(cast):
    _feature_at_the_battle(cast.campaign, "burial-mound")
    SetupRoll.objects.create(
        campaign=cast.campaign,
        kind="feature",
        rule="R2.4",
        seed=1,
        target="millbrook",
        result="burial-mound",
        detail="sacred-helm",
    )
    contact(cast.campaign, holding_features=True)
    page = text(html_of(cast.client("side_b"), pack_url()))
    assert "the Sacred Helm (Ars Arcana 3.16.7)" in page
    assert "Fighting here for" not in page  # a Burial Mound has no free character


def test_without_the_option_the_pack_says_nothing_of_features(cast):
    _feature_at_the_battle(cast.campaign, "sacred-wood")
    contact(cast.campaign)
    assert "Holding feature (R2.4)" not in text(html_of(cast.client("gm"), pack_url()))


# --- §7.11 [NARAN] the battle-terrain annex in the pack ----------------------------------------


def test_the_terrain_annex_lists_the_rules_of_the_squares_woods(cast):
    Square.objects.filter(campaign=cast.campaign, x=4, y=8).update(features=["jungle"])
    contact(cast.campaign, naran_battle_terrain=True)
    page = text(html_of(cast.client("side_a"), pack_url()))
    assert "Naran battle terrain (§7.11)" in page
    assert "Moving in woods (p. 54)" in page and "Killer trees (p. 55–56)" in page
    assert "Plateau (p. 60)" not in page  # no hill here


def test_without_the_annex_option_the_pack_has_none(cast):
    Square.objects.filter(campaign=cast.campaign, x=4, y=8).update(features=["jungle"])
    contact(cast.campaign)
    assert "Naran battle terrain" not in text(html_of(cast.client("side_a"), pack_url()))
