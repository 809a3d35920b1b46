"""The turn report and dice ledger (`campaign:report`) and the replay check (`campaign:replay`).

On the demo campaign with fog of war on, turn 1 resolved with seed 7: the raiders march in
their own third, the defenders stay far away in theirs, so neither side sees the other's
forces. `contact` moves the Southern March next to the Red Riders' path first, so that the
raiders meet it (battle t1-b1) and see that one defender force but no other.
"""

from __future__ import annotations

import dataclasses
import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from campaign.models import Force, Turn, TurnResolution
from campaign.selectors import turn_current
from campaign.text.names import Names
from campaign.text.sentences import RENDERERS, event_sentence
from campaign.turns.services import turn_close
from rules import events as rules_events
from tests.conftest import CAST

pytestmark = pytest.mark.django_db

HIDDEN_DEFENDERS = (
    "Ashbury Garrison",
    "The Northern March",
    "The Southern March",
    "Sir Edmund Ashby",
    "Captain John Harrow",
    "Sir Roger Hale",
    "Lady Margaret Fenwick",
    "Knights of the March",
)
HIDDEN_RAIDERS = ("The Red Riders", "The Jarl", "Warband", "Sigrid the Red", "Horse raiders")
DEFENDER_IDS = re.compile(r"\bd[1-3](?:[cgiu]\d+)?\b")
RAIDER_IDS = re.compile(r"\br[1-3](?:[cgiu]\d+)?\b")


def resolve(seed: int = 7) -> None:
    call_command("resolve_turn", "incursion", "--seed", str(seed), stdout=StringIO())


def url(number: int = 1, name: str = "campaign:report") -> str:
    return reverse(name, args=["incursion", number])


@pytest.fixture
def resolved(cast):
    resolve()
    return cast


@pytest.fixture
def contact(cast):
    """The Southern March waits at (4, 8), on the Red Riders' path: contact, battle t1-b1."""
    Force.objects.filter(campaign=cast.campaign, key="d3").update(x=4, y=8)
    resolve()
    return cast


def page(cast, who: str, path: str | None = None) -> str:
    response = cast.client(who).get(path or url())
    assert response.status_code == 200
    return response.content.decode()


def absent(html: str, names: tuple[str, ...], ids: re.Pattern) -> None:
    for name in names:
        assert name not in html, name
    assert not ids.search(html), ids.search(html)


# --- who may open it ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "who, status",
    zip(CAST, (200, 200, 200, 200, 404, 404, 302), strict=True),
)
def test_the_cast_on_the_report(resolved, who, status):
    response = resolved.client(who).get(url())
    assert response.status_code == status
    if who == "anonymous":
        assert response["Location"].startswith(reverse("login"))


def test_unknown_turn_is_404(resolved):
    assert resolved.client("gm").get(url(99)).status_code == 404


def test_the_turn_after_the_last_one_leads_to_the_last_report(resolved):
    """Once a campaign has ended its turn number runs one past its last turn."""
    Turn.objects.filter(campaign=resolved.campaign, number=2).delete()
    response = resolved.client("side_a").get(url(2))
    assert response.status_code == 302 and response["Location"] == url(1)


# --- fog of war ----------------------------------------------------------------------------------


def test_raider_sees_his_movements_and_rolls_but_no_hidden_defender(resolved):
    html = page(resolved, "side_a")
    assert "The Red Riders moved to (5, 9), by way of (3, 7), (4, 8), (5, 9)." in html
    assert "The Red Riders rolled a movement total of 9" in html
    # his rolls, each with its rule, dice, modifiers with reasons, total and outcome
    assert "movement:force-r3" in html and "movement:initiative-r1" in html
    assert "R6.2" in html and "R6.1.3" in html
    assert "+1 starts on road" in html and "+2 Full Speed order" in html
    assert "1D6: 5" in html and "3 squares" in html
    assert "your side saw these forces move in this order" in html
    absent(html, HIDDEN_DEFENDERS, DEFENDER_IDS)
    assert "initiative-d" not in html
    # numbered 1…6: gaps where the defenders' three initiative rolls were would count them
    assert re.findall(r"<tr data-purpose=[^>]*>\s*<td>(\d+)</td>", html) == [
        "1",
        "2",
        "3",
        "4",
        "5",
        "6",
    ]


def test_defender_sees_his_rolls_but_no_hidden_raider(resolved):
    html = page(resolved, "side_b")
    assert "Ashbury Garrison" in html and "movement:initiative-d1" in html
    absent(html, HIDDEN_RAIDERS, RAIDER_IDS)
    assert "by way of" not in html  # no movement of his, none of the raiders he may see


