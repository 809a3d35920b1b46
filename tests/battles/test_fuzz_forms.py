"""Hostile input for the battle forms (issue 12): the result form (preview, enter, the GM's
override; the Italian points too), confirming and disputing, the resolver, photos (their
file and caption) and the battles deadline. No example ends in a server error; each
refusal says why and leaves the battle as it was. (tests/fuzzing.py draws the input; the
battle is the conftest's t1-b1 of the demo campaign.)"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from battles.entry import person_field, points_field, unit_field
from battles.models import Battle, BattlePhoto
from battles.roster import COUNTS, battle_roster_get
from battles.services import battle_result_enter
from campaign.models import Campaign, Turn
from tests.battles.conftest import DEFENDER_UNITS, RAIDER_UNITS, result_url, version
from tests.fuzzing import FUZZ, answered, client_for, posted, rolled_back
from tests.stamp import stamped

pytestmark = pytest.mark.django_db

COUNT_VALUES = ["", "0", "1", "5", "10", "16", "20"]


def _result_fields(battle: Battle) -> dict[str, list[str]]:
    """The result form's fields for this battle, each with plausible values."""
    roster = battle_roster_get(battle=battle)
    fields: dict[str, list[str]] = {}
    for side in roster.sides:
        for unit in side.units:
            for what in COUNTS:
                fields[unit_field(unit.id, what)] = COUNT_VALUES
        for person in side.people:
            fields[person_field(person.id)] = ["", "killed", "fled"]
        if roster.method == "italian":
            fields[points_field(side.key)] = ["", "0", "20", "300"]
    if roster.method != "italian":
        fields["outcome"] = ["a", "b", "stalemate", ""]
    if roster.storm_allowed:
        fields["storm"] = ["", "on"]
    return {**fields, "report_text": ["", "A hard fight."], "note": ["", "Misread the table."]}


def _battle_rows(battle: Battle) -> list[Any]:
    return [
        list(Battle.objects.filter(pk=battle.pk).values()),
        list(BattlePhoto.objects.filter(battle=battle).values()),
        list(battle.audit.values()),
    ]


def _post(who: Any, url: str, data: dict[str, Any], battle: Battle, **kw: Any) -> None:
    """Post `data` in an example of its own, as the page rendered now posts it (with the
    version of the result, unless `data` has a hostile one); a refusal leaves the battle as
    it was."""
    with rolled_back():
        data = {"version": version(battle), **data}
        before = _battle_rows(battle)
        headers = {"HX-Request": "true"} if kw.pop("htmx", False) else {}
        response = client_for(who).post(url, data, headers=headers)
        if headers:  # the live check's fragment, 200 either way
            answered(response, success=lambda r: r.status_code == 200)
        elif answered(response, **kw):
            assert _battle_rows(battle) == before, data


@st.composite
def _entry(draw: st.DrawFn, fields: dict[str, list[str]]) -> tuple[str, str, dict[str, Any]]:
    action = draw(st.sampled_from(["preview", "enter", "override"]))
    who = "gm" if action == "override" else draw(st.sampled_from(["side_a", "side_b", "gm"]))
    return action, who, draw(posted(fields, extra=["u-nobody-killed", "p-nobody", "version"]))


def _entry_test(cast: Any, battle: Battle, asked: tuple[str, str, dict[str, Any]], htmx: bool):
    action, who, data = asked

    def success(r: Any) -> bool:  # the live check redraws the form: not a refusal
        return r.status_code == 302 or (action == "preview" and r.status_code == 200)

    htmx = htmx and action == "preview"
    _post(cast.users[who], result_url(battle, action), data, battle, htmx=htmx, success=success)


@pytest.fixture
def result_fields(battle) -> dict[str, list[str]]:
    return _result_fields(battle)


@FUZZ
@given(data=st.data(), htmx=st.booleans())
def test_the_result_form(cast, battle, result_fields, data, htmx):
    _entry_test(cast, battle, data.draw(_entry(result_fields)), htmx)


