"""Fog of war in amendments (issue 28): the three-side campaign of test_fog_three_sides.py,
turn 1 resolved (its two battles between s1 and s2), then amended by the GM.

What an amendment corrects and why (its title, the GM's reason, its notice and e-mail) is
read as far as the reader's side saw what it amends (`campaign.fog.amendment_readers`):

- the result of battle t1-b1 (s1 against s2): the players of s1 and s2 read it all; the
  player of s3, the observer who follows him and the observer who follows no one read only
  that the game master amended an earlier turn: no page, fragment, notice or e-mail of theirs
  names the battle (its key, "1 of turn 1"), the sides that fought it or the reason;
- a player's orders (p1's): only his side reads them.

The walk is the fog walk's (every URL, its htmx and other views, the export), after the
amendment, with the fog walk's own secrets and the amendment's.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail
from django.urls import reverse

from battles.models import Battle
from campaign.models import Amendment, Player, Side, TurnResolution
from campaign.turns.amend import amendment_commit, amendment_preview
from notifications.models import Kind, Notification
from tests.campaign import test_fog_three_sides as fog3
from tests.campaign.leaks import Reading, Secret, reading_of

pytestmark = pytest.mark.django_db

three = fog3.three  # the campaign, as a fixture of this module too
RESULT_REASON = "Reason-Zzq-result: the dice were misread."
ORDERS_REASON = "Reason-Zzq-orders: a misclicked path."
HIDDEN_BANNER = "This turn was played again on"
GENERIC = "the game master amended an earlier turn (turn 1)."
BANNER = re.compile(r'<p class="notice" role="note">(.*?)</p>', re.S)


def _amend(world: fog3.World, capture, **kwargs: Any) -> Amendment:
    """Preview and commit an amendment of turn 1 as the GM; its notices sent on commit."""
    mail.outbox.clear()
    gm = world.users["gm"]
    a = amendment_preview(campaign=world.campaign, user=gm, turn_number=1, **kwargs)
    with capture(execute=True):
        amendment_commit(amendment=a, user=gm)
    world.campaign.refresh_from_db()
    world.notices = fog3._notices(world.campaign, world.users)  # the amendment's, now
    return a


@pytest.fixture
def amended_result(three: fog3.World, django_capture_on_commit_callbacks) -> fog3.World:
    """Battle t1-b1's result amended: a stalemate, one figure of each unit killed."""
    battle = Battle.objects.get(campaign=three.campaign, key="t1-b1")
    data = {
        "outcomes": {"a": "stalemate", "b": "stalemate"},
        "units": [{"unit_id": u["unit_id"], "killed": 1} for u in battle.result["units"]],
    }
    _amend(
        three,
        django_capture_on_commit_callbacks,
        kind=Amendment.Kind.RESULT,
        target="t1-b1",
        data=data,
        reason=RESULT_REASON,
    )
    return three


@pytest.fixture
def amended_orders(three: fog3.World, django_capture_on_commit_callbacks) -> fog3.World:
    """p1's orders of turn 1 amended: one force of his without orders (it holds)."""
    used = TurnResolution.objects.get(turn__campaign=three.campaign, turn__number=1, stage="turn")
    orders = dict(used.inputs["p1"])
    dropped = sorted(orders["forces"])[0]
    orders["forces"] = {k: v for k, v in orders["forces"].items() if k != dropped}
    orders["initiative_priority"] = [
        f for f in orders.get("initiative_priority", []) if f != dropped
    ]
    _amend(
        three,
        django_capture_on_commit_callbacks,
        kind=Amendment.Kind.ORDERS,
        target="p1",
        data=orders,
        reason=ORDERS_REASON,
    )
    return three


