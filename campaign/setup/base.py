"""The steps every set-up write shares: the campaign row locked for the transaction (and
refused once set-up is over), fresh keys from the campaign's counter, positions, and the
checks of a square and of holdings that several set-up pages make."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django.db import models
from django.db.models import Max
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

import rules as R
from campaign import adapters
from campaign.errors import ServiceError
from campaign.models import Campaign
from campaign.text import labels
from rules import SetupProblem, validate_holding_placement


class SetupClosed(ServiceError):
    """Set-up is over (or never was, for a scenario campaign): the map and rosters are fixed."""


def campaign_lock(campaign: Campaign, *, setup: bool = True) -> Campaign:
    """The campaign row, locked for this transaction; with `setup`, refused once set-up is
    over."""
    locked = Campaign.objects.select_for_update().get(pk=campaign.pk)
    if setup and not locked.setup_open:
        raise SetupClosed(
            _("The set-up of %(campaign)s is closed: the campaign has started.")
            % {"campaign": locked.name}
        )
    return locked


def _take_number(locked: Campaign) -> int:
    n = locked.next_id
    locked.next_id = n + 1
    locked.save(update_fields=["next_id"])
    return n


def key_fresh(locked: Campaign, fmt: str, taken: Callable[[str], bool]) -> str:
    """The next key `fmt.format(n=…)` from the campaign counter that no row uses yet (a
    scenario's own ids may already use low numbers)."""
    while True:
        key = fmt.format(n=_take_number(locked))
        if not taken(key):
            return key


def slug_key_fresh(model: type[models.Model], campaign: Campaign, name: str, fallback: str) -> str:
    base = slugify(name)[:40] or fallback
    key, i = base, 2
    while model._default_manager.filter(campaign=campaign, key=key).exists():
        key = f"{base}-{i}"
        i += 1
    return key


def position_next(qs: models.QuerySet[Any]) -> int:
    top = qs.aggregate(top=Max("position"))["top"]
    return 0 if top is None else top + 1


def on_map_check(campaign: Campaign, x: int, y: int) -> None:
    if not (0 <= x < campaign.width and 0 <= y < campaign.height):
        raise ServiceError(
            {
                "x": [
                    _("Square (%(x)d, %(y)d) is off the %(w)d×%(h)d map.")
                    % {"x": x, "y": y, "w": campaign.width, "h": campaign.height}
                ]
            }
        )


def features_clean(values: Iterable[str | R.Feature]) -> list[str]:
    """Stored features: known values, sorted, without `open` (the absence of any)."""
    out: set[str] = set()
    for v in values:
        try:
            out.add(R.Feature(v).value)
        except ValueError:
            known = ", ".join(f.value for f in R.Feature)
            raise ServiceError(
                {
                    "features": [
                        _("Unknown feature %(f)r (known: %(known)s).") % {"f": v, "known": known}
                    ]
                }
            ) from None
    out.discard(R.Feature.OPEN.value)
    return sorted(out)


def holding_problems(
    state: R.CampaignState, holdings: Iterable[R.Holding] | None = None
) -> list[SetupProblem]:
    """R2.3.2–2.3.4 problems of the given holdings (default: all) on the state's map; the
    capital count (R2.3.5) is left to `campaign_start`, as holdings go down one by one."""
    subjects = {h.id for h in (state.holdings if holdings is None else holdings)}
    result = validate_holding_placement(
        game_map=state.map, players=state.players, holdings=state.holdings
    )
    return [p for p in result.problems if p.code != "capital-count" and p.subject in subjects]


def holding_problem_text(
    problem: SetupProblem, *, players: Iterable[R.Player], holdings: Iterable[R.Holding]
) -> str:
    """A holding problem (R2.3) in a sentence that names the holdings and armies by their
    names, from the problem's facts; the rules' own message if its code is new here."""
    armies = {p.id: p.name or p.id for p in players}
    by_id = {h.id: h for h in holdings}
    facts = problem.facts

    def holding(key: object) -> str:
        h = by_id.get(str(key))
        if h is None:
            return str(key)
        x, y = h.square
        if h.name:
            return _("%(name)s at (%(x)d, %(y)d)") % {"name": h.name, "x": x, "y": y}
        return _("at (%(x)d, %(y)d)") % {"x": x, "y": y}

    army = armies.get(str(facts.get("owner") or facts.get("player")), "")
    words: dict[str, object] = {
        "holding": holding(facts.get("holding")),
        "army": army,
        "rule": problem.rule,
    }
    if problem.code == "outside-territory":
        text = _("The holding %(holding)s is not in the friendly territory of %(army)s (%(rule)s).")
    elif problem.code == "forbidden-terrain":
        found = facts.get("terrain")
        features = found if isinstance(found, tuple | list) else ()
        terrain = [labels.label(labels.FEATURE, f).lower() for f in features]
        words |= {"terrain": ", ".join(terrain), "race": str(facts.get("race") or "")}
        text = (
            _(
                "The holding %(holding)s stands on %(terrain)s, where %(army)s (%(race)s) may "
                "not build (%(rule)s)."
            )
            if words["race"]
            else _(
                "The holding %(holding)s stands on %(terrain)s, where %(army)s may not build "
                "(%(rule)s)."
            )
        )
    elif problem.code == "too-close":
        distance = int(str(facts.get("distance", 0)))
        words |= {"other": holding(facts.get("other")), "n": distance}
        text = ngettext(
            "The holdings %(other)s and %(holding)s of %(army)s are %(n)d square apart; "
            "the holdings of one army stand at least 3 squares apart (%(rule)s).",
            "The holdings %(other)s and %(holding)s of %(army)s are %(n)d squares apart; "
            "the holdings of one army stand at least 3 squares apart (%(rule)s).",
            distance,
        )
    elif problem.code == "capital-count":
        capitals = int(str(facts.get("capitals", 0)))
        words["n"] = capitals
        text = ngettext(
            "%(army)s has %(n)d capital; each army has exactly one (%(rule)s).",
            "%(army)s has %(n)d capitals; each army has exactly one (%(rule)s).",
            capitals,
        )
    elif problem.code == "off-map":
        text = _("The holding %(holding)s is off the map (%(rule)s).")
    elif problem.code == "unknown-owner":
        text = _("The holding %(holding)s belongs to no army (%(rule)s).")
    else:
        return problem.message
    return text % words


def holding_problem_texts(state: R.CampaignState, problems: Iterable[SetupProblem]) -> list[str]:
    return [
        holding_problem_text(p, players=state.players, holdings=state.holdings) for p in problems
    ]


def state_of(locked: Campaign) -> R.CampaignState:
    return adapters.state_load(campaign=locked)
