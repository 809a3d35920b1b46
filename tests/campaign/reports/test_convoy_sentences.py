"""The turn report tells a scenario's supply convoys (R9.3.9) in words, with their effect."""

from __future__ import annotations

from io import StringIO

from django.core.management import call_command
from django.urls import reverse

from campaign.exchange.replay import turn_replay
from campaign.models import Campaign, Turn
from campaign.text.names import Names
from campaign.text.sentences import event_sentence
from rules import ScriptedDice, resolve_after_battles
from tests.rules.test_convoys import _state


def test_the_report_tells_each_convoy_in_words(tmp_path):
    out = resolve_after_battles(_state(tmp_path, 7), {}, ScriptedDice([6] * 6))
    names = Names([], sides={}, everything=True)
    lines = [
        event_sentence(e.to_dict(), names) for e in out.events if type(e).__name__ == "SupplyConvoy"
    ]
    assert "Day 7: a supply convoy reaches" in lines[0] and "brings nothing more" in lines[0]
    assert "(R9.3.9): extra reinforcement points." in lines[1]
    banked = [e for e in out.events if type(e).__name__ == "BankChanged"]
    assert banked and banked[0].change == 50 and banked[0].reason == "event-points"


def test_a_refused_reinforcement_reads_in_the_readers_language():
    from django.utils import translation

    names = Names([], sides={}, everything=True)
    event = {
        "type": "ReinforcementsRefused",
        "player_id": "raiders",
        "request": 0,
        "reason": "bank-short",
        "cost": 120,
        "bank": 80,
    }
    assert "it costs 120 points and the bank holds 80" in event_sentence(event, names)
    with translation.override("it"):
        text = event_sentence(event, names)
    assert "120" in text and "80" in text and "costs" not in text


def test_the_gm_turns_convoys_on_and_the_report_shows_them_on_day_seven(cast):
    """R9.3.9 on the web: the options page offers supply convoys; with them on, the turn that
    makes it day 7 tells each army's convoy in the report (the book gives it no effect)."""
    campaign = cast.campaign
    gm = cast.client("gm")
    page = gm.get(reverse("campaign:setup-options", args=[campaign.slug])).content.decode()
    assert "A supply convoy reaches each army every seven days" in page
    Campaign.objects.filter(pk=campaign.pk).update(
        options={**campaign.options, "supply_convoys": True}, turn_number=7, day=6
    )
    Turn.objects.filter(campaign=campaign, number=1).update(number=7)
    call_command("resolve_turn", campaign.slug, "--seed", "7", stdout=StringIO())
    report = cast.client("side_a").get(reverse("campaign:report", args=[campaign.slug, 7]))
    text = report.content.decode()
    assert "Day 7: a supply convoy reaches" in text and "it brings nothing more" in text
    replay = turn_replay(turn=Turn.objects.get(campaign=campaign, number=7))
    assert replay.ok, replay.differences
