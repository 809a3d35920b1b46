"""The map page and its JSON: who may see it, what fog of war hides (in the HTML and the JSON
alike), ghosts, last turn's arrows and battles, and a bounded number of queries on a big map."""

from __future__ import annotations

import json
import re

import pytest
from django.db import connection
from django.urls import reverse

from battles.models import Battle
from campaign import adapters
from campaign.access import Viewer
from campaign.fog import visible_force_keys, watched_squares
from campaign.map.build import map_model, map_model_for
from campaign.map.model import Clickable
from campaign.map.queries import battle_rows, last_turn_get
from campaign.map.svg import squares_path
from campaign.models import Campaign, Membership, Sighting, Turn
from campaign.selectors import turn_current
from campaign.setup.invitations import membership_add, user_get_or_create
from campaign.stored_states import state_data_of
from campaign.turns.services import turn_close, turn_resolve, turn_resolve_after_battles

pytestmark = pytest.mark.django_db

# the demo (tests/conftest.py `cast`): raiders in the west, defenders in the east
RAIDERS = {"r1": "The Jarl's Host", "r2": "Hakon's Warband", "r3": "The Red Riders"}
DEFENDERS = {
    "d1": ("Ashbury Garrison", (13, 6)),
    "d2": ("The Northern March", (11, 2)),
    "d3": ("The Southern March", (11, 9)),
}


def _urls(campaign: Campaign) -> tuple[str, str]:
    return (
        reverse("campaign:map", args=[campaign.slug]),
        reverse("campaign:map-json", args=[campaign.slug]),
    )


def _get(cast, who: str):
    page, data = _urls(cast.campaign)
    client = cast.client(who)
    return client.get(page), client.get(data)


def _force_keys(payload: dict) -> set[str]:
    return {f["key"] for f in payload["forces"]}


def _assert_hidden(html: str, text: str, key: str, name: str, square: tuple[int, int]) -> None:
    """Nothing of a hidden force in the page or the JSON: not its key, name or square."""
    for where in (html, text):
        assert name not in where
        assert re.search(rf"\b{key}\b", where) is None, key
    assert f'data-force="{key}"' not in html
    assert f"({square[0]}, {square[1]})" not in html  # titles and the list give squares so
    payload = json.loads(text)
    shown = [f["square"] for f in payload["forces"]] + [g["square"] for g in payload["ghosts"]]
    assert list(square) not in shown


# --- who may see the map -----------------------------------------------------------------------


@pytest.mark.parametrize("who", ["gm", "side_a", "side_b", "observer"])
def test_members_see_the_page_and_the_json(cast, who):
    page, data = _get(cast, who)
    assert page.status_code == 200
    html = page.content.decode()
    assert '<svg class="map' in html
    assert "css/map.css" in html
    assert 'id="map-panel"' in html
    assert "Legend" in html
    assert "Turn 1, day 0" in html
    assert data.status_code == 200
    assert data["Content-Type"] == "application/json"
    assert "no-cache" in page["Cache-Control"] and "private" in data["Cache-Control"]
    payload = data.json()
    assert payload["map"]["width"] == 16 and payload["map"]["height"] == 12
    assert payload["fog_of_war"] is True
    # holdings are public: every viewer sees all six, in their owners' colours
    assert {h["key"] for h in payload["holdings"]} == {
        "wolfstead",
        "ashbury",
        "thornbury",
        "eastwick",
        "millbrook",
        "oakley",
    }


def test_outsider_gets_404(cast):
    page, data = _get(cast, "outsider")
    assert page.status_code == 404
    assert data.status_code == 404


def test_anonymous_is_sent_to_login(cast):
    page, data = _get(cast, "anonymous")
    for response in (page, data):
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))


def test_unknown_campaign_is_404(cast):
    client = cast.client("gm")
    assert client.get(reverse("campaign:map", args=["no-such-campaign"])).status_code == 404


def test_htmx_request_gets_the_map_panel_only(cast):
    page, _ = _urls(cast.campaign)
    response = cast.client("side_a").get(page, headers={"HX-Request": "true"})
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="map-panel"')
    assert "<html" not in html
    assert '<svg class="map' in html


