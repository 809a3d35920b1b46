"""The dice of the set-up, rolled by the GM on the web and kept for everyone to see.

The climate zone and the season (R4.1.1–2) set the weather options; the opposed rolls of
R2.2.3 (the higher chooses his outer third) and R2.3.1 (the lower places all his holdings
first) tell the table who does what next. Each roll is a `SetupRoll` row with its seed and its
ledger: one entry per die, with its rule, so that `setup_roll_replay` gives it again. The
export carries the rows (`PART`, registered by the campaign app).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext as _

import rules as R
from campaign import adapters
from campaign.errors import ServiceError
from campaign.exchange.parts import Part, Restore, Written, moments, moments_restore, user_of
from campaign.models import Campaign, Holding, Player, SetupRoll
from campaign.selectors import user_label
from campaign.setup.base import campaign_lock
from campaign.text import labels

Kind = SetupRoll.Kind
RULES = {
    Kind.CLIMATE: "R4.1.1",
    Kind.SEASON: "R4.1.2",
    Kind.TERRITORY: "R2.2.3",
    Kind.PLACEMENT: "R2.3.1",
    Kind.FEATURE: "R2.4",
}
OPPOSED = (Kind.TERRITORY, Kind.PLACEMENT)


def _seed() -> int:
    return secrets.randbits(62)


def _outcome(
    kind: str, seed: int, options: R.Options, players: list[str], target: str = ""
) -> tuple[str, str, Any]:
    """Roll `kind` with the dice of `seed`: (the result, its detail, the dice with their
    ledger)."""
    dice = R.SeededDice(seed)
    if kind == Kind.FEATURE:
        feature, relic = R.holding_feature_roll(dice, target)
        return feature, relic or "", dice
    if kind == Kind.CLIMATE:
        result = R.climate_roll(dice).value
    elif kind == Kind.SEASON:
        result = R.season_roll(dice, options.climate).value
    else:
        first, second = players
        result = R.opposed_roll(
            dice, rule=RULES[Kind(kind)], purpose=f"setup:{kind}", first=first, second=second
        )
    return result, "", dice


@transaction.atomic
def setup_roll_make(
    *,
    campaign: Campaign,
    kind: str,
    user: User | None,
    players: tuple[Player, Player] | None = None,
    holding: Holding | None = None,
) -> SetupRoll:
    """Roll one of the set-up's dice, keep it, and apply what it decides: the climate and
    the season go into the campaign's options. Each is rolled once (R4.1.1: "once, when the
    map is drawn"; a public roll made again would be a roll chosen)."""
    locked = campaign_lock(campaign)
    if kind not in RULES:
        raise ServiceError(_("There is no such set-up roll."))
    target = _target(locked, kind, holding)
    if SetupRoll.objects.filter(campaign=locked, kind=kind, target=target).exists():
        raise ServiceError(
            _("This roll was made already (%(roll)s): every set-up roll is made once.")
            % {"roll": Kind(kind).label}
        )
    options = adapters.options_of(locked)
    keys: list[str] = []
    if kind in (Kind.CLIMATE, Kind.SEASON) and not options.weather_phase:
        raise ServiceError(
            _(
                "Turn on the weather phase (R4) in the options first: without it the climate "
                "and the season play no part."
            )
        )
    if kind == Kind.SEASON:
        fixed = R.SEASON_FIXED.get(options.climate)
        if fixed is not None:
            raise ServiceError(
                _("A %(climate)s zone has no season to roll: it is always %(season)s (R4.1.2–3).")
                % {
                    "climate": str(labels.CLIMATE[options.climate]).lower(),
                    "season": str(labels.SEASON[fixed]).lower(),
                }
            )
    if kind in OPPOSED:
        keys = _opponents(locked, players)
    seed = _seed()
    result, detail, dice = _outcome(kind, seed, options, keys, target)
    if holding is not None:
        holding.feature = result
        holding.save(update_fields=["feature"])
    if kind == Kind.CLIMATE:
        climate = R.Climate(result)
        options = replace(
            options, climate=climate, season=R.SEASON_FIXED.get(climate, options.season)
        )
    elif kind == Kind.SEASON:
        options = replace(options, season=R.Season(result))
    locked.options = adapters.options_to_data(options)
    locked.save(update_fields=["options"])
    campaign.options = locked.options
    return SetupRoll.objects.create(
        campaign=locked,
        kind=kind,
        rule=RULES[Kind(kind)],
        seed=seed,
        players=keys,
        target=target,
        ledger=dice.ledger_dicts(),
        result=result,
        detail=detail,
        made_by=user,
    )


def _target(campaign: Campaign, kind: str, holding: Holding | None) -> str:
    """The holding a feature roll is for (R2.4: one roll for each holding), checked."""
    if kind != Kind.FEATURE:
        return ""
    if not adapters.options_of(campaign).holding_features:
        raise ServiceError(
            _(
                "Turn on the holding features (R2.4) in the options first: without them a "
                "holding has none."
            )
        )
    if holding is None or holding.campaign_id != campaign.pk:
        raise ServiceError(_("Choose the holding whose feature is rolled."))
    if holding.feature:
        raise ServiceError(
            _("%(holding)s has its feature already: a holding has one, rolled or chosen once.")
            % {"holding": holding.name or holding.key}
        )
    return holding.key


def _opponents(campaign: Campaign, players: tuple[Player, Player] | None) -> list[str]:
    if players is None:
        raise ServiceError(_("Choose the two players who roll."))
    a, b = players
    if a.campaign_id != campaign.pk or b.campaign_id != campaign.pk:
        raise ServiceError(_("That player belongs to another campaign."))
    if a.pk == b.pk or a.side_id == b.side_id:
        raise ServiceError(_("The two players who roll must be opponents, on different sides."))
    return [a.key, b.key]


