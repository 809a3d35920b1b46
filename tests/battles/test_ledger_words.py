"""The rules engine writes the dice ledger's modifier reasons, outcomes and per-die details as
codes and params (`rules.LEDGER_MODIFIERS`, `rules.LEDGER_OUTCOMES`); the pages word them in
the reader's language (issue 11: they stayed English in the Italian UI; issue 29: the words
came back from English by regular expressions)."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation

import rules
from campaign.text.ledger import (
    OUTCOME,
    REASON,
    roll_detail,
    roll_outcome,
    roll_reason,
)
from tests.battles.test_history import fought  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db

# what the rules write → what an Italian reader reads
ITALIAN_REASONS = [
    (("leader-cv", None), "valore di comando del Condottiero"),
    (("territory", {"territory": "friendly"}), "territorio amico"),
    (("starts-on", {"feature": "road"}), "parte da strada"),
    (("full-speed", None), "ordine Massima Velocità"),
    (("quality", {"quality": "veteran"}), "qualità: veterana"),
    (("battles-lost", {"n": 2}), "2 battaglie perse"),
    (("battles-lost", {"n": 1}), "1 battaglia persa"),
    (("force-status", {"status": "confused"}), "la Forza è sotto la reazione Confusa"),
    (("snow", {"n": 2}), "neve (2 livelli, §11.5)"),
]
ITALIAN_OUTCOMES = [
    (("wounded", {"recovered": 2, "dead": 1}), "2 recuperati, 1 morto"),
    (("deserters", {"returned": 1, "deserted": 0}), "1 tornato, 0 disertori"),
    (("squares", {"n": 3}), "3 quadrati"),
    (("squares", {"n": 1}), "1 quadrato"),
    (("initiative", {"n": 7}), "iniziativa 7"),
    (("initiative", {"n": -1}), "iniziativa −1"),
    (("tie-reroll", {"n": 3}), "pareggio, ritirato: 3"),
    (("tokens", {"n": 2}), "2 segnalini"),
    (("passed", None), "superato"),
    (("disaster", None), "completo disastro"),
    (("force-test", {"result": "ok", "status": "probe"}), "ordine ricevuto: ora Esplorazione"),
    (("rolled", {"n": 4}), "ha ottenuto 4"),
    (("snow", {"n": 0}), "0 livelli di neve"),
]
ITALIAN_DETAILS = [
    ({"die": 4, "total": 5, "fate": "recovered"}, "4, modificato 5: recuperato"),
    ({"die": 2, "total": -1, "fate": "dead"}, "2, modificato −1: morto"),
    ({"die": 1, "fate": "dead", "natural": True}, "1: morto (un 1 naturale)"),
    ({"die": 6, "fate": "returned", "natural": True}, "6: tornato (un 6 naturale)"),
]


def test_the_rules_words_in_italian():
    with translation.override("it"):
        for (code, params), italian in ITALIAN_REASONS:
            assert roll_reason(code, params) == italian, code
        for (code, values), italian in ITALIAN_OUTCOMES:
            assert roll_outcome(code, values) == italian, code
        for detail, italian in ITALIAN_DETAILS:
            assert roll_detail(detail) == italian, detail


# words that read the same in both languages (names, rule references)
SAME_IN_ITALIAN: set[str] = set()
# sample params and values for every code: each code is worded in both languages
SAMPLE = {
    "n": 2,
    "status": "unsteady",
    "territory": "enemy",
    "feature": "forest",
    "weather": "light-rain",
    "season": "winter",
    "ambush": "ambusher",
    "quality": "elite",
    "hour": 3,
    "general": "f1g1",
    "wind": "contrary",
    "unit": "d1u1",
    "cause": "advantage",
    "result": "ok",
    "recovered": 2,
    "dead": 1,
    "returned": 2,
    "deserted": 1,
    "kind": "spirit",
    "event": "hero-arrives",
    "target": "forces",
    "climate": "cold",
    "relic": "sacred-sword",
    "on": 5,
    "crit": 1,
}
OUTCOME_SAMPLE = {
    "holding-feature": {"feature": "sacred-wood"},
    "scenery": {"feature": "hilly"},
    "unit-order": {"result": "ok-confusion"},
    "command-test": {"result": "army-routs"},
}


def _sample(names):
    return {k: SAMPLE[k] for k in names}


@pytest.mark.parametrize(
    ("table", "codes", "words"),
    [(REASON, rules.LEDGER_MODIFIERS, roll_reason), (OUTCOME, rules.LEDGER_OUTCOMES, roll_outcome)],
    ids=["modifiers", "outcomes"],
)
def test_every_code_the_rules_declare_has_english_and_italian_words(table, codes, words):
    assert set(table) == set(codes)
    for code, names in codes.items():
        params = OUTCOME_SAMPLE.get(code) if words is roll_outcome else None
        params = params or _sample(names)
        english = words(code, params)
        with translation.override("it"):
            italian = words(code, params)
        assert english, code
        assert italian != english or code in SAME_IN_ITALIAN, (code, english)
        for text in (english, italian):
            assert "(s)" not in text and "-1" not in text, (code, text)
            for value in params.values():  # no slug or id reaches the reader
                assert not (isinstance(value, str) and "-" in value and value in text), text
            assert "f1g1" not in text and "d1u1" not in text, text


def test_unknown_codes_are_shown_as_they_are():
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
    for english in ("leader-cv", "leader CV", "recovered, ", "square(s)", "→5: recovered"):
        assert english not in html, english
    battle = client.get(reverse("battles:detail", args=[cast.campaign.slug, "t1-b1"]))
    html = battle.content.decode()
    assert "recuperat" in html
    for english in (": recovered", ": dead", "friendly territory", "quality: "):
        assert english not in html, english