def test_nav_links_to_the_map(cast):
    page, _ = _urls(cast.campaign)
    html = cast.client("gm").get(page).content.decode()
    assert f'href="{page}"' in html


# --- fog of war ----------------------------------------------------------------------------------


def test_gm_sees_every_force(cast):
    page, data = _get(cast, "gm")
    html, payload = page.content.decode(), data.json()
    assert _force_keys(payload) == set(RAIDERS) | set(DEFENDERS)
    for name in [*RAIDERS.values(), *(n for n, _ in DEFENDERS.values())]:
        assert name.replace("'", "&#x27;") in html
    assert payload["viewer"]["sees_everything"] is True
    assert payload["ghosts"] == []


def test_raider_does_not_see_the_defenders_anywhere(cast):
    page, data = _get(cast, "side_a")
    html, text = page.content.decode(), data.content.decode()
    payload = json.loads(text)
    assert _force_keys(payload) == set(RAIDERS)
    for key in RAIDERS:
        assert f'data-force="{key}"' in html
    for key, (name, square) in DEFENDERS.items():
        _assert_hidden(html, text, key, name, square)
    assert payload["viewer"] == {
        "role": "player",
        "side": "raiders",
        "player": "raiders",
        "sees_everything": False,
    }
    assert "Fog of war: you see your side" in html


def test_defender_does_not_see_the_raiders(cast):
    page, data = _get(cast, "side_b")
    html, text = page.content.decode(), data.content.decode()
    assert _force_keys(json.loads(text)) == set(DEFENDERS)
    state = adapters.state_load(campaign=cast.campaign)
    for key, name in RAIDERS.items():
        _assert_hidden(html.replace("&#x27;", "'"), text, key, name, state.force(key).square)


def test_observer_following_no_side_sees_no_forces_under_fog(cast):
    page, data = _get(cast, "observer")
    assert data.json()["forces"] == []
    html = page.content.decode()
    assert "data-force=" not in html
    assert "you follow none, so no force is shown" in html


def test_enemy_inside_a_zone_of_control_is_seen(cast):
    """Move d2 next to the raiders' r2 at (2, 4): it is in r2's zone, so the raider sees it
    (and the defender now sees r2, which is in d2's zone)."""
    cast.campaign.forces.filter(key="d2").update(x=3, y=3)
    _, data = _get(cast, "side_a")
    assert "d2" in _force_keys(data.json())
    assert "d1" not in _force_keys(data.json())
    _, data = _get(cast, "side_b")
    assert "r2" in _force_keys(data.json())


def test_enemy_in_a_holding_square_is_seen(cast):
    """A raider force standing in Thornbury's square is seen by its owner, the defenders."""
    cast.campaign.forces.filter(key="r3").update(x=12, y=2)
    _, data = _get(cast, "side_b")
    keys = _force_keys(data.json())
    assert "r3" in keys and "r1" not in keys


def test_ghost_of_a_force_seen_earlier(cast):
    campaign = cast.campaign
    Campaign.objects.filter(pk=campaign.pk).update(turn_number=3)
    Sighting.objects.create(
        campaign=campaign,
        side_key="raiders",
        force_key="d2",
        x=9,
        y=3,
        turn_number=1,
        status="defend",
        figures=77,
    )
    page, data = _get(cast, "side_a")
    html, payload = page.content.decode(), data.json()
    assert payload["ghosts"] == [
        {
            "force": "d2",
            "name": "The Northern March",
            "owner": "defenders",
            "square": [9, 3],
            "last_seen_turn": 1,
            "turns_ago": 2,
            "status": "defend",
            "figures": 77,
        }
    ]
    assert 'data-ghost="d2"' in html
    assert "last seen 2 turns ago, square (9, 3)" in html
    # where it really is stays hidden, and the other defenders leave no ghost
    assert "d2" not in _force_keys(payload)
    assert 'data-force="d2"' not in html
    assert "(11, 2)" not in html
    _assert_hidden(html, data.content.decode(), "d1", *DEFENDERS["d1"])
    # the defenders' own map shows no ghost of their own force
    _, theirs = _get(cast, "side_b")
    assert theirs.json()["ghosts"] == []


