"""Hostile input for the set-up forms (issue 12): a new campaign, the map editor, map import
(text and file, JSON and CSV), territory, holdings, sides and armies, the options and the
rosters (forces, commands, units, characters, generals' CV, points). No example ends in a
server error; each refusal says why and leaves the campaign's rows as they were.
(tests/fuzzing.py draws the input; the set-up cast is test_setup's `make_world`.)"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from hypothesis import example, given
from hypothesis import strategies as st

from campaign.models import Campaign, Command, Force, Holding, Individual, Player, Side, Square
from campaign.models import Unit as UnitRow
from campaign.setup.options import OPTION_SPECS
from campaign.setup.rosters import individual_create
from tests.campaign.setup.test_setup import World, make_world
from tests.fuzzing import (
    FUZZ,
    HUGE_DIGITS,
    NASTY,
    answered,
    client_for,
    posted,
    rolled_back,
)

pytestmark = pytest.mark.django_db

COORD = ["0", "1", "4", "8", "5"]
NAMES = ["Hammer", "Anvil", "Éowyn's guard"]
NUMBERS = ["0", "1", "20", "100"]


@pytest.fixture
def world(settings) -> World:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    w = make_world(forces=True)
    force = Force.objects.get(campaign=w.campaign, owner=w.red)
    individual_create(force=force, kind="wizard", name="Gandalf", points=90, magic_points=25)
    return w


def _everything(campaign: Campaign) -> list[list[dict[str, Any]]]:
    """The rows a set-up form may change."""
    models = (Side, Player, Square, Holding, Force, Command, UnitRow, Individual)
    rows = [list(m.objects.filter(campaign=campaign).order_by("pk").values()) for m in models]
    return [*rows, list(Campaign.objects.order_by("pk").values())]


def _post(world: World, who: str, url: str, data: dict[str, Any], **kw: Any) -> None:
    """Post `data` in an example of its own; a refusal changes no row."""
    htmx = kw.pop("htmx", False)
    with rolled_back():
        before = _everything(world.campaign)
        headers = {"HX-Request": "true"} if htmx else {}
        response = client_for(world.users[who]).post(url, data, headers=headers)
        if htmx:  # a fragment, 200 either way
            answered(response, success=lambda r: r.status_code == 200)
        elif answered(response, **kw):
            assert _everything(world.campaign) == before, data


# --- a new campaign, the map -----------------------------------------------------------------

NEW_CAMPAIGN = {
    "name": ["Wend", "Valle del Wend"],
    "slug": ["new-one", "wend", "x"],
    "source": ["", "incursion"],
    "width": ["3", "16", "60", "61"],
    "height": ["3", "12", "2"],
    "fog_of_war": ["", "on"],
    "auto_close": ["", "on"],
    "description": ["", "A valley."],
}


@FUZZ
@given(data=posted(NEW_CAMPAIGN))
def test_a_new_campaign(world, data):
    _post(world, "gm", reverse("campaign:new"), data)


SQUARE = {"x": COORD, "y": COORD, "features": ["forest", "hill", "river", ""], "zone": ["", "x"]}
BRUSHES = ["clear", "feature:forest", "feature:nope", "zone:", "zone:red", "zone", ":"]


@FUZZ
@given(data=posted({**SQUARE, "brush": BRUSHES}), htmx=st.booleans(), form=st.booleans())
def test_a_square_of_the_map_editor(world, data, htmx, form):
    if form:  # the plain form has no brush
        data.pop("brush", None)
    url = world.url("setup-square")
    _post(world, "gm", url, data, htmx=htmx)


JSON_MAPS = [
    '{"width": 9, "height": 6, "squares": [{"x": 0, "y": 0, "features": ["forest"]}]}',
    '{"width": 9, "height": 6, "squares": [{"x": 1, "y": 1, "zone": "red"}]}',
    '{"map": {"width": 9, "height": 6, "squares": []}}',
    '{"width": 9, "height": 6, "squares": [{"x": ' + HUGE_DIGITS + ', "y": 0}]}',
    '{"width": 9, "height": 6, "squares": [{"x": 1e400, "y": NaN, "features": "forest"}]}',
    '{"width": 9, "height": 6, "squares": [{"x": 0, "y": 0, "features": [["forest"]]}]}',
    '{"width": 9, "height": 6, "squares": {"x": 0}}',
    '{"width": true, "height": [6], "squares": null}',
    '{"width": 9, "height": 6, "squares": [' + '{"x": 0, "y": 0},' * 5000 + "{}]}",
    '{"width": 9, "height": 6, "squares": [{"x": 0, "y": 0, "zone": "' + "z" * 10_000 + '"}]}',
    '{"width": 9, "height": 6, "squares": [{"x": 0, "y": 0, "features": ["\\u0000"]}]}',
    '{"width": 9, "height": 6, "squares": [{"x": 0, "y": 0, "zone": "\\ud800"}]}',
    "[" * 100_000,
    '{"width": 9, "height": 6, "squares": ' + "[" * 900 + "]" * 900 + "}",
]
CSV_MAPS = [
    "\n".join([",".join(["forest"] * 9)] * 6),
    "\n".join([";".join(["hill@red"] * 9)] * 6),
    '"' + "x" * 200_000 + '"\n',
    "\n".join([",".join(["forest+" * 2000] * 9)] * 6),
    "a,b\n" * 100 + "c\n",
    "open," * 70 + "\n",
    "#" + "x" * 5000 + "\n" + "\n".join([",".join([""] * 9)] * 6),
    "\x00,\x00\n",
    '"unclosed\n',
    "\n".join([",".join(["@" + "r" * 5000] * 9)] * 6),
]
FILES = [
    b"\xff\xfe\x00\x00binary",
    b"\xef\xbb\xbf" + CSV_MAPS[0].encode(),
    JSON_MAPS[0].encode(),
    b"",
    b"\x00" * 1000,
    CSV_MAPS[2].encode(),
]


@FUZZ
@given(
    data=posted({"data": JSON_MAPS + CSV_MAPS, "format": ["", "json", "csv"]}, extra=["file"]),
    upload=st.one_of(st.none(), st.sampled_from(FILES)),
    name=st.sampled_from(["map.csv", "../../map.json", "m\x00.csv", "x" * 300]),
)
def test_importing_a_map(world, data, upload, name):
    if upload is not None:
        data["file"] = SimpleUploadedFile(name.replace("\x00", ""), upload)
    _post(world, "gm", world.url("setup-import"), data)


@FUZZ
@given(data=posted({"axis": ["x", "y"], "west_player": ["red", "blue"], "east_player": ["blue"]}))
def test_the_territory(world, data):
    for field in ("west_player", "east_player"):
        if data.get(field) in ("red", "blue"):
            data[field] = getattr(world, data[field]).key
    _post(world, "gm", world.url("setup-territory"), data)


HOLDING = {
    "player": ["red"],
    "name": ["", "Karak Two"],
    "x": COORD,
    "y": COORD,
    "capital": ["", "on"],
    "feature": ["", "mine"],
}


@FUZZ
@given(data=posted(HOLDING), who=st.sampled_from(["gm", "red"]))
def test_placing_a_holding(world, data, who):
    if data.get("player") == "red":
        data["player"] = world.red.key
    _post(world, who, world.url("setup-holdings"), data)


# --- sides and armies ------------------------------------------------------------------------

ARMY = {
    "name": ["Green Goblins", "Red Dwarves"],
    "side": ["red-side"],
    "race": ["", "Goblins", "Dwarves"],
    "colour": ["#00aa00", "#AABBCC", "red"],
    "initial_points": NUMBERS,
    "tribal": ["", "on"],
    "light": ["", "on"],
}


@FUZZ
@given(
    data=posted({**ARMY, "side-name": ["Green", "Red"]}),
    action=st.sampled_from(["side-add", "player-add", "player-save"]),
)
def test_sides_and_armies(world, data, action):
    if data.get("side") == "red-side":
        data["side"] = world.red.side.key
    args = [world.red.key] if action == "player-save" else []
    _post(world, "gm", world.url(f"setup-{action}", *args), data)


# --- options ---------------------------------------------------------------------------------


def _option_values() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for spec in OPTION_SPECS:
        if spec.choices:
            out[spec.name] = [str(v) for v, _label in spec.choices]
        elif isinstance(spec.default, bool):
            out[spec.name] = ["", "on"]
        else:
            low = spec.minimum or 0
            out[spec.name] = [str(low), str(low + 3), *([""] if spec.default is None else [])]
    return out


@FUZZ
@given(data=posted(_option_values()))
def test_the_options(world, data):
    _post(world, "gm", world.url("setup-options"), data)


# --- rosters ---------------------------------------------------------------------------------

FORCE = {"name": NAMES, "x": COORD, "y": COORD, "status": ["defend", "probe", "full-speed"]}
GENERAL = {
    "general_name": ["Thorin"],
    "general_cv": ["1", "4", "6", "0", "99"],
    "general_points": NUMBERS,
    "general_mounted": ["", "on"],
}
UNIT = {
    "type": ["Axemen", "Wolf riders"],
    "speciality": ["infantry", "cavalry", "missile"],
    "quality": ["veteran", "regular", "levy"],
    "figures": ["1", "20", "10000"],
    "points_per_figure": NUMBERS,
    "mercenary": ["", "on"],
    "missile": ["", "on"],
    "mounted": ["", "on"],
}
CHARACTER = {
    "kind": ["wizard", "hero", "champion"],
    "name": ["", "Radagast"],
    "points": NUMBERS,
    "mounted": ["", "on"],
    "magic_points": NUMBERS,
}


def _prefixed(prefix: str, fields: dict[str, list[str]]) -> dict[str, list[str]]:
    return {f"{prefix}-{k}": v for k, v in fields.items()}


ROSTER_FORMS: dict[str, dict[str, list[str]]] = {
    "roster": {**FORCE, **GENERAL, **_prefixed("unit", UNIT), "player": ["red"]},
    "roster-force-save": {**FORCE, "leader": ["", "general"]},
    "roster-command-add": {**_prefixed("command", GENERAL), **_prefixed("command-unit", UNIT)},
    "roster-unit-add": {**_prefixed("unit", UNIT), "unit-command": ["command"]},
    "roster-character-add": _prefixed("individual", CHARACTER),
    "roster-item-save:command": _prefixed("edit", GENERAL),
    "roster-item-save:unit": _prefixed("edit", UNIT),
    "roster-item-save:individual": _prefixed("edit", CHARACTER),
    "roster-ready": {"ready": ["1", "0"]},
}


@st.composite
def _roster_post(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    action = draw(st.sampled_from(sorted(ROSTER_FORMS)))
    return action, draw(posted(ROSTER_FORMS[action]))


def _roster_url(world: World, action: str) -> str:
    force = Force.objects.get(campaign=world.campaign, owner=world.red)
    name, _sep, kind = action.partition(":")
    if name in ("roster", "roster-ready"):
        return world.url(name)
    if not kind:
        return world.url(name, force.key)
    items = {
        "command": Command.objects.filter(force=force),
        "unit": UnitRow.objects.filter(command__force=force),
        "individual": Individual.objects.filter(force=force),
    }
    return world.url(name, force.key, items[kind].get().key)


@FUZZ
@given(asked=_roster_post(), who=st.sampled_from(["gm", "red"]))
def test_the_rosters(world, asked, who):
    action, data = asked
    command = Command.objects.filter(force__owner=world.red).get()
    swap = {"red": world.red.key, "command": command.key, "general": command.general_key}
    data = {k: swap.get(v, v) if isinstance(v, str) else v for k, v in data.items()}
    if action == "roster-ready" and who == "gm":
        who = "red"  # only the army's player marks it ready
    _post(world, who, _roster_url(world, action), data)


@FUZZ
@given(key=st.sampled_from(NASTY), item=st.sampled_from(NASTY))
@example(key="\x00", item="x")
def test_a_roster_item_by_any_key(world, key, item):
    """Keys in the path: anything but a force (or item) of the army is not found."""
    base = reverse("campaign:roster", args=[world.campaign.slug])
    url = f"{base}{quote(key, safe='') or 'x'}/items/{quote(item, safe='') or 'x'}/save/"
    _post(world, "gm", url, {"edit-general_cv": "4"})


KEYED = {  # every page that names a row by its key, in the path or the query
    "setup-player-save": "post",
    "setup-player-delete": "post",
    "setup-side-delete": "post",
    "setup-holding-remove": "post",
    "roster-force": "get",
    "roster-force-save": "post",
    "roster-force-delete": "post",
    "roster-command-add": "post",
    "roster-unit-add": "post",
    "roster-character-add": "post",
    "orders-force": "get",
}


@pytest.mark.parametrize("bad", ["\x00", "a\x00b", "\x1b", "k" * 65])
def test_a_key_that_cannot_be_one_is_not_found(world, bad):
    gm = client_for(world.users["gm"])
    for name, method in KEYED.items():
        base = world.url(name, "KEY")
        url = base.replace("KEY", quote(bad, safe=""))
        assert getattr(gm, method)(url).status_code == 404, name
    for name, param in (("setup-players", "edit"), ("roster", "player")):
        assert gm.get(world.url(name), {param: bad}).status_code == 404, name
    force = Force.objects.filter(campaign=world.campaign).first()
    assert gm.get(world.url("roster-force", force.key), {"edit": bad}).status_code == 404
    token = quote(bad, safe="")
    assert client_for(None).get(f"/join/{token}/").status_code == 404