@pytest.fixture
def italian_battle(make_battle) -> Battle:
    def italian(campaign: Campaign) -> None:
        Campaign.objects.filter(pk=campaign.pk).update(
            options={**campaign.options, "battle_result_method": "italian"}
        )

    return make_battle(italian)


@FUZZ
@given(data=st.data())
def test_the_italian_points_lost(cast, italian_battle, data):
    fields = _result_fields(italian_battle)
    _entry_test(cast, italian_battle, data.draw(_entry(fields)), False)


@pytest.fixture
def entered(cast, battle) -> Battle:
    """The battle with a result the raiders' player entered: the defenders may confirm or
    dispute it."""
    losses = [{"unit_id": u, "killed": 2} for u in (*RAIDER_UNITS, *DEFENDER_UNITS)]
    data = {"units": losses, "outcomes": {"a": "stalemate", "b": "stalemate"}}
    battle_result_enter(
        campaign=cast.campaign,
        battle=battle,
        version=version(battle),
        user=cast.users["side_a"],
        data=data,
    )
    return Battle.objects.get(pk=battle.pk)


@FUZZ
@given(
    action=st.sampled_from(["dispute", "confirm", "auto"]),
    data=posted({"note": ["It was a stalemate.", "x"]}, extra=["version"]),
    who=st.sampled_from(["side_a", "side_b", "gm"]),
)
def test_confirming_and_disputing(cast, entered, action, data, who):
    _post(cast.users[who], result_url(entered, action), data, entered)


@FUZZ
@given(
    data=posted(
        {"resolver": ["tabletop", "auto"], "auto_at_deadline": ["", "on"]}, extra=["version"]
    ),
    who=st.sampled_from(["gm", "side_a"]),
)
def test_the_resolver(cast, battle, data, who):
    _post(cast.users[who], result_url(battle, "resolver"), data, battle)


PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
PHOTOS = [
    PNG,
    b"\xff\xd8\xff" + b"\x00" * 64,
    b"GIF89a" + b"\x00" * 16,
    b"RIFF\x00\x00\x00\x00WEBPVP8 ",
    b"",
    b"<script>alert(1)</script>",
    b"\x00" * 100,
    b"%PDF-1.4",
    "ünïcödé".encode(),
]
PHOTO_NAMES = ["photo.png", "../../etc/passwd", "x" * 300 + ".png", "a\nb.png", "photo", ".png"]


@FUZZ
@given(
    data=posted({"caption": ["", "The last charge."]}, extra=["photo"]),
    content=st.one_of(st.none(), st.sampled_from(PHOTOS)),
    name=st.sampled_from(PHOTO_NAMES),
    kind=st.sampled_from(["image/png", "text/html", "application/octet-stream", ""]),
    who=st.sampled_from(["side_a", "gm", "side_b"]),
)
def test_adding_a_photo(cast, battle, settings, tmp_path, data, content, name, kind, who):
    settings.MEDIA_ROOT = tmp_path
    if content is not None:
        data["photo"] = SimpleUploadedFile(name, content, content_type=kind)
    _post(cast.users[who], result_url(battle, "photo"), data, battle)


_SOON = datetime.now(UTC) + timedelta(days=3)
DEADLINES = [
    _SOON.strftime("%Y-%m-%dT%H:%M"),
    "",
    "2001-01-01T00:00",
    "9999-12-31T23:59",
    "0001-01-01T00:00",
    "2099-01-01T00:00+14:00",
]


@FUZZ
@given(
    data=posted({"deadline": DEADLINES, "timezone": ["UTC", "Asia/Tokyo", "America/Los_Angeles"]})
)
def test_the_battles_deadline(cast, battle, data):
    assert Turn.objects.get(pk=battle.turn_id).waiting_for_battles
    url = reverse("campaign:turn-battles-deadline", args=[cast.campaign.slug])
    with rolled_back():
        before = list(Turn.objects.filter(pk=battle.turn_id).values())
        if answered(client_for(cast.users["gm"]).post(url, stamped(cast.campaign.slug, data))):
            assert list(Turn.objects.filter(pk=battle.turn_id).values()) == before, data
