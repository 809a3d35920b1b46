"""A force's organisation problems (R2.5, R6.11.6) in the reader's language.

`rules.validate_force_organisation` words its problems in English for programs, naming
forces by their ids; the roster pages name the force as its player wrote it and give the
numbers that matter, in a sentence per problem code. A code not known here keeps the rules'
own words.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.utils.translation import gettext as _

import rules as R
from rules import SetupProblem, validate_force_organisation


def force_problem_text(problem: SetupProblem, force: R.Force) -> str:
    """One problem of `force`, named by the force's name."""
    words: dict[str, object] = {"force": force.name or _("This force"), "rule": problem.rule}
    texts = {
        "no-leader": _("%(force)s has no general to lead it (%(rule)s)."),
        "no-units": _("%(force)s has no unit; it needs at least one (%(rule)s)."),
        "command-without-general": _("A command of %(force)s has no general (%(rule)s)."),
        "command-without-units": _("A command of %(force)s has no unit (%(rule)s)."),
        "cv-out-of-range": _(
            "A general of %(force)s has a command value outside 1 to 6 (%(rule)s)."
        ),
        "leader-not-highest-cv": _(
            "The leader chosen for %(force)s is not one of its generals with the highest "
            "command value, CV %(cv)s (%(rule)s)."
        ),
        "too-many-individuals": _(
            "%(force)s has %(characters)s characters but only %(units)s units; characters may "
            "not outnumber units, generals not counted (%(rule)s)."
        ),
        "allies-alone": _(
            "%(force)s holds only allied or mercenary commands; they must support a regular "
            "command (%(rule)s)."
        ),
        "sea-folk-limit": _(
            "%(force)s is a pirate force: its cavalry and artillery cost %(limited)s points, "
            "more than a third of its %(total)s points (%(rule)s)."
        ),
        "not-sea-folk": _(
            "%(force)s is a pirate force, but %(units)s are not sea-folk mercenaries (%(rule)s)."
        ),
    }
    if problem.code not in texts:
        return problem.message
    if problem.code == "leader-not-highest-cv":
        words["cv"] = max((g.cv for g in force.generals), default=0)
    elif problem.code == "too-many-individuals":
        words |= {"characters": len(force.individuals), "units": len(force.units)}
    elif problem.code == "sea-folk-limit":
        sea = R.validate_sea_folk_force(force)
        words |= {"limited": sea.limited_points, "total": sea.force_points}
    elif problem.code == "not-sea-folk":
        words["units"] = ", ".join(u.type for u in force.units if not u.mercenary)
    return texts[problem.code] % words


def force_problem_texts(force: R.Force) -> list[str]:
    """Every organisation problem of `force`, in words."""
    return [force_problem_text(p, force) for p in validate_force_organisation(force).problems]


def force_problems_by_code(force: R.Force) -> Iterable[tuple[str, str]]:
    """(code, words) of each organisation problem of `force`."""
    for p in validate_force_organisation(force).problems:
        yield p.code, force_problem_text(p, force)