def test_without_fog_everyone_sees_every_force(cast):
    Campaign.objects.filter(pk=cast.campaign.pk).update(fog_of_war=False)
    for who in ("side_a", "side_b", "observer"):
        page, data = _get(cast, who)
        assert _force_keys(data.json()) == set(RAIDERS) | set(DEFENDERS), who
        html = page.content.decode()
        for key in [*RAIDERS, *DEFENDERS]:
            assert f'data-force="{key}"' in html
        assert data.json()["viewer"]["sees_everything"] is True


def test_territory_is_relative_for_players_and_by_owner_for_the_gm(cast):
    _, data = _get(cast, "side_a")
    tints = {s["territory"] for s in data.json()["map"]["squares"]}
    assert tints == {"friendly", "enemy", "neutral"}
    _, data = _get(cast, "gm")
    tints = {s["territory"] for s in data.json()["map"]["squares"]}
    assert tints == {"raiders", "defenders", "neutral"}


def test_holdings_show_owner_capital_and_sacking(cast):
    cast.campaign.holdings.filter(key="eastwick").update(sacked=True, carried_by="r1")
    page, data = _get(cast, "side_b")
    holdings = {h["key"]: h for h in data.json()["holdings"]}
    assert holdings["ashbury"]["capital"] is True
    assert holdings["eastwick"]["sacked"] is True and holdings["thornbury"]["sacked"] is False
    html = page.content.decode()
    assert "Eastwick, holding of The March of Ashbury (sacked)" in html
    assert "Ashbury, capital of The March of Ashbury" in html


def test_forces_carry_status_strength_and_zone(cast):
    _, data = _get(cast, "gm")
    forces = {f["key"]: f for f in data.json()["forces"]}
    state = adapters.state_load(campaign=cast.campaign)
    r1 = state.force("r1")
    assert forces["r1"]["status"] == r1.status.value
    assert forces["r1"]["figures"] == r1.figures
    assert {tuple(c) for c in forces["r1"]["zoc"]} == set(state.map.neighbours(r1.square))
    assert forces["r1"]["relation"] == ""


# --- the model on its own -------------------------------------------------------------------------


def test_highlights_and_clickable_squares(cast):
    gm = cast.users["gm"]
    viewer = Viewer(cast.campaign, gm, Membership.Role.GM, None)
    model = map_model_for(
        viewer=viewer,
        highlight={"legal": [(1, 1), (2, 1), (4, 1)], "path": []},
        clickable=Clickable(
            ((1, 1), (2, 1), (99, 99)), {"hx-post": "/orders/step/", "hx-target": "#orders"}
        ),
    )
    assert [layer.css for layer in model.highlights] == ["hl hl-legal"]
    assert model.highlights[0].d == "M10 10h20v10h-20zM40 10h10v10h-10z"
    assert [(c.x, c.y) for c in model.clickable] == [(1, 1), (2, 1)]  # off-map squares dropped
    from django.template.loader import render_to_string

    html = render_to_string("includes/map_svg.html", {"map": model})
    assert 'class="hl hl-legal"' in html
    assert 'data-x="2" data-y="1" hx-vals=\'{"x": 2, "y": 1}\'' in html
    assert html.count('hx-post="/orders/step/"') == 2  # on each square
    assert '<g class="clickable" hx-target="#orders">' in html  # inherited: once
    with pytest.raises(ValueError):
        Clickable(((1, 1),), {"onclick": "alert(1)"})
    with pytest.raises(ValueError):
        map_model_for(viewer=viewer, highlight={"bad class": [(1, 1)]})


def test_svg_numbers_are_not_localised(cast):
    """Counter geometry has decimals: in Italian they must still be written with a point."""
    page, _ = _urls(cast.campaign)
    client = cast.client("gm")
    html = client.get(page, headers={"Accept-Language": "it"}).content.decode()
    svg = html[html.index("<svg") : html.index("</svg>")]
    assert re.search(r'(x|y|width|font-size)="\d+,\d', svg) is None


def test_squares_path_joins_runs():
    assert squares_path([(0, 0), (1, 0), (2, 0), (5, 0), (1, 2)]) == (
        "M0 0h30v10h-30zM50 0h10v10h-10zM10 20h10v10h-10z"
    )
    assert squares_path([]) == ""


