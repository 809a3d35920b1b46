"""Every page of the `battles` namespace against the permission cast (tests/conftest.py): the
GM, the raiders' player (side A), the defenders' player (side B), an observer who follows no
army, an outsider and an anonymous visitor, on the demo campaign with fog of war on and
battle t1-b1 waiting for its result.

The patterns are enumerated from `battles.urls`, so a page added later (result entry,
photos …) is checked too without editing this file. Decisions (`campaign.fog`):

- outsiders get 404 and anonymous visitors the login page, on every page, for GET and POST;
- under fog a battle exists only for the GM and the players of its two sides: an observer who
  follows no army, or a player whose side is not in it, gets 404 for each of its pages;
- without fog (or once the campaign has ended) every member sees every battle;
- the list pages (history, print) answer every member, with only the battles he may see.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import URLPattern, URLResolver, reverse

from battles import urls as battle_urls
from battles.models import Battle, BattlePhoto
from campaign.models import Campaign, Membership
from tests.battles.test_pack import contact, login, three_sides  # noqa: F401
from tests.conftest import CAST

pytestmark = pytest.mark.django_db

MINE = {"history", "pack-print", "detail", "pack", "odds"}
# the result page's actions: POST only, so a GET is refused before anyone is asked who he is
POST_ONLY = {
    "result-preview",
    "result-enter",
    "result-override",
    "result-confirm",
    "result-dispute",
    "result-resolver",
    "result-auto",
    "result-photo-add",
}
_PARAM = re.compile(r"<(?:(?P<conv>\w+):)?(?P<name>\w+)>")


def routes(patterns=battle_urls.urlpatterns, prefix: str = "") -> Iterator[tuple[str, str]]:
    """(name, route) of every named page under `battles`, includes followed."""
    for p in patterns:
        if isinstance(p, URLResolver):
            yield from routes(p.url_patterns, prefix + str(p.pattern))
        elif isinstance(p, URLPattern) and p.name:
            yield p.name, prefix + str(p.pattern)


ROUTES = sorted(routes())
NAMES = [name for name, _route in ROUTES]


def needs_battle(name: str) -> bool:
    return "key" in {m["name"] for m in _PARAM.finditer(dict(ROUTES)[name])}


def url_for(name: str, *, slug: str, key: str, photo: int) -> str:
    """The page `name` for one battle; `slug` comes from config/urls.py's prefix."""
    kwargs: dict[str, object] = {"slug": slug}
    for m in _PARAM.finditer(dict(ROUTES)[name]):
        if m["name"] == "key":
            kwargs["key"] = key
        elif m["conv"] == "int":  # the only other parameter so far: a photo of the battle
            kwargs[m["name"]] = photo
        else:
            pytest.fail(f"battles:{name} takes <{m['name']}>: teach this test its value")
    return reverse(f"battles:{name}", kwargs=kwargs)


def photo_of(battle: Battle) -> int:
    photo = BattlePhoto.objects.create(
        battle=battle,
        file=SimpleUploadedFile("p.jpg", b"\xff\xd8\xff\xd9", content_type="image/jpeg"),
    )
    return photo.pk


