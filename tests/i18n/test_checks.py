"""The checks of the member walk (tests.i18n.checks, tests.i18n.crawl), each on small
strings: what it finds, and what it leaves alone."""

from __future__ import annotations

from tests.i18n.checks import (
    english_of,
    english_of_catalogue,
    hyphen_minus,
    internal_ids,
    stand_ins,
    untranslated,
    visible_text,
)
from tests.i18n.crawl import links_of

PO = """msgid ""
msgstr ""

msgid "Orders for turn %(number)s are due"
msgstr "Gli ordini del turno %(number)s scadono"

msgid "Turn"
msgstr "Turno"

msgid "The same in both"
msgstr "The same in both"

msgid "one square lost"
msgid_plural "%(n)s squares were lost"
msgstr[0] "un quadrato perso"
msgstr[1] "%(n)s quadrati persi"

msgid "Read <a href=\\"%(url)s\\">the rules</a> first"
msgstr "Leggi <a href=\\"%(url)s\\">le regole</a> prima"
"""


def test_visible_text_leaves_out_scripts_attributes_and_urls():
    html = (
        '<html><head><title>f7 title</title><script>var f7 = "d3u1";</script></head>'
        '<body><p data-force="f7">Forza <a href="/c/x/roster/f7/">Cavalieri</a></p>'
        '<abbr title="Veterana">V</abbr><input type="submit" value="Invia">'
        '<textarea>{"force_id": "f7"}</textarea><p>Due</p></body></html>'
    )
    assert visible_text(html) == "Forza Cavalieri\nVeterana\nV\nInvia\nDue"


def test_untranslated_finds_msgids_with_placeholders_as_wildcards():
    english = english_of_catalogue(PO)
    assert sorted(e.msgid for e in english) == [
        "%(n)s squares were lost",
        "Orders for turn %(number)s are due",
        "one square lost",
    ]  # short, equal in Italian or holding markup: not looked for
    found = untranslated("Attenzione\nOrders for turn 7 are due domani", english)
    assert found == ["'Orders for turn 7 are due' (msgid 'Orders for turn %(number)s are due')"]
    assert untranslated("12 squares were lost", english) == [
        "'12 squares were lost' (msgid '%(n)s squares were lost')"
    ]
    assert untranslated("Gli ordini del turno 7 scadono; un quadrato perso", english) == []


def test_a_msgid_matches_whole_words_only():
    e = english_of("one square lost")
    assert e is not None
    assert e.found_in("someone square lostness") is None
    assert e.found_in("one square\n lost") is None  # never across blocks
    assert english_of("Turn") is None


def test_internal_ids_and_codes():
    codes = {"leader-emerges", "full-speed"}
    text = (
        "leader f7g9 of force f7: CV 4 → 5\nMen-at-arms (d3u1)\nepidemic in holding h1\n"
        "scout i26 lost\ncatastrophe: varga-host: square (9, 5)\n(tabella day-7-defenders)\n"
        "Leader-emerges\nleader-emerges\nended by will-to-fight\nstatus full-speed"
    )
    found = [f.split(" in ")[0] for f in internal_ids(text, codes)]
    assert found == [
        "'f7g9'", "'f7'", "'d3u1'", "'h1'", "'i26'", "'varga-host'", "'day-7-defenders'",
        "'Leader-emerges'", "'leader-emerges'", "'will-to-fight'", "'full-speed'",
    ]  # fmt: skip


def test_internal_ids_leave_names_dates_and_prose_alone():
    codes = {"full-speed"}
    text = (
        "Turno 7, battaglia t2-b1? Men-at-arms, Massima Velocità\nf-16, F7, h-1, 2026-12-07\n"
        "Host-Zzq-3, well-known, i.e., fi1e, Incursione 1"
    )
    assert internal_ids(text, codes) == []


def test_stand_ins():
    found = stand_ins("3 square(s)\n2 quadrato/i\nminiatura/e\nlevel(s)")
    assert [f.split(" in ")[0] for f in found] == ["'e(s)'", "'/i'", "'/e'", "'l(s)'"]
    assert stand_ins("3 quadrati, e/o, km/h, (s) alone, 1/2") == []


def test_hyphen_minus():
    assert [f.split(" in ")[0] for f in hyphen_minus("in enemy territory -1\n(-2)")] == [
        "'-1'",
        "'-2'",
    ]
    assert hyphen_minus("in territorio nemico −1, 2026-12-07, 1-3, t2-b1, 12:00-13") == []


def test_links_of_keeps_same_site_gets_only():
    html = (
        '<a href="/c/x/map/#top">m</a><a href="https://example.org/">out</a>'
        '<a href="/accounts/logout/">bye</a><a href="/c/x/export.zip">zip</a>'
        '<a href="mailto:a@b.c">mail</a><div hx-get="/c/x/turn/status/"></div>'
        '<a href="report/?page=2">r</a><a href="/admin/">admin</a>'
        '<a href="/c/x/export/3.json" download>j</a>'
    )
    assert links_of(html, "/c/x/turns/") == [
        ("/c/x/map/", False),
        ("/c/x/turn/status/", True),
        ("/c/x/turns/report/?page=2", False),
    ]