def test_game_master_sees_everything(resolved):
    html = page(resolved, "gm")
    for name in ("Ashbury Garrison", "The Northern March", "The Red Riders"):
        assert name in html
    assert "movement:initiative-d1" in html and "movement:force-r3" in html
    assert "the forces moved in this order: Ashbury Garrison, The Red Riders" in html


def test_observer_following_no_side_sees_only_map_wide_events(resolved):
    html = page(resolved, "observer")
    assert "The calendar moved on to day 1." in html
    absent(html, HIDDEN_DEFENDERS + HIDDEN_RAIDERS, DEFENDER_IDS)
    assert not RAIDER_IDS.search(html)


def test_a_contacted_enemy_is_shown_and_the_others_stay_hidden(contact):
    html = page(contact, "side_a")
    assert (
        "The Red Riders made contact with The Southern March at (4, 8): battle 1 of turn 1." in html
    )
    # the force is in sight, but its initiative (1D6 + its leader's CV) is the enemy's roll
    assert "movement:initiative-d3" not in html and "movement:initiative-r3" in html
    hidden = HIDDEN_DEFENDERS[:2] + HIDDEN_DEFENDERS[3:6] + HIDDEN_DEFENDERS[7:]
    absent(html, hidden, re.compile(r"\bd[12]\w*\b"))
    assert "Turn 1 waits" not in html  # that is the GM's inbox, not the report
    # the defender sees the raiders who reached him, and only them
    html = page(contact, "side_b")
    assert "The Red Riders made contact with The Southern March" in html
    assert "The Jarl" not in html and "Warband" not in html
    assert not re.search(r"\br[12]\w*\b", html)


def test_an_enemy_path_is_cut_to_the_squares_the_side_watched(cast):
    """The Southern March waits at (6, 10): the Red Riders end their move next to it, at
    (5, 9), and stop in its zone of control. The defenders saw them arrive, not where from."""
    Force.objects.filter(campaign=cast.campaign, key="d3").update(x=6, y=10)
    resolve()
    html = page(cast, "side_b")
    assert "The Red Riders moved to (5, 9)." in html
    assert "The Red Riders stopped at (5, 9): it entered an enemy zone of control." in html
    assert "(3, 7)" not in html and "(4, 8)" not in html
    assert "The Jarl" not in html and "Warband" not in html
    html = page(cast, "side_a")
    assert "The Red Riders moved to (5, 9), by way of (3, 7), (4, 8), (5, 9)." in html


# --- the seed ------------------------------------------------------------------------------------


def test_seed_hash_before_resolution_and_seed_after(cast):
    html = page(cast, "side_a")
    assert "The seed is fixed when the turn closes" in html
    turn = turn_close(turn=turn_current(campaign=cast.campaign), seed=7)
    html = page(cast, "side_a")
    assert turn.seed_hash in html
    assert "<code>7</code>" not in html
    assert "revealed once the turn is resolved" in html
    assert "Replay this turn" not in html
    resolve()
    html = page(cast, "side_a")
    assert "The seed of this turn was <code>7</code>." in html
    assert turn.seed_hash in html
    assert "Replay this turn and check it" in html
    assert f'action="{url(name="campaign:replay")}"' in html


def test_turn_navigation_lists_every_turn(resolved):
    html = page(resolved, "side_a", url(2))
    assert f'href="{url(1)}"' in html and f'href="{url(2)}"' in html
    assert "This turn has not been resolved yet." in html


# --- the ledger filter (htmx) --------------------------------------------------------------------


def test_ledger_filter_by_phase_full_page_and_fragment(resolved):
    html = page(resolved, "gm", url() + "?phase=movement")
    assert 'id="ledger"' in html and "movement:force-r3" in html
    client = resolved.client("side_a")
    response = client.get(
        url() + "?phase=movement", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="ledger"
    )
    assert response.status_code == 200
    fragment = response.content.decode()
    assert fragment.lstrip().startswith('<div id="ledger">')
    assert "<html" not in fragment and "What happened" not in fragment
    assert "movement:force-r3" in fragment
    assert f'href="{url()}?phase=movement#ledger"' in fragment
    assert f'hx-get="{url()}?phase=movement"' in fragment
    absent(fragment, HIDDEN_DEFENDERS, DEFENDER_IDS)
    # a phase with no roll is ignored rather than emptying the table
    assert "movement:force-r3" in page(resolved, "side_a", url() + "?phase=nonsense")


