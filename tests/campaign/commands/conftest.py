"""Fixtures for the management command tests: a way to run a command and read its output,
the demo campaign, a small generated campaign with a battle pending, and battle results."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from battles.models import Battle
from campaign.models import Campaign, Turn, Unit
from campaign.setup.services import campaign_delete


@dataclass
class Output:
    out: str
    err: str


Run = Callable[..., Output]


@pytest.fixture
def run() -> Run:
    """Run a management command; its standard output and error as text."""

    def _run(*args: str, **options) -> Output:
        out, err = StringIO(), StringIO()
        call_command(*args, stdout=out, stderr=err, **options)
        return Output(out.getvalue(), err.getvalue())

    return _run


@pytest.fixture
def demo(db, run: Run) -> Campaign:
    """The demo campaign, as `load_demo` creates it."""
    run("load_demo")
    return Campaign.objects.get(slug="incursion")


@pytest.fixture
def skirmish(db, run: Run) -> Callable[..., Campaign]:
    """Create a small generated campaign (6×6 map, 10 forces, turn-1 orders) and resolve its
    turn 1 with seed 1. With generator seed 6 that ends in one contact, battle t1-b1 between
    f10 (side a) and f3 (side b); with seed 1 in two battles."""

    def _create(slug: str = "skirmish", seed: int = 6) -> Campaign:
        run(
            *("generate_campaign", "--width", "6", "--height", "6", "--forces", "10"),
            *("--seed", str(seed), "--orders", "--slug", slug),
        )
        run("resolve_turn", slug, "--seed", "1")
        return Campaign.objects.get(slug=slug)

    return _create


@pytest.fixture
def battle_campaign(skirmish) -> Campaign:
    """A campaign whose current turn waits for the result of battle t1-b1."""
    campaign = skirmish()
    pending = list(Battle.objects.filter(campaign=campaign).values_list("key", "status"))
    assert pending == [("t1-b1", "pending")], "the generator no longer makes this battle"
    assert campaign.turns.get(number=1).status == Turn.Status.BATTLES
    return campaign


def stalemate(battle: Battle) -> dict:
    """A result the rules accept: a stalemate with a fifth of each unit killed."""
    unit_ids = [
        u["unit_id"] for side in battle.pack["sides"] for f in side["forces"] for u in f["units"]
    ]
    figures = dict(
        Unit.objects.filter(campaign=battle.campaign_id, key__in=unit_ids).values_list(
            "key", "figures"
        )
    )
    return {
        "outcomes": {"a": "stalemate", "b": "stalemate"},
        "units": [{"unit_id": uid, "killed": figures[uid] // 5} for uid in unit_ids],
    }


@pytest.fixture
def results_file(tmp_path: Path) -> Callable[..., str]:
    """Write the stalemate results of the given battles (or any JSON data) to a file."""
    counter = iter(range(10_000))

    def _write(battles_or_data) -> str:
        if isinstance(battles_or_data, list | tuple):
            data = {b.key: stalemate(b) for b in battles_or_data}
        else:
            data = battles_or_data
        path = tmp_path / f"results-{next(counter)}.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        return str(path)

    return _write


@pytest.fixture
def wipe(db) -> Callable[[], None]:
    """Remove every campaign and user: the database is as empty as a new one."""

    def _wipe() -> None:
        for campaign in Campaign.objects.all():
            campaign_delete(campaign=campaign)
        get_user_model().objects.all().delete()
        assert not Turn.objects.exists() and not Battle.objects.exists()

    return _wipe


@pytest.fixture(autouse=True)
def fast_passwords(settings) -> None:
    """load_demo sets three passwords per run; the default hasher is slow on purpose."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
