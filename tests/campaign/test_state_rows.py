"""The decoded state kept per process (campaign.state_rows) under the database's stamp: every
way of writing the rows the state is read from renews the stamp, so a kept state is never
served after a change, and a write that lands while the rows are being read is not kept."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from campaign import adapters, state_rows
from campaign.models import (
    Campaign,
    Command,
    Force,
    Holding,
    Individual,
    Player,
    Side,
    Square,
    StateStamp,
    Unit,
)
from campaign.setup.services import campaign_create
from rules.generate import generate_campaign
from rules.types import evolve

pytestmark = pytest.mark.django_db

SMALL = {"width": 16, "height": 16, "players": 4, "forces": 8, "units_per_force": 3, "seed": 3}


@pytest.fixture
def campaign() -> Campaign:
    state_rows.clear()
    return campaign_create(slug="stamped", name="Stamped", state=generate_campaign(**SMALL))


def _stamp(campaign: Campaign) -> str | None:
    return state_rows.stamp_of(campaign)


WRITES = {
    "player update": lambda c: Player.objects.filter(campaign=c).update(bank=7),
    "side update": lambda c: Side.objects.filter(campaign=c).update(name="Renamed"),
    "holding update": lambda c: Holding.objects.filter(campaign=c).update(sacked=True),
    "force update": lambda c: Force.objects.filter(campaign=c).update(x=1, y=1),
    "command update": lambda c: Command.objects.filter(campaign=c).update(general_cv=1),
    "unit update": lambda c: Unit.objects.filter(campaign=c).update(figures=1),
    "individual insert": lambda c: Individual.objects.create(
        campaign=c, force=Force.objects.filter(campaign=c).first(), key="w1", kind="wizard"
    ),
    "square update": lambda c: Square.objects.filter(campaign=c, x=0, y=0).update(zone=""),
    "unit delete": lambda c: Unit.objects.filter(campaign=c, position=0).delete(),
    "force save()": lambda c: _force_saved(c),
    "raw SQL": lambda c: _raw(c),
}


def _force_saved(c: Campaign) -> None:
    force = Force.objects.filter(campaign=c).first()
    assert force is not None
    force.name = "Saved by hand"
    force.save()


def _raw(c: Campaign) -> None:
    with connection.cursor() as cursor:
        cursor.execute("UPDATE campaign_force SET figures_lost = 3 WHERE campaign_id = %s", [c.pk])


@pytest.mark.parametrize("write", sorted(WRITES))
def test_every_write_to_the_state_rows_renews_the_stamp(campaign, write):
    before = _stamp(campaign)
    assert before is not None  # the set-up wrote the rows
    WRITES[write](campaign)
    assert _stamp(campaign) not in (None, before)


def test_writes_elsewhere_leave_the_stamp(campaign):
    before = _stamp(campaign)
    Campaign.objects.filter(pk=campaign.pk).update(weather="rain")  # read fresh each time
    other = campaign_create(slug="other", name="Other", state=generate_campaign(**SMALL))
    Force.objects.filter(campaign=other).update(x=2)
    assert _stamp(campaign) == before


def test_a_kept_state_is_served_until_the_rows_change(campaign, django_assert_num_queries):
    first = adapters.state_load(campaign=campaign)
    with django_assert_num_queries(1):
        again = adapters.state_load(campaign=campaign)
    assert again.forces is first.forces  # the same decoded rows
    force = first.forces[0]
    Force.objects.filter(campaign=campaign, key=force.id).update(x=5, y=6)
    changed = adapters.state_load(campaign=campaign)
    assert changed.force(force.id).square == (5, 6)
    assert state_rows.rows_load(campaign).forces == changed.forces


def test_the_campaign_row_is_read_fresh_on_a_kept_state(campaign):
    adapters.state_load(campaign=campaign)
    campaign.day = 9
    assert adapters.state_load(campaign=campaign).day == 9


def test_a_write_during_the_read_is_not_kept(campaign, monkeypatch):
    """A write committed between the stamp's read and the rows' (READ COMMITTED) could mix
    two contents: the stamp read again afterwards differs, and nothing is kept."""
    real = state_rows.rows_load

    def racing(c: Campaign) -> state_rows.StateRows:
        rows = real(c)
        Force.objects.filter(campaign=c).update(figures_lost=1)
        return rows

    monkeypatch.setattr(state_rows, "rows_load", racing)
    adapters.state_load(campaign=campaign)
    monkeypatch.setattr(state_rows, "rows_load", real)
    loaded = adapters.state_load(campaign=campaign)
    assert all(f.figures_lost == 1 for f in loaded.forces)


def test_deleting_a_campaign_deletes_its_stamp(campaign):
    pk = campaign.pk
    assert StateStamp.objects.filter(campaign_id=pk).exists()
    campaign.delete()
    assert not StateStamp.objects.filter(campaign_id=pk).exists()


def test_saving_a_state_renews_the_stamp(campaign):
    """What a turn's resolution writes (`state_save`, bulk updates) is seen at once."""
    state = adapters.state_load(campaign=campaign)
    before = _stamp(campaign)
    moved = evolve(state.forces[0], square=(0, 0))
    adapters.state_save(campaign=campaign, state=evolve(state, forces=(moved, *state.forces[1:])))
    assert _stamp(campaign) != before
    assert adapters.state_load(campaign=campaign).forces[0].square == (0, 0)


def test_the_sqlite_triggers_renew_the_stamp(tmp_path):
    """The demo's SQLite database has row triggers that do the same."""
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'stamp.sqlite3'}"}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    manage = [sys.executable, str(Path(settings.BASE_DIR) / "manage.py")]
    run = {"env": env, "cwd": settings.BASE_DIR, "capture_output": True, "text": True}
    done = subprocess.run([*manage, "migrate", "--noinput", "-v", "0"], timeout=120, **run)
    assert done.returncode == 0, done.stderr
    script = (
        "from campaign import adapters, state_rows\n"
        "from campaign.models import Campaign, Force, StateStamp\n"
        "from campaign.setup.services import campaign_create\n"
        "from rules import generate_campaign\n"
        f"c = campaign_create(slug='s', name='S', state=generate_campaign(**{SMALL!r}))\n"
        "a = state_rows.stamp_of(c)\n"
        "first = adapters.state_load(campaign=c)\n"
        "assert adapters.state_load(campaign=c).forces is first.forces\n"
        "Force.objects.filter(campaign=c).update(x=3, y=4)\n"
        "assert state_rows.stamp_of(c) not in (None, a)\n"
        "assert all(f.square == (3, 4) for f in adapters.state_load(campaign=c).forces)\n"
        "pk = c.pk; c.delete()\n"
        "assert not StateStamp.objects.filter(campaign_id=pk).exists()\n"
        "print('ok')\n"
    )
    done = subprocess.run([*manage, "shell", "-c", script], timeout=120, **run)
    assert done.returncode == 0 and done.stdout.splitlines()[-1] == "ok", done.stdout + done.stderr