# --- last turn: arrows and battles ----------------------------------------------------------------


@pytest.fixture
def fogged(make_campaign, submit_orders):
    """A generated 16×16 campaign with fog of war, its turn 1 resolved up to the battles
    (Phases 0–2), a GM and a user for every player."""
    campaign = make_campaign(width=16, height=16, players=4, forces=24, seed=3)
    Campaign.objects.filter(pk=campaign.pk).update(fog_of_war=True)
    campaign.refresh_from_db()
    submit_orders(campaign, seed=3)
    turn = turn_close(turn=turn_current(campaign=campaign), seed=3)
    turn_resolve(turn_id=turn.pk)
    gm = user_get_or_create(username="fog-gm")
    membership_add(campaign=campaign, user=gm, role=Membership.Role.GM)
    users = {}
    for player in campaign.players.all():
        users[player.key] = user_get_or_create(username=f"fog-{player.key}")
        membership_add(
            campaign=campaign, user=users[player.key], role=Membership.Role.PLAYER, player=player
        )
    campaign.refresh_from_db()
    return campaign, gm, users


def test_last_turn_arrows_and_battles_respect_fog(fogged, client):
    campaign, gm, users = fogged
    page, data = _urls(campaign)
    assert Battle.objects.filter(campaign=campaign).exists()  # the seed gives battles
    client.force_login(gm)
    everything = client.get(data).json()
    moved = {a["force"] for a in everything["movement"]["arrows"]}
    assert moved and everything["movement"]["turn"] == 1
    assert {b["key"] for b in everything["battles"]} == set(
        Battle.objects.filter(campaign=campaign).values_list("key", flat=True)
    )
    state = adapters.state_load(campaign=campaign)
    side_of = {p.id: p.side for p in state.players}
    for key, user in users.items():
        side = side_of[key]
        client.force_login(user)
        payload = client.get(data).json()
        html = client.get(page).content.decode()
        visible = visible_force_keys(state, side)
        watched = watched_squares(state, side)
        assert _force_keys(payload) == visible
        hidden = {f.id for f in state.forces} - visible
        for fid in hidden:
            assert f'data-force="{fid}"' not in html
            assert (
                re.search(
                    rf'"{fid}"', json.dumps(payload["forces"] + payload["movement"]["arrows"])
                )
                is None
            )
        for arrow in payload["movement"]["arrows"]:
            assert arrow["force"] in visible
            owner_side = side_of[state.force(arrow["force"]).owner]
            if owner_side != side:  # an enemy's path: only from where the side could see it
                assert all(tuple(c) in watched for c in arrow["path"][1:])
        for battle in payload["battles"]:
            pending = Battle.objects.get(campaign=campaign, key=battle["key"])
            players = {p for s in pending.pack["sides"] for p in s["players"]}
            fought = any(side_of[p] == side for p in players)
            assert fought or tuple(battle["square"]) in watched
        assert {b["status"] for b in payload["battles"]} <= {"pending"}


def test_own_moves_are_drawn_in_full(fogged, client):
    campaign, _gm, users = fogged
    turn = Turn.objects.get(campaign=campaign, number=1)
    events = turn.resolutions.get(stage="turn").events
    before = state_data_of(turn.resolutions.get(stage="turn"))
    start = {f["id"]: tuple(f["square"]) for f in before["forces"]}
    owner = {f["id"]: f["owner"] for f in before["forces"]}
    move = next(e for e in events if e["type"] == "ForceMoved")
    client.force_login(users[owner[move["force_id"]]])
    arrows = client.get(_urls(campaign)[1]).json()["movement"]["arrows"]
    mine = [a for a in arrows if a["force"] == move["force_id"]]
    assert mine and mine[0]["path"] == [list(start[move["force_id"]]), *move["path"]]


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="the jsonpath reading runs on PostgreSQL only (other databases read in Python)",
)
def test_jsonpath_and_python_readings_agree(fogged):
    campaign, _gm, _users = fogged
    db = last_turn_get(campaign.pk, jsonpath=True)
    py = last_turn_get(campaign.pk, jsonpath=False)
    assert db == py
    assert db.number == 1 and db.events
    assert battle_rows(db, jsonpath=True) == battle_rows(py, jsonpath=False)


