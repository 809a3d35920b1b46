"""Set-up input that used to end in a server error (issue 28): a NUL in a key the map editor's
brush or the holding-feature roll reads from the request (PostgreSQL refuses it even in a
query) is not found; the map import reads its JSON with limits (`campaign.json_input`), and a
hypothesis test posts random JSON values as maps and never meets a server error."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from campaign.models import Square
from campaign.setup.map_import import MapFormatError, map_import
from tests.campaign.setup.test_setup import make_world
from tests.campaign.test_fuzz_setup import _everything, _post, world  # noqa: F401 (a fixture)
from tests.fuzzing import FUZZ, JSON_VALUES, client_for, json_text, or_junk

pytestmark = pytest.mark.django_db


@pytest.fixture
def plain(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    return make_world(forces=True)


def test_a_brush_of_a_zone_no_player_can_have_changes_nothing(plain):
    before = _everything(plain.campaign)
    url = plain.url("setup-square")
    response = client_for(plain.users["gm"]).post(url, {"x": "1", "y": "1", "brush": "zone:a\x00b"})
    assert response.status_code == 404
    assert _everything(plain.campaign) == before


def test_a_holding_feature_roll_for_no_holding_changes_nothing(plain):
    before = _everything(plain.campaign)
    url = plain.url("setup-roll", "feature")
    response = client_for(plain.users["gm"]).post(url, {"holding": "a\x00b"})
    assert response.status_code == 404
    assert _everything(plain.campaign) == before


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"width": 9, "height": 6, "squares": ' + "[" * 900 + "]" * 900 + "}", "nested too deep"),
        ('{"width": NaN, "height": 6}', "not a number JSON can hold"),
        (
            '{"width": 9, "height": 6, "squares": [{"x": 0, "y": 0, "zone": "\\ud800"}]}',
            "surrogate",
        ),
        ('{"width": 9, "height": 6, "squares": [{"x": 0, "y": 0, "zone": "\\u0000"}]}', "NUL"),
        ('{"width": 9,\n "height": 3,,}', "Not valid JSON"),
    ],
)
def test_map_json_is_read_with_limits(plain, text, said):
    with pytest.raises(MapFormatError) as e:
        map_import(campaign=plain.campaign, data=text, format="json")
    assert any(said in m for m in e.value.messages), e.value.messages
    assert Square.objects.filter(campaign=plain.campaign).count() == 9 * 6


_SQUARE = st.fixed_dictionaries(
    {
        "x": or_junk(st.integers(-1, 10)),
        "y": or_junk(st.integers(-1, 7)),
    },
    optional={
        "features": or_junk(st.lists(st.sampled_from(["forest", "river", "hill", "lava"]))),
        "zone": or_junk(st.sampled_from(["", "red", "\ud800", "a\x00b"])),
        "x2": JSON_VALUES,
    },
)
_MAP = st.fixed_dictionaries(
    {
        "width": or_junk(st.integers(2, 61)),
        "height": or_junk(st.integers(2, 61)),
        "squares": or_junk(st.lists(_SQUARE, max_size=4)),
    }
)
_DOCUMENT = st.one_of(_MAP, _MAP.map(lambda m: {"turn": 1, "map": m}), JSON_VALUES)


@FUZZ
@given(doc=json_text(_DOCUMENT), fmt=st.sampled_from(["", "json"]))
def test_random_json_maps_never_end_in_a_server_error(world, doc, fmt):  # noqa: F811
    doc = doc.replace('"red"', json.dumps(world.red.key))  # the red army's zone
    _post(world, "gm", world.url("setup-import"), {"data": doc, "format": fmt})
