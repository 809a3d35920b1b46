"""The Italian catalogue, `locale/it/LC_MESSAGES/django.po`: complete, current, and in use.

(a) Every msgid has a translation (every plural form), none is fuzzy, placeholders match, and
    the compiled `django.mo` (what Django reads) says the same as the `.po`.
(b) The catalogue is not stale: the msgids extracted from the code now (`makemessages`, run in
    a scratch tree of links to the real files, so the real catalogue is never touched) are
    exactly the msgids of the committed `.po`.
(c) Pages answer in Italian for a browser asking for it (`Accept-Language`) or for a visitor
    who chose it with the switcher (`set_language`, the `django_language` cookie), which
    outlives logging in and out; in English otherwise.

After changing any translatable text, refresh the catalogue (a plain `manage.py
makemessages -l it`: the project's `makemessages` command knows what not to read), translate
what it lists, and compile; `./run messages` does all three but the translating.
"""

from __future__ import annotations

import gettext
import os
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import override_settings
from django.urls import reverse
from django.utils import translation

ROOT = Path(__file__).resolve().parent.parent  # settings.BASE_DIR
LOCALE = ROOT / "locale"
PO = LOCALE / "it" / "LC_MESSAGES" / "django.po"
MO = PO.with_suffix(".mo")


def run_makemessages(**options) -> None:
    """`manage.py makemessages -l it`, as a developer runs it."""
    call_command("makemessages", locale=["it"], verbosity=0, **options)


# --- a small .po reader ------------------------------------------------------------------------


@dataclass
class Entry:
    msgid: str = ""
    msgctxt: str | None = None
    msgid_plural: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    line: int = 0
    obsolete: bool = False

    @property
    def key(self) -> tuple[str | None, str, str | None]:
        return (self.msgctxt, self.msgid, self.msgid_plural)

    def __str__(self) -> str:
        ctx = f" [{self.msgctxt}]" if self.msgctxt is not None else ""
        return f"line {self.line}{ctx}: {self.msgid!r}"


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}
_KEYWORD = re.compile(r"^(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)\s+(\".*\")$")


def _unquote(text: str) -> str:
    if not (len(text) >= 2 and text[0] == text[-1] == '"'):
        raise ValueError(f"not a quoted string: {text!r}")
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m[1], m[1]), text[1:-1])


def parse_po(text: str) -> list[Entry]:
    """Every entry of a .po or .pot file, the header (msgid "") first, obsolete ones marked."""
    entries: list[Entry] = []
    entry: Entry | None = None
    part: tuple[str, int] | None = None  # the field that continuation lines extend
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        obsolete = line.startswith("#~")
        if obsolete:
            line = line[2:].strip()
        if not line or (line.startswith("#") and not obsolete):
            if entry is not None and part is not None and part[0] == "msgstr":
                entries.append(entry)
                entry, part = None, None
            if line.startswith("#,"):
                entry = entry or Entry(line=number)
                entry.flags.update(f.strip() for f in line[2:].split(",") if f.strip())
            continue
        m = _KEYWORD.match(line)
        if m:
            keyword, index, value = m[1], m[2], _unquote(m[3])
            if keyword in ("msgctxt", "msgid") and part is not None and part[0] == "msgstr":
                entries.append(entry)
                entry = None
            entry = entry or Entry(line=number)
            entry.obsolete = entry.obsolete or obsolete
            if keyword.startswith("msgstr"):
                part = ("msgstr", int(index or 0))
                entry.msgstr[part[1]] = value
            else:
                part = (keyword, 0)
                if keyword == "msgid":
                    entry.line = number
                setattr(entry, keyword, value)
        elif line.startswith('"') and entry is not None and part is not None:
            if part[0] == "msgstr":
                entry.msgstr[part[1]] += _unquote(line)
            else:
                setattr(entry, part[0], getattr(entry, part[0]) + _unquote(line))
        else:
            raise ValueError(f"line {number}: cannot read {raw!r}")
    if entry is not None and part is not None:
        entries.append(entry)
    return entries


def catalogue(path: Path = PO) -> list[Entry]:
    """The live entries of a catalogue, header and obsolete (#~) entries left out."""
    return [e for e in parse_po(path.read_text(encoding="utf-8")) if e.msgid and not e.obsolete]


def _report(title: str, items: list[str]) -> str:
    return f"{title} ({len(items)}):\n" + "\n".join(f"  {i}" for i in items)


# --- (a) complete ------------------------------------------------------------------------------

