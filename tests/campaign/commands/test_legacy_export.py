"""A campaign exported before the engine's events and ledger become codes and parameters
(issue 29), kept in `fixtures/legacy/`: six turns of the demo with battles on turns 2 to 6
and an amendment of turn 2's result, as `export_campaign` wrote it on 2026-12-07. Whatever
the format becomes, this campaign must import, every turn must replay exactly, and every
report must render in English and in Italian.

`FW_WRITE_LEGACY=1 ./run tests tests/campaign/commands/test_legacy_export.py` writes the
fixture again: only ever from a checkout of the format it stands for."""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.apps import apps as django_apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client

from campaign.exchange import importing
from campaign.exchange.export import campaign_export, export_json
from campaign.models import Campaign, Membership, Turn, TurnResolution
from campaign.turns.amend import amendment_commit, amendment_preview
from tests.campaign.commands.conftest import stalemate
from tests.campaign.commands.test_amend_six_turns import corrected, march_orders, play

pytestmark = pytest.mark.django_db

LEGACY = Path(settings.BASE_DIR) / "fixtures" / "legacy" / "incursion-2026-12-07.json"
SLUG = "legacy"


@pytest.mark.skipif(not os.environ.get("FW_WRITE_LEGACY"), reason="writes the fixture")
def test_write_the_legacy_fixture(run, results_file, django_capture_on_commit_callbacks):
    play(run, results_file, lambda c, n: march_orders(c, n == 1), stalemate)
    campaign = Campaign.objects.get(slug="incursion")
    gm = get_user_model().objects.get(username="gm")
    battle = campaign.battles.get(key="t2-b1")
    draft = amendment_preview(
        campaign=campaign,
        user=gm,
        kind="battle-result",
        turn_number=2,
        target="t2-b1",
        data=corrected(battle),
        reason="The losses were entered as two fifths, not one.",
    )
    with django_capture_on_commit_callbacks(execute=True):
        amendment_commit(amendment=draft, user=gm)
    campaign.refresh_from_db()
    LEGACY.write_text(export_json(campaign_export(campaign=campaign, times=False)))


def test_the_legacy_campaign_imports_replays_and_reads_in_both_languages(run):
    run("load_demo")  # its users: the export names its members by user name
    run("import_campaign", str(LEGACY), "--slug", SLUG)
    campaign = Campaign.objects.get(slug=SLUG)
    resolved = list(
        campaign.turns.filter(status=Turn.Status.RESOLVED).values_list("number", flat=True)
    )
    assert resolved == [1, 2, 3, 4, 5, 6]
    assert campaign.battles.count() >= 5
    for number in resolved:
        out = run("replay_turn", SLUG, str(number)).out
        assert out == f"Turn {number}, Phases 0–2: OK\nTurn {number}, Phases 4–8: OK\n", out
    for m in Membership.objects.filter(campaign=campaign).select_related("user"):
        client = Client()
        client.force_login(m.user)
        for language in ("en", "it"):
            client.cookies["django_language"] = language
            for number in resolved:
                page = client.get(f"/c/{SLUG}/turns/{number}/")
                assert page.status_code == 200, (m.user.username, language, number)
            assert client.get(f"/c/{SLUG}/map/").status_code == 200
    assert json.loads(LEGACY.read_text())["campaign"]["slug"] == "incursion"


def _prose_left(campaign: Campaign) -> list[str]:
    """Stored texts of format 1: a modifier reason, outcome or event reason with a space in it
    (codes are kebab-case words), or a per-die detail stored as a sentence."""
    found: list[str] = []
    for r in TurnResolution.objects.filter(turn__campaign=campaign):
        for entry in r.ledger:
            texts = [str(m["reason"]) for m in entry["modifiers"]] + [str(entry["outcome"])]
            texts += [d for d in entry["details"] if isinstance(d, str)]
            found += [t for t in texts if " " in t]
        for e in r.events:
            found += [str(e[k]) for k in ("reason", "detail") if " " in str(e.get(k, ""))]
    return found


def test_the_data_migration_converts_a_campaign_stored_in_prose_and_it_replays(run, monkeypatch):
    """A database holding the old prose (the legacy export imported as it is, as the
    database held it before migration campaign 0023) is converted by that migration: no
    prose is left, and every turn replays exactly."""
    run("load_demo")
    monkeypatch.setattr(importing, "upgrade_prose", lambda data: data)
    run("import_campaign", str(LEGACY), "--slug", SLUG)
    campaign = Campaign.objects.get(slug=SLUG)
    assert _prose_left(campaign)  # stored as the old database held it
    migration = importlib.import_module("campaign.migrations.0023_events_ledgers_as_data")
    editor = SimpleNamespace(connection=connection)  # all `forward` reads of its schema editor
    migration.forward(django_apps, editor)
    assert _prose_left(campaign) == []
    for number in range(1, 7):
        out = run("replay_turn", SLUG, str(number)).out
        assert out == f"Turn {number}, Phases 0–2: OK\nTurn {number}, Phases 4–8: OK\n", out
    before = list(TurnResolution.objects.values_list("ledger", "events"))
    migration.forward(django_apps, editor)  # a second run changes nothing
    assert list(TurnResolution.objects.values_list("ledger", "events")) == before
