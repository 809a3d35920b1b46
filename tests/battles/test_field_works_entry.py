"""Field works at the table are entered with the result and counted (R7.8.4–6): the Southern
March (d3) on Defend may build up to its quota (40 points, one per figure); what it builds is
kept, and another battle on the same square offers only what is left."""

from __future__ import annotations

import pytest

from battles.models import Battle
from battles.services import battle_result_enter
from campaign.errors import ServiceError
from campaign.models import Force
from tests.battles.conftest import form_data, raiders_wiped, result_url, stamped, version
from tests.battles.test_result_entry import page, refresh

pytestmark = pytest.mark.django_db

LABEL = "Field works built by The Southern March (points, at most 40, R7.8.6)"


def test_the_result_form_asks_for_the_works_of_the_force_on_defend(cast, battle):
    html = page(cast, "side_b", battle)
    assert LABEL in html
    assert "Field works built by The Red Riders" not in html  # not on Defend


def test_works_beyond_the_quota_are_refused_in_words(cast, battle):
    with pytest.raises(ServiceError) as e:
        battle_result_enter(
            campaign=cast.campaign,
            battle=battle,
            version=version(battle),
            user=cast.users["side_b"],
            data={
                "units": [{"unit_id": u, **c} for u, c in raiders_wiped(cast.campaign).items()],
                "outcomes": {"a": "lost", "b": "won"},
                "works_built": {"d3": 41},
            },
        )
    assert e.value.field_messages["works_d3"] == [
        "The Southern March may build at most 40 points of field works here (R7.8.6)."
    ]


def test_the_works_built_are_kept_and_counted_once_the_battle_is_settled(
    cast, battle, django_capture_on_commit_callbacks
):
    response = cast.client("side_b").post(
        result_url(battle, "enter"),
        stamped(battle, form_data(units=raiders_wiped(cast.campaign), outcome="b", works_d3=30)),
    )
    assert response.status_code == 302
    assert refresh(battle).result["works_built"] == {"d3": 30}
    with django_capture_on_commit_callbacks(execute=True):  # Phases 4–8, as the task does
        assert (
            cast.client("side_a").post(result_url(battle, "confirm"), stamped(battle)).status_code
            == 302
        )
    assert refresh(battle).status == Battle.Status.RESOLVED
    march = Force.objects.get(campaign=cast.campaign, key="d3")
    assert (march.works_quota, march.works_built) == (40, 30)
