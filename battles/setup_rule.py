"""How to set up the battlefield from the square's terrain (§7.6), in the reader's language:
the engine chooses the features whose rule applies (`rules.setup_rule_features`); these are
their words (the battle pack stores the engine's English, which no reader sees)."""

from __future__ import annotations

from collections.abc import Iterable

from django.utils.translation import gettext_lazy

import rules as R

F = R.Feature
RULES = {
    F.FOREST: gettext_lazy(
        "Forest (§7.6): double the number of forest features; all other terrain features "
        "must be woods."
    ),
    F.JUNGLE: gettext_lazy(
        "Jungle counts as forest (§6.3, §7.6): double the number of forest features; all "
        "other terrain features must be woods (jungle rules of §7.11 when enabled)."
    ),
    F.MOUNTAIN: gettext_lazy(
        "Mountain (§7.6): battlefield 60 × 120 cm (2 ft × 4 ft) with 1D6 terrain features."
    ),
    F.RIVER: gettext_lazy("River (§7.6): one terrain feature must be a river."),
    F.SWAMP: gettext_lazy("Swamp (§7.6): all other terrain features must be swamps."),
    F.HILL: gettext_lazy(
        "Hill [SR] (§7.6): set up as hilly geography (§7.7.1 row 3–4): at least 4 hills."
    ),
}
ALTERNATE = {
    F.FOREST: gettext_lazy(
        "Forest (§7.6, alternate reading): double the number of forest features; every "
        "second other feature is a wood."
    ),
    F.SWAMP: gettext_lazy(
        "Swamp (§7.6, alternate reading): every second other feature is a swamp."
    ),
}
PLAIN = gettext_lazy("Plain (§7.6): set up the battlefield as per FW core (180 × 120 cm).")


def setup_rule_text(features: Iterable[str], options: R.Options) -> str:
    """The §7.6 set-up of a battle fought on a square with these features."""
    chosen = R.setup_rule_features(features, options.every_other_reading, options.naran_terrain)
    words = [str((ALTERNATE if alternate else RULES)[f]) for f, alternate in chosen]
    return " ".join(words) or str(PLAIN)