_PLACEHOLDER = re.compile(r"%\(([^)]+)\)[-#0 +]*\d*(?:\.\d+)?[sdrifx]")


def test_the_parser_reads_what_gettext_writes():
    text = (
        'msgid ""\nmsgstr ""\n"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n'
        '#: a.py:1\n#, fuzzy, python-format\nmsgctxt "c"\nmsgid "one %(n)s"\nmsgid_plural ""\n'
        '"many %(n)s"\nmsgstr[0] "uno"\nmsgstr[1] ""\n\n'
        'msgid "say \\"hi\\"\\n"\nmsgstr ""\n"di\' \\"ciao\\"\\n"\n\n'
        '#~ msgid "gone"\n#~ msgstr "andato"\n'
    )
    header, plural, quoted, gone = parse_po(text)
    assert header.msgid == "" and "nplurals=2" in header.msgstr[0]
    assert plural.key == ("c", "one %(n)s", "many %(n)s")
    assert plural.msgstr == {0: "uno", 1: ""} and plural.flags == {"fuzzy", "python-format"}
    assert (quoted.msgid, quoted.msgstr[0]) == ('say "hi"\n', 'di\' "ciao"\n')
    assert gone.obsolete and gone.msgstr[0] == "andato"


def test_every_msgid_is_translated_and_none_is_fuzzy():
    entries = parse_po(PO.read_text(encoding="utf-8"))
    header = entries[0]
    assert header.msgid == "" and "fuzzy" not in header.flags, "the .po header is fuzzy"
    assert "Plural-Forms: nplurals=2; plural=(n != 1);" in header.msgstr[0]
    live = [e for e in entries[1:] if not e.obsolete]
    forms = 2  # Italian, like English: one, other
    untranslated = [
        str(e)
        for e in live
        if any(not e.msgstr.get(i) for i in range(forms if e.msgid_plural is not None else 1))
    ]
    fuzzy = [str(e) for e in live if "fuzzy" in e.flags]
    placeholders = [
        f"{e}: {sorted(set(_PLACEHOLDER.findall(src)))} → {sorted(set(_PLACEHOLDER.findall(dst)))}"
        for e in live
        for src, dst in (
            [(e.msgid, e.msgstr.get(0, ""))]
            if e.msgid_plural is None
            else [(e.msgid_plural, e.msgstr.get(i, "")) for i in range(forms)]
        )
        if dst and set(_PLACEHOLDER.findall(src)) != set(_PLACEHOLDER.findall(dst))
    ]
    problems = []
    if untranslated:
        problems.append(_report("msgids without a translation", untranslated))
    if fuzzy:
        problems.append(_report("fuzzy entries (check the translation, then drop #, fuzzy)", fuzzy))
    if placeholders:
        problems.append(_report("translations whose %(name)s placeholders differ", placeholders))
    assert not problems, f"{PO}:\n" + "\n".join(problems)


def test_the_compiled_catalogue_matches_the_po():
    """Django reads django.mo: it must hold every translation of the .po, as it stands now."""
    assert MO.exists(), "compile it: manage.py compilemessages -l it"
    with MO.open("rb") as f:
        mo = gettext.GNUTranslations(f)
    stale = []
    for e in catalogue():
        if not all(e.msgstr.values()):
            continue  # untranslated: the test above lists it
        if e.msgid_plural is None:
            got = [
                mo.pgettext(e.msgctxt, e.msgid) if e.msgctxt is not None else mo.gettext(e.msgid)
            ]
        elif e.msgctxt is not None:
            got = [mo.npgettext(e.msgctxt, e.msgid, e.msgid_plural, n) for n in (1, 2)]
        else:
            got = [mo.ngettext(e.msgid, e.msgid_plural, n) for n in (1, 2)]
        want = [e.msgstr.get(i, "") for i in range(len(got))]
        if got != want:
            stale.append(str(e))
    assert not stale, _report(
        "django.mo is out of date (run manage.py compilemessages -l it) for", stale
    )


# --- (b) current -------------------------------------------------------------------------------


