"""The rules engine writes the dice ledger's modifier reasons, outcomes and per-die details in
English ("leader CV", "2 recovered, 1 dead", "4→5: recovered"); the pages show them in the
reader's language (issue 11: they stayed English in the Italian UI)."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation

from campaign.text.ledger import roll_detail, roll_outcome, roll_reason
from tests.battles.test_history import fought  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db

# what the rules write → what an Italian reader reads
ITALIAN = {
    roll_reason: {
        "leader CV": "valore di comando del Condottiero",
        "friendly territory": "territorio amico",
        "starts on road": "parte da strada",
        "full speed": "ordine Massima Velocità",
        "quality: veteran": "qualità: veterana",
        "2 battle(s) lost": "2 battaglie perse",
        "1 battle(s) lost": "1 battaglia persa",
        "force is confused": "la Forza è sotto la reazione Confusa",
        "snow (2 level(s), §11.5)": "neve (2 livelli, §11.5)",
    },
    roll_outcome: {
        "2 recovered, 1 dead": "2 recuperati, 1 morti",
        "1 returned, 0 deserted": "1 tornati, 0 disertati",
        "3 square(s)": "3 quadrati",
        "1 square(s)": "1 quadrato",
        "initiative 7": "iniziativa 7",
        "tie re-roll 3": "pareggio, ritirato: 3",
        "2 token(s)": "2 segnalini",
        "passed": "superato",
        "complete disaster": "completo disastro",
        "ok → probe": "ordine ricevuto: ora Esplorazione",
        "rolled 4": "ha ottenuto 4",
    },
    roll_detail: {
        "4→5: recovered": "4, modificato 5: recuperato",
        "1: dead (natural 1)": "1: morto (un 1 naturale)",
        "6: returned (natural 6)": "6: tornato (un 6 naturale)",
    },
}


@pytest.mark.parametrize("words", list(ITALIAN), ids=lambda f: f.__name__)
def test_the_rules_words_in_italian(words):
    with translation.override("it"):
        for english, italian in ITALIAN[words].items():
            assert words(english) == italian, english


def test_unknown_words_are_shown_as_they_are():
    assert roll_reason("a brand new reason") == "a brand new reason"
    assert roll_outcome("something else") == "something else"
    assert roll_detail("3 ~ 4") == "3 ~ 4"


def test_the_italian_pages_show_no_english_rules_words(fought):  # noqa: F811
    cast = fought
    client = cast.client("side_a")
    client.cookies["django_language"] = "it"
    report = client.get(reverse("campaign:report", args=[cast.campaign.slug, 1]))
    html = report.content.decode()
    assert "valore di comando del Condottiero" in html
    for english in ("leader CV", "recovered, ", "square(s)", "→5: recovered"):
        assert english not in html, english
    battle = client.get(reverse("battles:detail", args=[cast.campaign.slug, "t1-b1"]))
    html = battle.content.decode()
    assert "recuperat" in html
    for english in (": recovered", ": dead", "friendly territory", "quality: "):
        assert english not in html, english
