"""The results of the Naran scenery tables (§7.7) in the reader's language, with the Italian
rulebook's own terms: the engine stores the codes of rules.tables (GEOGRAPHY, VEGETATION,
HYDROGRAPHY, SPECIAL_FEATURES, ARTIFICIAL_WORKS)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

OUTCOME = {
    "flat": gettext_lazy("Flat region"),
    "hilly": gettext_lazy("Hilly region"),
    "mountainous": gettext_lazy("Mountainous region"),
    "grassland": gettext_lazy("Natural vegetation"),
    "cultivated-fields": gettext_lazy("Cultivated fields"),
    "wood": gettext_lazy("Wood"),
    "forest-or-jungle": gettext_lazy("Forest or jungle"),
    "desert-or-wasteland": gettext_lazy("Desert or wasteland"),
    "river": gettext_lazy("Stream, river or wadi"),
    "marsh": gettext_lazy("Marsh"),
    "lake": gettext_lazy("Lake"),
    "swamp": gettext_lazy("Swamp"),
    "volcano": gettext_lazy("Volcano and river of lava"),
    "dunes": gettext_lazy("Dunes"),
    "boulders": gettext_lazy("Boulders"),
    "isolated-mountain": gettext_lazy("Isolated mountain"),
    "glacier-or-chasm": gettext_lazy("Glacier or chasm"),
    "mine-ruins-cemetery": gettext_lazy("Mine, ruins or cemetery"),
    "farm-or-village": gettext_lazy("Farm or village"),
    "isolated-temple": gettext_lazy("Isolated temple"),
    "isolated-tower": gettext_lazy("Isolated tower"),
    "sanctuary": gettext_lazy("Sanctuary"),
    "burial-mound": gettext_lazy("Burial mound"),
    "road": gettext_lazy("Road"),
    "bridge": gettext_lazy("Bridge"),
    "mountain-pass": gettext_lazy("Mountain pass"),
    "barrier": gettext_lazy("Barrier"),
}


def scenery_outcome(code: object) -> str:
    """A scenery roll's result in words; an unknown code (a newer engine's) with its dashes
    read as spaces."""
    found = OUTCOME.get(str(code))
    return str(found) if found is not None else str(code).replace("-", " ")
