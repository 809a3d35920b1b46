"""The tactical engine's odds on the battle pages: computed by a Celery task through
`battles.services.battle_odds_compute`, cached per version of the pack and rosters, shown
(by an htmx panel that polls until they are in) to those who see the battle."""

from __future__ import annotations

import pytest
from django.urls import reverse

from battles.models import Battle
from battles.selectors import battle_odds_get, battle_odds_hash
from battles.services import ODDS_RUNS, battle_odds_compute, battle_result_override
from battles.tasks import battle_odds_task
from tests.battles.conftest import result_url, version

HTMX = {"HTTP_HX_REQUEST": "true"}
PREDICTED = "What the engine would have predicted"


def url(battle: Battle, name: str = "battles:odds") -> str:
    return reverse(name, args=[battle.campaign.slug, battle.key])


def refresh(battle: Battle) -> Battle:
    return Battle.objects.select_related("turn", "campaign").get(pk=battle.pk)


def test_the_odds_are_computed_and_cached_per_pack_version(cast, battle):
    odds = battle_odds_compute(battle=battle)
    assert odds["runs"] == ODDS_RUNS
    assert abs(odds["win_a"] + odds["stalemate"] + odds["win_b"] - 1) < 1e-9
    for side in ("a", "b"):
        s = odds["sides"][side]
        assert abs(s["win"] + s["stalemate"] + s["loss"] - 1) < 1e-9
        assert "killed" in s["expected_losses"]
    battle = refresh(battle)
    assert battle.odds == odds and battle.odds_pack_hash == battle_odds_hash(battle=battle)
    assert battle_odds_get(battle=battle) == odds
    # the same seed gives the same odds
    Battle.objects.filter(pk=battle.pk).update(odds=None, odds_pack_hash="")
    assert battle_odds_compute(battle=refresh(battle)) == odds
    # odds computed for another version of the pack and rosters are stale, and computed again
    Battle.objects.filter(pk=battle.pk).update(odds_pack_hash="0" * 64)
    assert battle_odds_get(battle=refresh(battle)) is None
    assert battle_odds_compute(battle=refresh(battle)) == odds
    assert refresh(battle).odds_pack_hash == battle_odds_hash(battle=battle)


def test_the_task_computes_the_odds_and_is_idempotent(cast, battle):
    assert battle_odds_task.delay(battle.pk).get() == "computed"
    first = refresh(battle).odds
    assert first
    assert battle_odds_task.delay(battle.pk).get() == "computed"
    assert refresh(battle).odds == first
    assert battle_odds_task.delay(987654).get() == "skipped"


@pytest.mark.parametrize("page", ["battles:pack", "battles:odds"])
def test_the_panel_polls_then_shows_the_odds(
    cast, battle, page, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as callbacks:
        html = cast.client("gm").get(url(battle, page)).content.decode()
    assert len(callbacks) == 1  # the odds task, enqueued on the first view
    assert f'hx-get="{url(battle)}"' in html and "computing the odds" in html
    with django_capture_on_commit_callbacks(execute=True):
        cast.client("gm").get(url(battle), **HTMX)
    with django_capture_on_commit_callbacks() as callbacks:
        html = cast.client("gm").get(url(battle), **HTMX).content.decode()
    assert callbacks == []  # cached: nothing more to compute
    assert "P(win)" in html and "P(stalemate)" in html and "P(loss)" in html
    assert "hx-get" not in html  # computed: the panel stops polling
    assert "Raiders" in html and "Defenders" in html


def test_the_result_page_shows_the_odds(cast, battle):
    battle_odds_compute(battle=battle)
    html = cast.client("side_a").get(result_url(battle)).content.decode()
    assert 'id="odds"' in html and "P(win)" in html


@pytest.mark.parametrize(
    "who, status",
    [("gm", 200), ("side_a", 200), ("side_b", 200), ("observer", 404), ("outsider", 404)],
)
def test_under_fog_only_the_gm_and_the_battles_players_see_the_odds(cast, battle, who, status):
    battle_odds_compute(battle=battle)
    assert cast.client(who).get(url(battle), **HTMX).status_code == status
    assert cast.client(who).get(url(battle)).status_code == status


def test_the_report_shows_what_the_engine_would_have_predicted(
    cast, battle, django_capture_on_commit_callbacks
):
    report = url(battle, "battles:detail")
    assert PREDICTED not in cast.client("gm").get(report).content.decode()
    # a tabletop result, settled by the GM (Phases 4–8 run)
    battle_odds_compute(battle=battle)
    data = {"outcomes": {"a": "stalemate", "b": "stalemate"}, "units": [], "individuals": []}
    with django_capture_on_commit_callbacks(execute=True):
        battle_result_override(
            campaign=cast.campaign,
            battle=battle,
            version=version(battle),
            user=cast.users["gm"],
            note="At the table.",
            data=data,
        )
    assert refresh(battle).status == Battle.Status.RESOLVED
    html = cast.client("side_b").get(report).content.decode()
    assert PREDICTED in html and "P(win)" in html