def setup_roll_replay(roll: SetupRoll) -> bool:
    """Does the roll's seed give the same dice and the same result again?"""
    options = adapters.options_of(roll.campaign)
    if roll.kind == Kind.SEASON:
        # the season was rolled on the climate of its day, which the climate roll (or the GM)
        # left in the options and which no later roll changes
        options = replace(options, climate=_climate_of(roll))
    result, detail, dice = _outcome(roll.kind, roll.seed, options, list(roll.players), roll.target)
    same = (result, detail) == (roll.result, roll.detail)
    return same and dice.ledger_dicts() == roll.ledger


def _climate_of(roll: SetupRoll) -> R.Climate:
    purpose = roll.ledger[0]["purpose"] if roll.ledger else ""
    return (
        R.Climate(purpose.rsplit(":", 1)[-1])
        if purpose.startswith("setup:season:")
        else R.Climate.TEMPERATE
    )


# --- what the pages show -----------------------------------------------------------------------


@dataclass(frozen=True)
class RollLine:
    """One set-up roll as a sentence: its name and rule, the dice as rolled, what it decided."""

    kind: str
    target: str
    title: str
    rule: str
    dice: str
    result: str
    by: str
    at: Any


def setup_rolls_lines(*, campaign: Campaign, kinds: tuple[str, ...] = ()) -> list[RollLine]:
    """The campaign's set-up rolls (of `kinds`, or all), oldest first, in words."""
    rows = SetupRoll.objects.filter(campaign=campaign).select_related("made_by")
    if kinds:
        rows = rows.filter(kind__in=kinds)
    names = dict(Player.objects.filter(campaign=campaign).values_list("key", "name"))
    names |= {
        k: n or k for k, n in Holding.objects.filter(campaign=campaign).values_list("key", "name")
    }
    return [
        RollLine(
            kind=r.kind,
            target=r.target,
            title=str(Kind(r.kind).label),
            rule=r.rule,
            dice=_dice_text(r, names),
            result=_result_text(r, names),
            by=user_label(r.made_by) if r.made_by else "",
            at=r.made_at,
        )
        for r in rows
    ]


def _dice_text(roll: SetupRoll, names: dict[str, str]) -> str:
    parts = []
    if roll.kind == Kind.FEATURE:
        for rec in roll.ledger:
            dice = " + ".join(str(n) for n in rec["natural"])
            parts.append(_("rolled %(dice)s") % {"dice": dice})
        return ", ".join(parts)
    for rec in roll.ledger:
        value = rec["natural"][0]
        if roll.kind in OPPOSED:
            key = rec["purpose"].rsplit(":", 1)[-1]
            parts.append(_("%(army)s rolled %(n)d") % {"army": names.get(key, key), "n": value})
        else:
            parts.append(_("rolled %(n)d") % {"n": value})
    if roll.kind in OPPOSED and len(roll.ledger) > 2:
        parts.append(_("(ties rolled again)"))
    return ", ".join(parts) if parts else _("no die: the climate decides it")


def _result_text(roll: SetupRoll, names: dict[str, str]) -> str:
    if roll.kind == Kind.CLIMATE:
        return str(labels.CLIMATE[R.Climate(roll.result)])
    if roll.kind == Kind.SEASON:
        return str(labels.SEASON[R.Season(roll.result)])
    if roll.kind == Kind.FEATURE:
        text = _("%(holding)s: %(feature)s") % {
            "holding": names.get(roll.target, roll.target),
            "feature": labels.label(labels.HOLDING_FEATURE, roll.result),
        }
        if roll.detail:
            text += " — " + labels.label(labels.RELIC, roll.detail)
        return text
    winner = names.get(roll.result, roll.result)
    if roll.kind == Kind.TERRITORY:
        return _("%(army)s rolled higher and chooses his outer third") % {"army": winner}
    loser = next((k for k in roll.players if k != roll.result), "")
    return _("%(army)s rolled lower and places all his holdings first") % {
        "army": names.get(loser, loser)
    }


# --- the export ----------------------------------------------------------------------------------

KEY = "setup_rolls"


def _write(campaign: Campaign, times: bool) -> Written:
    rows, users = [], set()
    for r in SetupRoll.objects.filter(campaign=campaign).select_related("made_by"):
        by = r.made_by.get_username() if r.made_by else None
        if by:
            users.add(by)
        rows.append(
            {
                "kind": r.kind,
                "rule": r.rule,
                "seed": r.seed,
                "players": list(r.players),
                "target": r.target,
                "ledger": r.ledger,
                "result": r.result,
                "detail": r.detail,
                "made_by": by,
                **moments(times, made_at=r.made_at),
            }
        )
    return Written(rows, users)


def _restore(r: Restore) -> None:
    made = []
    for row in r.rows:
        if not isinstance(row, dict) or row.get("kind") not in RULES:
            raise ServiceError("Malformed export: a set-up roll of an unknown kind.")
        made.append(
            SetupRoll(
                campaign=r.campaign,
                kind=row["kind"],
                rule=str(row.get("rule", RULES[Kind(row["kind"])])),
                seed=int(row["seed"]),
                players=[str(k) for k in row.get("players", [])],
                target=str(row.get("target", "")),
                ledger=list(row.get("ledger", [])),
                result=str(row["result"]),
                detail=str(row.get("detail", "")),
                made_by=user_of(r.users, row.get("made_by"), "a set-up roll"),
            )
        )
    SetupRoll.objects.bulk_create(made)
    moments_restore(SetupRoll, made, r.rows, "made_at")


PART = Part(KEY, _write, _restore)