def test_the_catalogue_holds_exactly_the_msgids_of_the_code(tmp_path):
    """Extract the msgids again, into a scratch tree whose entries link to the real ones, and
    compare them with the committed catalogue."""
    if shutil.which("xgettext") is None or shutil.which("msgmerge") is None:
        pytest.skip("GNU gettext is not installed (apt-get install -y gettext)")
    tree = tmp_path / "tree"
    tree.mkdir()
    for entry in ROOT.iterdir():
        if entry.name.startswith(".") or entry.name == "locale":
            continue
        (tree / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    (tree / "locale").mkdir()
    started = time.monotonic()
    cwd = os.getcwd()
    os.chdir(tree)
    try:
        with override_settings(LOCALE_PATHS=[tree / "locale"]):
            run_makemessages(symlinks=True, keep_pot=True)
    finally:
        os.chdir(cwd)
    took = time.monotonic() - started
    in_code = {e.key for e in catalogue(tree / "locale" / "django.pot")}
    committed = {e.key for e in catalogue()}
    assert len(in_code) > 100, f"the extraction found only {len(in_code)} msgids"

    def show(keys):
        return sorted(f"[{c}] {m!r}" if c is not None else repr(m) for c, m, _p in keys)

    problems = []
    if in_code - committed:
        problems.append(_report("in the code but not in the catalogue", show(in_code - committed)))
    if committed - in_code:
        problems.append(
            _report("in the catalogue but no longer in the code", show(committed - in_code))
        )
    assert not problems, (
        "locale/it/LC_MESSAGES/django.po is stale: refresh it with "
        "`./run messages`, translate, compile.\n" + "\n".join(problems)
    )
    assert took < 60, f"extraction took {took:.1f} s"


# --- (c) in use --------------------------------------------------------------------------------


def italian(msgid: str) -> str:
    with translation.override("it"):
        text = translation.gettext(msgid)
    assert text != msgid, f"no Italian for {msgid!r}"
    return text


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/", "/accounts/login/"])
def test_the_browser_language_chooses(client, url):
    en = client.get(url, headers={"accept-language": "en"}).content.decode()
    it = client.get(url, headers={"accept-language": "it-IT,it;q=0.9,en;q=0.5"}).content.decode()
    assert '<html lang="en">' in en and '<html lang="it">' in it
    for msgid in ("Log in", "Change language", "Fantasy Warriors Campaign"):
        assert f"{msgid}<" in en
    assert f"{italian('Log in')}<" in it and "Log in<" not in it
    assert italian("Change language") in it
    if url == "/":
        welcome = "Welcome to the Fantasy Warriors Campaign manager"
        assert welcome in en and italian(welcome) in it and welcome not in it
    # a language we do not have falls back to English
    other = client.get(url, headers={"accept-language": "de"}).content.decode()
    assert '<html lang="en">' in other


@pytest.mark.django_db
def test_the_switcher_wins_over_the_browser_and_outlives_logging_in_and_out(
    client, django_user_model
):
    django_user_model.objects.create_user("ilaria", password="ilaria-pass-1")
    response = client.post(reverse("set_language"), {"language": "it", "next": "/"})
    assert response.status_code == 302 and response.cookies["django_language"].value == "it"
    page = client.get("/", headers={"accept-language": "en"}).content.decode()
    assert '<html lang="it">' in page and italian("Log in to see your campaigns") in page

    # logging in keeps the choice: the cookie is not part of the session
    response = client.post(
        reverse("login"), {"username": "ilaria", "password": "ilaria-pass-1"}, follow=True
    )
    page = response.content.decode()
    assert response.redirect_chain and '<html lang="it">' in page
    assert italian("Your campaigns") in page and italian("Log out") in page
    # and so does logging out (the session is flushed, the cookie stays)
    page = client.post(reverse("logout"), follow=True).content.decode()
    assert '<html lang="it">' in page and italian("You have been logged out.") in page
    client.force_login(django_user_model.objects.get(username="ilaria"))

    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    page = client.get("/", headers={"accept-language": "it"}).content.decode()
    assert '<html lang="en">' in page and "Your campaigns" in page


@pytest.mark.django_db
def test_a_campaign_page_speaks_the_rulebook(cast):
    """Python-side labels (`campaign.text.labels`) and template text, on a real page."""
    client = cast.client("side_a")
    url = reverse("campaign:map", args=[cast.campaign.slug])
    page = client.get(url, headers={"accept-language": "it"}).content.decode()
    for msgid in ("Legend", "Full Speed (order)", "Shattered (reaction)", "Holding", "Capital"):
        assert italian(msgid) in page, msgid
    assert "Massima Velocità" in page and "Caposaldo" in page
    assert "Full Speed (order)" not in page


# --- what is left to translate (./run messages prints it) --------------------------------------

if __name__ == "__main__":  # .venv/bin/python -m tests.test_i18n --todo
    todo = [str(e) for e in catalogue() if "fuzzy" in e.flags or not all(e.msgstr.values())]
    print(_report(f"{PO.relative_to(ROOT)}: to translate", todo))
