"""The Naran battle-terrain annex (§7.11, Appendices 1 and 3, p. 53–61) in the battle pack:
with the option `naran_battle_terrain`, the pack lists for the table the annex's rules that
the square's woods, jungle, hills, mountains, desert or swamp bring (the engine chooses the
topics, `BattlePack.terrain_annex`; these are their words)."""

from __future__ import annotations

from collections.abc import Iterable

from django.utils.translation import gettext_lazy

ANNEX = {
    "forest-vs-jungle": gettext_lazy(
        "Forest or jungle (p. 53): in a forest cavalry may move, at half speed, with wild "
        "animals but no dangerous plants; in a jungle no cavalry moves, infantry goes at a "
        "third of its speed, among dangerous creatures and plants."
    ),
    "woods-as-terrain": gettext_lazy(
        "Woods on the table (p. 53): a wood about 20 × 20 cm, trees 5 cm apart; a forest at "
        "least 25 × 35 cm, trees 2–3 cm apart; model trees are impassable hillocks."
    ),
    "moving-in-woods": gettext_lazy(
        "Moving in woods (p. 54): movement is halved in a forest; a unit in a wood or forest "
        "is disorganised at once and in skirmish order (figures at least 5 cm apart)."
    ),
    "visibility": gettext_lazy(
        "Visibility (p. 54): woods block sight (light signals excepted); a unit inside sees "
        "and is seen with a figure within 5 cm (forest) or 10 cm (wood) of the edge; a forest "
        "is heavy cover, a wood light cover; an unseen unit cannot be attacked from outside."
    ),
    "fighting-in-woods": gettext_lazy(
        "Fighting in woods (p. 54): a skirmish melee of every figure once two touch; "
        "champions +1 Valour; both sides disorganised; pole-arms fight in one rank at −1 to "
        "hit; the winner leaving the wood stops to reorganise."
    ),
    "command-radius": gettext_lazy(
        "Command in woods (p. 55): a unit out of its general's sight in the woods cannot "
        "carry out a new order, unless all his other units are within his command radius."
    ),
    "jungle-dangers": gettext_lazy(
        "Jungle dangers (p. 55): at least one beast and one carnivorous plant, 1D6 of each, "
        "placed by the higher 1D6 at least 30 cm apart, outside the deployment strips."
    ),
    "killer-trees": gettext_lazy(
        "Killer trees (p. 55–56): a tentacled tree grabs anyone within 5 cm and fights as "
        "Average quality, +3 Strength, −3 Resistance, Valour 6; a spore-thrower shoots like a "
        "short-bow volley at everything in sight."
    ),
    "plateau": gettext_lazy(
        "Plateau (p. 60): one level, 60 × 180 cm; 1D6: 1–4 under the deployment zone of the "
        "scouting winner, 5 the central strip, 6 under the loser's; climbing it disorganises "
        "and halves movement."
    ),
    "rocky-crest": gettext_lazy(
        "Rocky crest (p. 60): a sheer face can be neither climbed nor descended; a hill is "
        "passable only with at least one gentle side."
    ),
    "slippery-slope": gettext_lazy(
        "Slippery slope (p. 60): with snow or rain, a landslide test in the Threat phase: on "
        "1D6 5–6 everyone within 15 cm of the edge is hit, units lose 1D6 figures (saving "
        "throws allowed)."
    ),
    "cave": gettext_lazy(
        "Cave (p. 61): it may hide a lurking creature, or lie behind a waterfall."
    ),
    "djebel": gettext_lazy(
        "Djebel (p. 61): an isolated rocky desert hill, its summit reached by a cliff path in "
        "single file at half speed, disorganised; only flyers engage it; light cover and "
        "always long range against missiles from below."
    ),
    "quicksand": gettext_lazy(
        "Quicksand (p. 61): each player may secretly make one difficult-terrain feature of "
        "his half quicksand; a unit in it loses 2D6 figures a turn until it is out (saving "
        "throws allowed)."
    ),
}


def annex_lines(topics: Iterable[str]) -> list[str]:
    """The pack's annex topics in words, in the annex's order (unknown ones are skipped)."""
    return [str(ANNEX[t]) for t in topics if t in ANNEX]
