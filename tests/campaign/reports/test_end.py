"""The end page (`campaign:end`): the winner, how the campaign ended in words (never a raw
code), the scenario's victory conditions and the armies' totals."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from campaign.models import Campaign

pytestmark = pytest.mark.django_db

END = reverse("campaign:end", args=["incursion"])


def _end(cast, **fields) -> None:
    Campaign.objects.filter(pk=cast.campaign.pk).update(**fields)


def test_the_end_page_names_the_winner_and_how(cast):
    _end(cast, ended="will-to-fight", winner="raiders", day=9)
    html = cast.client("side_b").get(END).content.decode()
    assert "Raiders won the campaign" in html
    assert "Will to fight." in html and "(R9.1, R11.7.1)" in html
    assert not re.search(r"will-to-fight(?! test)", html)  # the code, not the words
    # the Incursion's conditions, and each army's totals
    assert "bringing a force carrying loot into their capital" in html
    assert "On day 42 the campaign ends: honourable withdrawal." in html
    assert "Victorious" in html and "Defeated" in html


def test_a_draw_names_no_winner(cast):
    _end(cast, ended="honourable-withdrawal", winner="", day=42)
    html = cast.client("gm").get(END).content.decode()
    assert "No one won: the campaign ended in a draw" in html
    assert "both sides withdrew with honour" in html
    assert "Withdrew with honour" in html


def test_before_the_end_the_page_says_it_is_running(cast):
    response = cast.client("side_a").get(END)
    assert response.status_code == 404
    assert "The campaign is still running" in response.content.decode()


def test_outsiders_do_not_see_it(cast):
    _end(cast, ended="will-to-fight", winner="raiders")
    assert cast.client("outsider").get(END).status_code == 404
    assert cast.client("anonymous").get(END).status_code == 302


def test_the_report_sentence_names_the_reason_in_words(cast):
    from campaign.text.names import Names
    from campaign.text.sentences import event_sentence

    names = Names([], sides={"raiders": "Raiders"}, everything=True)
    text = event_sentence(
        {"type": "CampaignEnded", "reason": "will-to-fight", "winner": "raiders"}, names
    )
    assert text == (
        "The campaign has ended (every other side lost its will to fight): Raiders won."
    )