@pytest.fixture
def pending(cast, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    battle = contact(cast.campaign)
    return cast, photo_of(battle)


def test_every_page_of_mine_is_enumerated():
    assert set(NAMES) >= MINE, NAMES


# --- the cast, under fog of war --------------------------------------------------------------


EXPECTED_GET = {  # who → status on a battle's pages / on the list pages
    "gm": (200, 200),
    "side_a": (200, 200),
    "side_b": (200, 200),
    "observer": (404, 200),
    "outsider": (404, 404),
    "staff": (404, 404),
    "anonymous": (302, 302),
}


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("who", CAST)
def test_the_cast_on_get(pending, name, who):
    cast, photo = pending
    url = url_for(name, slug="incursion", key="t1-b1", photo=photo)
    response = cast.client(who).get(url)
    on_battle, on_list = EXPECTED_GET[who]
    if name in POST_ONLY:
        assert response.status_code == 405, url
        return
    assert response.status_code == (on_battle if needs_battle(name) else on_list), url
    if who == "anonymous":
        assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize(
    "who, name",
    [
        (who, name)
        for who in ("observer", "outsider", "anonymous")
        for name in NAMES
        if who != "observer" or needs_battle(name)  # the list pages answer observers
    ],
)
def test_no_one_outside_the_battle_can_post(pending, who, name):
    """A POST from someone who may not see the battle changes nothing and reveals nothing:
    404 (or 405 on a read-only page, before anyone is asked who he is), the login page for
    an anonymous visitor."""
    cast, photo = pending
    before = list(Battle.objects.values_list("status", "entry", "result"))
    url = url_for(name, slug="incursion", key="t1-b1", photo=photo)
    response = cast.client(who).post(url, {"outcome": "a"})
    if who == "anonymous":
        assert response.status_code in (302, 405)
        if response.status_code == 302:
            assert response["Location"].startswith(reverse("login"))
    else:
        assert response.status_code in (404, 405)
    assert list(Battle.objects.values_list("status", "entry", "result")) == before


@pytest.mark.parametrize("name", sorted(MINE))
def test_my_pages_are_read_only(pending, name):
    cast, photo = pending
    url = url_for(name, slug="incursion", key="t1-b1", photo=photo)
    assert cast.client("gm").post(url).status_code == 405


def test_unknown_battle_is_404_on_every_battle_page(pending):
    cast, photo = pending
    for name in NAMES:
        if needs_battle(name):
            url = url_for(name, slug="incursion", key="t9-b9", photo=photo)
            send = cast.client("gm").post if name in POST_ONLY else cast.client("gm").get
            assert send(url).status_code == 404, url


def test_unknown_campaign_is_404(pending):
    cast, photo = pending
    for name in NAMES:
        url = url_for(name, slug="nowhere", key="t1-b1", photo=photo)
        send = cast.client("gm").post if name in POST_ONLY else cast.client("gm").get
        assert send(url).status_code == 404, url


# --- without fog, and observers who follow a side -----------------------------------------------


@pytest.mark.parametrize("name", [n for n in NAMES if n not in POST_ONLY])
def test_without_fog_the_observer_sees_every_battle(pending, name):
    cast, photo = pending
    Campaign.objects.filter(pk=cast.campaign.pk).update(fog_of_war=False)
    url = url_for(name, slug="incursion", key="t1-b1", photo=photo)
    assert cast.client("observer").get(url).status_code == 200, url


@pytest.mark.parametrize("name", sorted(MINE))
def test_an_observer_following_a_side_sees_its_battles(pending, name):
    cast, photo = pending
    Membership.objects.filter(campaign=cast.campaign, user=cast.users["observer"]).update(
        player=cast.campaign.players.get(key="defenders")
    )
    url = url_for(name, slug="incursion", key="t1-b1", photo=photo)
    assert cast.client("observer").get(url).status_code == 200, url


@pytest.mark.parametrize("name", sorted(MINE))
def test_once_the_campaign_has_ended_everyone_sees_every_battle(pending, name):
    cast, photo = pending
    Campaign.objects.filter(pk=cast.campaign.pk).update(ended="raiders-win")
    url = url_for(name, slug="incursion", key="t1-b1", photo=photo)
    assert cast.client("observer").get(url).status_code == 200, url


# --- a player whose side is not in the battle -------------------------------------------------


@pytest.fixture
def photos(three_sides, settings, tmp_path):  # noqa: F811
    settings.MEDIA_ROOT = tmp_path
    return {b.key: photo_of(b) for b in Battle.objects.filter(campaign=three_sides)}


@pytest.mark.parametrize("name", [n for n in NAMES if needs_battle(n)])
@pytest.mark.parametrize("who, key", [("p1", "t1-b2"), ("p3", "t1-b1")])
def test_a_player_whose_side_is_not_in_the_battle_gets_404(
    photos, client, django_user_model, name, who, key
):
    login(client, django_user_model, who)
    url = url_for(name, slug="three", key=key, photo=photos[key])
    assert client.get(url).status_code == (405 if name in POST_ONLY else 404), url
    assert client.post(url, {"outcome": "a"}).status_code in (404, 405), url


@pytest.mark.parametrize("name", sorted(MINE & {n for n in NAMES if needs_battle(n)}))
@pytest.mark.parametrize("who, key", [("p1", "t1-b1"), ("p2", "t1-b2"), ("p3", "t1-b2")])
def test_the_players_of_its_sides_see_it(photos, client, django_user_model, name, who, key):
    login(client, django_user_model, who)
    url = url_for(name, slug="three", key=key, photo=photos[key])
    assert client.get(url).status_code == 200, url