def test_ghosts_follow_the_recorded_sightings(fogged, record_results):
    """After a whole turn the services record what each side saw; a force seen before and
    out of sight now is a ghost, and never also a visible force."""
    campaign, _gm, users = fogged
    turn = Turn.objects.get(campaign=campaign, number=1)
    record_results(turn)
    turn_resolve_after_battles(turn_id=turn.pk)
    campaign.refresh_from_db()
    state = adapters.state_load(campaign=campaign)
    for player in campaign.players.all():
        viewer = Viewer(campaign, users[player.key], Membership.Role.PLAYER, player)
        model = map_model(viewer=viewer, state=state)
        shown = {f.key for f in model.forces}
        assert shown == visible_force_keys(state, player.side.key)
        ghosts = {g.force_key for g in model.ghosts}
        assert not ghosts & shown
        recorded = set(
            Sighting.objects.filter(campaign=campaign, side_key=player.side.key).values_list(
                "force_key", flat=True
            )
        )
        assert ghosts == recorded - shown


# --- a big campaign in a bounded number of queries -------------------------------------------


def test_big_map_renders_in_a_bounded_number_of_queries(
    make_campaign, submit_orders, client, django_assert_max_num_queries
):
    campaign = make_campaign(width=64, height=64, players=12, forces=240, seed=1)
    Campaign.objects.filter(pk=campaign.pk).update(fog_of_war=True)
    campaign.refresh_from_db()
    submit_orders(campaign, seed=1)
    turn = turn_close(turn=turn_current(campaign=campaign), seed=1)
    turn_resolve(turn_id=turn.pk)  # arrows and pending battles to draw
    assert Battle.objects.filter(turn=turn).exists()
    gm = user_get_or_create(username="big-gm")
    membership_add(campaign=campaign, user=gm, role=Membership.Role.GM)
    player = campaign.players.get(key="p1")
    user = user_get_or_create(username="big-p1")
    membership_add(campaign=campaign, user=user, role=Membership.Role.PLAYER, player=player)
    page, data = _urls(campaign)
    for who in (gm, user):
        client.force_login(who)
        # 15, and the header's unread-notices count; the first reads the state's rows (and
        # its stamp before and after: campaign.state_rows), later ones the stamp alone
        with django_assert_max_num_queries(18 if who == gm else 11):
            response = client.get(page)
        assert response.status_code == 200
        with django_assert_max_num_queries(15):
            assert client.get(data).status_code == 200
    html = response.content.decode()
    assert html.count("<path ") < 700  # squares are grouped, not drawn one by one


def test_the_lists_come_when_opened_and_hide_what_the_map_hides(cast):
    """The lists repeating the map in words are not sent with the page (a row per force):
    opening them asks for them (htmx), and a link gives the page with them, under the same
    fog of war as the map."""
    page_url, _json_url = _urls(cast.campaign)
    client = cast.client("side_a")
    html = client.get(page_url).content.decode()
    assert 'class="map-table"' not in html and "?lists=1" in html
    part = client.get(page_url + "?lists=1", headers={"HX-Request": "true"}).content.decode()
    assert part.startswith('<div class="map-lists-body">') and 'class="map-table"' in part
    assert "<svg" not in part  # the lists alone
    for key in RAIDERS:
        assert f'href="#force-{key}"' in part
    name, square = DEFENDERS["d1"]
    assert name not in part and re.search(r"\bd1\b", part) is None
    assert f"({square[0]}, {square[1]})" not in part
    whole = client.get(page_url + "?lists=1").content.decode()
    assert 'id="map-lists" open' in whole and 'class="map-table"' in whole


def test_the_map_data_is_sent_compressed_to_who_accepts_it(cast):
    """The download is mostly the map's squares: sent gzipped to a browser (which asks for
    it), the same document once unpacked; plain to a client that does not ask."""
    import gzip

    _page_url, json_url = _urls(cast.campaign)
    client = cast.client("side_a")
    plain = client.get(json_url)
    packed = client.get(json_url, headers={"Accept-Encoding": "gzip, deflate, br"})
    assert "Content-Encoding" not in plain and packed["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(packed.content)) == plain.json()
    assert packed["Content-Disposition"] == plain["Content-Disposition"]