# --- the replay check ----------------------------------------------------------------------------


def replay(cast, who: str, *, htmx: bool = False):
    extra = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    return cast.client(who).post(url(name="campaign:replay"), **extra)


@pytest.mark.parametrize("who", ["gm", "side_a", "side_b", "observer"])
def test_replay_reports_ok_to_every_member(resolved, who):
    response = replay(resolved, who)
    assert response.status_code == 200
    assert "Replay OK: every roll and every event matches" in response.content.decode()


def test_replay_is_refused_to_outsiders_and_needs_csrf(resolved):
    assert replay(resolved, "outsider").status_code == 404
    assert replay(resolved, "anonymous").status_code == 302
    client = Client(enforce_csrf_checks=True)
    client.force_login(resolved.users["side_a"])
    assert client.post(url(name="campaign:replay")).status_code == 403
    assert resolved.client("side_a").get(url(name="campaign:replay")).status_code == 405


def test_replay_waits_for_resolution(cast):
    turn_close(turn=turn_current(campaign=cast.campaign), seed=7)
    response = replay(cast, "side_a")
    assert response.status_code == 409
    assert "A turn can be replayed once it is resolved." in response.content.decode()
    response = replay(cast, "side_a", htmx=True)  # htmx swaps only 2xx answers
    assert response.status_code == 200
    assert "A turn can be replayed once it is resolved." in response.content.decode()


def tamper(seq: int, natural: list[int]) -> None:
    r = TurnResolution.objects.get(turn__number=1, stage=TurnResolution.Stage.TURN)
    r.ledger[seq - 1]["natural"] = natural
    r.save(update_fields=["ledger"])


def test_replay_reports_a_tampered_roll(resolved):
    tamper(7, [6])  # the Red Riders' movement roll (a 5)
    fragment = replay(resolved, "side_a", htmx=True).content.decode()
    assert fragment.lstrip().startswith('<div id="replay-result"')
    assert "The replay does not match what was stored:" in fragment
    # his fourth roll: the ledger he sees is numbered without the hidden rolls' gaps
    assert "roll 4 (movement:force-r3) does not match the replay." in fragment
    html = replay(resolved, "gm").content.decode()
    assert "ledger #7 (movement:force-r3): natural: stored [6], replayed [5]" in html


def test_replay_of_a_hidden_roll_names_nothing_hidden(resolved):
    tamper(4, [1])  # Ashbury Garrison's initiative roll (a 6)
    html = replay(resolved, "side_a").content.decode()
    assert "1 other difference is in a roll or event your side cannot see." in html
    absent(html, HIDDEN_DEFENDERS, DEFENDER_IDS)
    assert "movement:initiative-d1" in replay(resolved, "gm").content.decode()


# --- one readable sentence for every event type --------------------------------------------------


def _sample(f: dataclasses.Field):
    kind = str(f.type)
    if "None" in kind:
        return None
    if kind.startswith("tuple[tuple[int, int]"):
        return [[1, 2], [2, 3]]
    if kind.startswith("tuple[int, int]"):
        return [1, 2]
    if kind.startswith(("tuple", "list")):
        return ["x1"]
    if kind.startswith("dict"):
        return {"a": "won", "b": "lost"}
    return {"int": 3, "bool": True}.get(kind, "x1")


def event_classes():
    return [
        cls
        for cls in vars(rules_events).values()
        if isinstance(cls, type)
        and issubclass(cls, rules_events.Event)
        and cls is not rules_events.Event
    ]


def test_every_event_type_has_a_sentence():
    assert {cls.__name__ for cls in event_classes()} <= set(RENDERERS)
    names = Names([], sides={}, everything=True)
    for cls in event_classes():
        data = {"type": cls.__name__} | {f.name: _sample(f) for f in dataclasses.fields(cls)}
        text = event_sentence(data, names)
        assert text.endswith(".") and cls.__name__ not in text, (cls.__name__, text)
    unknown = event_sentence({"type": "Earthquake", "square": [1, 2]}, names)
    assert unknown == "Event Earthquake (square: [1, 2])."


def test_turn_report_of_an_ended_turn_keeps_working_after_the_next_resolution(resolved):
    """The report of turn 1 judges its Phases 4–8 against turn 2's starting state once that
    exists."""
    resolve(8)
    assert Turn.objects.get(campaign=resolved.campaign, number=2).status == Turn.Status.RESOLVED
    html = page(resolved, "side_a")
    assert "The Red Riders moved to (5, 9)" in html
    absent(html, HIDDEN_DEFENDERS, DEFENDER_IDS)
