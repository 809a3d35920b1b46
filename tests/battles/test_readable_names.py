"""No internal code where people read (issue 11): battles by their number in the turn, not
"t1-b1"; units by their type, not "r3u1"; ledger rolls by what they were for, not
"orders:first-player-defenders"; will-to-fight triggers in words, not "lost-battle"; and every
sentence of the narrative starting with a capital."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from campaign.text.labels import battle_number
from campaign.text.ledger import roll_kind
from campaign.text.names import Names
from campaign.text.sentences import event_sentence

pytestmark = pytest.mark.django_db


def text_of(html: str) -> str:
    """What a reader sees: the page without its tags (and so without their attributes)."""
    body = html.split("<main", 1)[1]
    body = re.sub(r"<script.*?</script>", " ", body, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body))


def test_battles_are_numbered_in_their_turn():
    assert battle_number("t3-b1") == "1 of turn 3"
    assert battle_number("imported-7") == "imported-7"


def test_the_battle_pages_name_the_battle_not_its_id(battle, cast):
    slug = cast.campaign.slug
    for who in ("gm", "side_a"):
        client = cast.client(who)
        history = text_of(client.get(reverse("battles:history", args=[slug])).content.decode())
        assert "Battle 1 of turn 1" in history and "t1-b1" not in history
        for name in ("battles:detail", "battles:pack", "battles:result"):
            page = client.get(reverse(name, args=[slug, battle.key])).content.decode()
            assert "t1-b1" not in text_of(page), (who, name)
    result = cast.client("side_b").get(reverse("battles:result", args=[slug, battle.key]))
    text = text_of(result.content.decode())
    assert "Result of battle 1 of turn 1 at (4, 8)" in text
    assert not re.search(r"\b[rd]\d+u\d+\b", text), "a unit's key is shown"
    assert "Horse raiders" in text  # units by their type


def test_the_ledger_says_what_each_roll_was_for(battle, cast):
    html = cast.client("side_a").get(reverse("campaign:report", args=[cast.campaign.slug, 1]))
    text = text_of(html.content.decode())
    assert not re.search(r"\b(movement|orders|weather):[a-z]", text), "a roll's purpose code"
    assert "Initiative" in text and "Movement total" in text
    assert roll_kind("orders:first-player-defenders") == "Who tests his forces first"
    assert roll_kind("orders:force-r1") == "Force test"
    assert roll_kind("something:new") == "something"


def test_will_to_fight_triggers_are_words_and_sentences_start_with_a_capital():
    names = Names([], sides={}, everything=True)
    text = event_sentence(
        {
            "type": "WillToFightTested",
            "player_id": "",
            "passed": False,
            "total": 5,
            "triggers": ["lost-battle", "holding-lost"],
        },
        names,
    )
    assert "because of: a lost battle, a holding lost" in text
    fought = event_sentence(
        {"type": "BattleResolved", "battle_id": "t2-b3", "square": [4, 8], "outcomes": {}}, names
    )
    assert fought.startswith("Battle 3 of turn 2 at"), fought