def _side_names(campaign, keys: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(
        Side.objects.filter(campaign=campaign, key__in=keys).values_list("name", flat=True)
    )


def _player_names(campaign, keys: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(
        Player.objects.filter(campaign=campaign, key__in=keys).values_list("name", flat=True)
    )


def _result_secrets() -> list[Secret]:
    """What of the amendment of t1-b1 a reader who did not see the battle must not read
    anywhere (the sides' names are public elsewhere: they are looked for in the amendment's
    own texts, `_amendment_texts`)."""
    return [
        Secret("amendment's reason", texts=(RESULT_REASON, "Reason-Zzq")),
        Secret("amendment's title", texts=("The result of battle", "1 of turn 1")),
        Secret("amendment's number", pattern=re.compile(r"[Aa]mendment 1\b")),
        Secret("amended battle", pattern=re.compile(r"\bt1-b1\b")),
    ]


def _amendment_texts(world: fog3.World, who: str) -> list[str]:
    """Every text of the amendment `who` reads: the banners of the reports of the turns it
    replayed (and of the replay page), his notices of it and their e-mails."""
    client = world.client(who)
    out: list[str] = []
    for number in (1, 2):
        page = client.get(reverse("campaign:report", args=[world.campaign.slug, number]))
        if page.status_code == 200:
            out += BANNER.findall(page.content.decode())
    replay = client.post(reverse("campaign:replay", args=[world.campaign.slug, 1]))
    out += BANNER.findall(replay.content.decode())
    user = world.users[who]
    for n in Notification.objects.filter(user=user, kind=Kind.AMENDED):
        out += [n.subject, n.body]
    for m in mail.outbox:
        if user.email in m.to:
            out += [m.subject, m.body]
    return out


def _walk_problems(
    world: fog3.World, who: str, extra: list[Secret], *, fog: bool = True
) -> list[str]:
    """The fog walk as `who`: the fog's own secrets (`fog`) and `extra`."""
    forbidden = fog3.forbidden_for(world, who) if fog else None

    def check(target, where: str, response) -> list[str]:
        reading = reading_of(response.content.decode(), response.get("Content-Type", ""))
        found = {s.label: seen for s in extra if (seen := s.seen_in(reading))}
        if forbidden is not None:
            battle_page = target.name.startswith("battles:")
            found |= fog3.leaks_in(reading, forbidden, battle_page=battle_page)
        return [f"{where}: LEAKS {label}: {seen}" for label, seen in found.items()]

    return fog3.walk(world, who, check)


@pytest.mark.parametrize("three", ["resolved"], indirect=True)
@pytest.mark.parametrize("who", ["p3", "observer", "observer_s3"])
def test_an_amended_battle_a_side_never_saw_appears_nowhere_of_his(amended_result, who: str):
    """Every URL (plain, htmx, other views, read-only POSTs) and the export as `who`: nothing
    of the battle or the amendment's reason; his banners, notices and e-mails name neither
    the battle nor the sides that fought it, and say only that the GM amended an earlier
    turn."""
    world = amended_result
    problems = _walk_problems(world, who, _result_secrets())
    assert not problems, "\n".join(problems)
    texts = _amendment_texts(world, who)
    fought = _side_names(world.campaign, ("s1", "s2")) + _player_names(world.campaign, ("p1", "p2"))
    named = [(name, t) for t in texts for name in fought if name in t]
    assert not named, named
    secrets = _result_secrets()
    assert not [s.label for t in texts for s in secrets if s.found_in(Reading(t))]
    banners = [t for t in texts if HIDDEN_BANNER in t]
    assert len(banners) == 2 and all(GENERIC in b for b in banners), texts  # report 1, its replay
    notices = Notification.objects.filter(user=world.users[who], kind=Kind.AMENDED)
    if who == "observer":  # under fog an observer who follows no one gets no notice
        assert not notices.exists()
    else:
        [notice] = notices
        assert "What was corrected, and why, is told to the players who saw it." in notice.body
        assert [m for m in mail.outbox if world.users[who].email in m.to]


@pytest.mark.parametrize("three", ["resolved"], indirect=True)
def test_the_sides_that_fought_the_amended_battle_read_what_and_why(amended_result):
    """The other half: the battle's sides and the GM read the title and the reason on every
    channel, so that "nothing" above proves something; the GM's form named them."""
    world = amended_result
    for who in ("p1", "p2", "gm"):
        texts = _amendment_texts(world, who)
        banners = [t for t in texts if "This turn was played again after amendment 1" in t]
        assert len(banners) == 2, (who, texts)
        assert all("The result of battle 1 of turn 1" in b and RESULT_REASON in b for b in banners)
        if who == "gm":
            continue
        [notice] = Notification.objects.filter(user=world.users[who], kind=Kind.AMENDED)
        assert "What was corrected: The result of battle 1 of turn 1" in notice.body
        assert RESULT_REASON in notice.body
        [email] = [m for m in mail.outbox if world.users[who].email in m.to]
        assert RESULT_REASON in email.body
    page = world.client("gm").get(reverse("battles:result", args=[world.campaign.slug, "t1-b2"]))
    hint = re.search(r'<p class="helptext" id="amend-readers">(.*?)</p>', page.content.decode())
    assert hint is not None
    s1, s2 = _side_names(world.campaign, ("s1",)) + _side_names(world.campaign, ("s2",))
    assert f"The players who saw this battle, {s1} (Player 1) and {s2} (Player 2)," in hint[1]
    assert _side_names(world.campaign, ("s3",))[0] not in hint[1]
    assert not re.search(r"\bs[123]\b|\bp[123]\b", hint[1])  # names, never keys


@pytest.mark.parametrize("three", ["resolved"], indirect=True)
def test_an_orders_amendment_is_read_by_the_player_s_side_only(amended_orders):
    """p1's orders amended: p1 (side s1) and the GM read "The orders of Player 1 for turn 1"
    and the reason; p2, p3 and both observers read only that the GM amended an earlier turn,
    on every channel; the walk finds the reason nowhere of p2's."""
    world = amended_orders
    title = "The orders of Player 1 for turn 1"
    for who in ("p1", "gm"):
        texts = _amendment_texts(world, who)
        banners = [t for t in texts if "This turn was played again after amendment 1" in t]
        assert len(banners) == 2 and all(title in b and ORDERS_REASON in b for b in banners)
    [notice] = Notification.objects.filter(user=world.users["p1"], kind=Kind.AMENDED)
    assert title in notice.body and ORDERS_REASON in notice.body
    secrets = [
        Secret("amendment's reason", texts=(ORDERS_REASON, "Reason-Zzq")),
        Secret("amendment's title", texts=("The orders of",)),
        Secret("amendment's number", pattern=re.compile(r"[Aa]mendment 1\b")),
    ]
    for who in ("p2", "p3", "observer", "observer_s3"):
        texts = _amendment_texts(world, who)
        assert not [(s.label, t) for t in texts for s in secrets if s.found_in(Reading(t))]
        banners = [t for t in texts if HIDDEN_BANNER in t]
        assert len(banners) == 2 and all(GENERIC in b for b in banners), (who, texts)
    # the amendment's secrets only: the replayed turn 1 is another line (the dice streams
    # moved, its battles were fought by the engine), and the fog walk's policy reads the
    # current state alone, not what p2 saw in the old line (his digest of it, still his)
    problems = _walk_problems(world, "p2", secrets, fog=False)
    assert not problems, "\n".join(problems)
    page = world.client("gm").get(reverse("campaign:amend-turn", args=[world.campaign.slug, 1]))
    hint = re.search(r'<p class="helptext" id="amend-readers">(.*?)</p>', page.content.decode())
    assert (
        hint is not None and "For a player&#x27;s orders, only the players of his side" in hint[1]
    )
    names = _side_names(world.campaign, ("s1", "s2", "s3"))
    assert all(f"{n}: Player" in hint[1] for n in names), hint[1]
