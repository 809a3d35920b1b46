"""Fog of war with three sides (issue 12): every URL of the `campaign`, `notifications` and
`battles` namespaces (enumerated as the permission matrix does) and the export, walked as
each of the cast, and searched for what fog of war hides from that reader.

The campaign is generated (`rules.generate`, three players on three sides, a 12×8 map, eight
forces), stored through the services, its generated orders saved, and turn 1 resolved: two
battles between sides s1 and s2 (Host-Zzq-4 against Host-Zzq-8, Host-Zzq-5 against
Host-Zzq-7), none for s3, whose Host-Zzq-3 tied at initiative 9 with a force of each other
side. Forces, generals, characters and unit types are renamed to strings found nowhere else
("Gen-Zzq-3"), and each capital has a holding feature (§2.4), so that a text search finds
them without false alarms. Two states: the battles waiting for their results, and turn 1
resolved (turn 2 open).

What each reader must not see (the policy, issue 12):

1. Under fog of war a side sees its own forces fully, and an enemy force it can see only as
   the map shows it (key, name, owner, square, status, figures): no roster detail (ids of
   its commands, generals, units and characters, their names, its units' types) anywhere,
   except in a battle the side fights (its battle pages, and in the report and the export
   the battle's rolls, events and pack).
2. A hidden enemy force (neither visible nor a ghost the side remembers) appears nowhere:
   key, name, general, characters, units. No roll of the ledger names an enemy force, unit
   or player (the enemy's own rolls), except rolls of a battle the side fought; a tie re-roll
   (R6.1.5) of an own force is not shown when a force of another side tied at that total.
3. A side sees only the battles its side fights: no other battle's key or place, and the
   overview's and turn panel's counts count only those.
4. Holdings are public (R2.3.1, R6.8.1); a holding's feature (§2.4) is its owner's side's and
   the GM's only.

The GM sees everything; an observer who follows a player reads what that player's side
reads; one who follows no one, an outsider, a staff member who is no member and an
anonymous visitor read none of it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.test import Client
from django.urls import reverse

from battles.models import Battle, BattlePhoto
from campaign.adapters import state_current, states_before
from campaign.fog import visible_force_keys
from campaign.models import Membership, Player, Sighting, Turn, TurnResolution
from campaign.selectors import turn_current
from campaign.setup.invitations import invitation_create, membership_add, user_get_or_create
from campaign.setup.services import campaign_create
from campaign.turns.services import turn_close, turn_resolve, turn_resolve_after_battles
from notifications.models import Kind, Notification
from rules.generate import generate_campaign
from rules.types import CampaignState, Force, Options
from tests.campaign.exchange.exports import export_made
from tests.campaign.leaks import (
    HTMX,
    Reading,
    Secret,
    Target,
    count_secret,
    force_secrets,
    reading_of,
    roster_secrets,
    url_names,
    without_battles,
)

pytestmark = pytest.mark.django_db

SEED = 255  # the generator's and the orders'; with TURN_SEED, the turn described above
TURN_SEED = 1
SIDES = ("s1", "s2", "s3")
BATTLES = ("t1-b1", "t1-b2")  # both between s1 and s2
FEATURES = {"h1-1": "tower-of-magic", "h2-1": "stonehenge-temple", "h3-1": "burial-mound"}
FEATURE_LABELS = {
    "tower-of-magic": "Tower of magic",
    "stonehenge-temple": "Stonehenge temple",
    "burial-mound": "Burial mound",
}
STATES = ("battles", "resolved")
ROLES = ("gm", "p1", "p2", "p3", "observer", "observer_s3", "outsider", "staff", "anonymous")
MEMBERS = ("gm", "p1", "p2", "p3", "observer", "observer_s3")
SIDE_OF = {"p1": "s1", "p2": "s2", "p3": "s3", "observer_s3": "s3"}  # the others: none
FORCES = ("f1", "f2", "f3")  # the URL variants: one force of each player

# --- the campaign ------------------------------------------------------------------------------


def _renamed(f: Force) -> Force:
    n = f.id[1:]
    commands = tuple(
        replace(
            c,
            general=replace(c.general, name=f"Gen-Zzq-{n}") if c.general else None,
            units=tuple(
                replace(u, type=f"Troop-Zzq-{n}{chr(97 + k)}") for k, u in enumerate(c.units)
            ),
        )
        for c in f.commands
    )
    individuals = tuple(replace(i, name=f"Hero-Zzq-{n}") for i in f.individuals)
    return replace(f, name=f"Host-Zzq-{n}", commands=commands, individuals=individuals)


def three_side_state() -> CampaignState:
    state = generate_campaign(
        width=12,
        height=8,
        players=3,
        sides=3,
        forces=8,
        units_per_force=2,
        seed=SEED,
        options=Options(holding_features=True),
    )
    return replace(
        state,
        forces=tuple(_renamed(f) for f in state.forces),
        holdings=tuple(replace(h, feature=FEATURES.get(h.id)) for h in state.holdings),
    )


@dataclass
class World:
    campaign: Any
    state: str
    users: dict[str, Any]
    invitation_token: str
    invitation_pk: int
    photo_pk: int
    notices: dict[str, int]  # p1/p2/p3 → a notification of his
    exports: dict[str, int]  # each member → his export, written

    def client(self, who: str) -> Client:
        c = Client()
        if self.users[who] is not None:
            c.force_login(self.users[who])
        return c


def _cast(campaign) -> dict[str, Any]:
    players = {p.key: p for p in Player.objects.filter(campaign=campaign)}
    users: dict[str, Any] = {"anonymous": None}
    for who in ROLES[:-1]:
        users[who] = user_get_or_create(
            username=f"fog-{who}", password=f"{who}-pass-1", email=f"{who}@example.org"
        )
    users["staff"].is_staff = users["staff"].is_superuser = True
    users["staff"].save(update_fields=["is_staff", "is_superuser"])
    Membership.objects.create(campaign=campaign, user=users["gm"], role=Membership.Role.GM)
    for key in ("p1", "p2", "p3"):
        membership_add(
            campaign=campaign, user=users[key], role=Membership.Role.PLAYER, player=players[key]
        )
    membership_add(campaign=campaign, user=users["observer"], role=Membership.Role.OBSERVER)
    membership_add(
        campaign=campaign,
        user=users["observer_s3"],
        role=Membership.Role.OBSERVER,
        player=players["p3"],
    )
    return users


def _notices(campaign, users: dict[str, Any]) -> dict[str, int]:
    out = {}
    for key in ("p1", "p2", "p3"):
        notice = Notification.objects.filter(campaign=campaign, user=users[key]).last()
        if notice is None:
            notice = Notification.objects.create(
                user=users[key],
                campaign=campaign,
                turn=turn_current(campaign=campaign),
                kind=Kind.REMINDER,
                subject="Your orders, please",
                body="Your orders, please.",
                url=f"http://testserver{reverse('campaign:orders', args=[campaign.slug])}",
            )
        out[key] = notice.pk
    return out


# a 1×1 PNG
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)


@pytest.fixture(params=STATES)
def three(
    request, settings, tmp_path, submit_orders, record_results, django_capture_on_commit_callbacks
) -> World:
    """The campaign above, fog of war on, in one of its two states; every notice the turn
    sends (battles, digests) is logged as it would be once the transactions commit."""
    settings.MEDIA_ROOT = tmp_path
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    campaign = campaign_create(
        slug="three-sides", name="Three sides", state=three_side_state(), fog_of_war=True
    )
    users = _cast(campaign)
    submit_orders(campaign, seed=SEED)
    with django_capture_on_commit_callbacks(execute=True):
        turn = turn_close(turn=turn_current(campaign=campaign), seed=TURN_SEED)
        turn_resolve(turn_id=turn.pk)
    battles = list(Battle.objects.filter(campaign=campaign).order_by("key"))
    assert [b.key for b in battles] == list(BATTLES)
    for b in battles:  # two sides fight, the third fights none
        assert sorted(s["side"] for s in b.pack["sides"]) == ["s1", "s2"], b.pack["sides"]
    if request.param == "resolved":
        record_results(Turn.objects.get(pk=turn.pk))
        with django_capture_on_commit_callbacks(execute=True):  # the digests
            turn_resolve_after_battles(turn_id=turn.pk)
        assert Turn.objects.get(pk=turn.pk).status == Turn.Status.RESOLVED
        assert turn_current(campaign=campaign).number == 2
    else:
        assert Turn.objects.get(pk=turn.pk).status == Turn.Status.BATTLES
    campaign.refresh_from_db()
    photo = BattlePhoto.objects.create(
        battle=battles[0],
        file=ContentFile(PNG, name="table.png"),
        caption="The ford",
        uploaded_by=users["gm"],
    )
    invitation = invitation_create(
        campaign=campaign, role=Membership.Role.OBSERVER, created_by=users["gm"]
    )
    return World(
        campaign=campaign,
        state=request.param,
        users=users,
        invitation_token=invitation.token,
        invitation_pk=invitation.pk,
        photo_pk=photo.pk,
        notices=_notices(campaign, users),
        exports={who: export_made(campaign, users[who]).pk for who in MEMBERS},
    )


# --- what each reader must not see ----------------------------------------------------------


@dataclass(frozen=True)
class Known:
    """What the campaign holds, read from its rows: the current state, the states its stored
    resolutions started from, their ledgers, its battles."""

    state: CampaignState
    forces: dict[str, Force]  # every force of the current and the stored states
    side_of_force: dict[str, str]
    side_of_player: dict[str, str]
    member_force: dict[str, str]  # command, general, unit, character id → force
    ledgers: list[list[dict[str, Any]]]
    battles: dict[str, tuple[tuple[str, ...], tuple[int, int], set[str]]]  # sides, square, forces
    holding_sides: dict[str, set[str]]  # holding → the sides that ever owned it


def known_of(campaign) -> Known:
    state = state_current(campaign=campaign)
    resolutions = list(TurnResolution.objects.filter(turn__campaign=campaign))
    states = [state, *states_before(resolutions)]
    forces: dict[str, Force] = {}
    side_of_player: dict[str, str] = {}
    holding_sides: dict[str, set[str]] = {}
    for s in states:
        side_of_player |= {p.id: p.side for p in s.players}
        for f in s.forces:
            forces.setdefault(f.id, f)
        for h in s.holdings:
            holding_sides.setdefault(h.id, set()).add(side_of_player[h.owner])
    member_force = {}
    for f in forces.values():
        ids = [c.id for c in f.commands] + [i.id for i in f.individuals]
        ids += [c.general.id for c in f.commands if c.general is not None]
        ids += [u.id for u in f.units]
        member_force |= dict.fromkeys(ids, f.id)
    battles = {
        b.key: (
            tuple(s["side"] for s in b.pack["sides"]),
            (b.x, b.y),
            {bf["force_id"] for s in b.pack["sides"] for bf in s["forces"]},
        )
        for b in Battle.objects.filter(campaign=campaign)
    }
    return Known(
        state=state,
        forces=forces,
        side_of_force={k: side_of_player[f.owner] for k, f in forces.items()},
        side_of_player=side_of_player,
        member_force=member_force,
        ledgers=[r.ledger for r in resolutions],
        battles=battles,
        holding_sides=holding_sides,
    )


@dataclass(frozen=True)
class Forbidden:
    """What one reader must not see: `anywhere`, and the rosters of the enemy forces his side
    fought (`battle_rosters`), shown only in those battles (`battles`)."""

    anywhere: list[Secret]
    battle_rosters: list[Secret]
    battles: frozenset[str]
    battle_lines: tuple[str, ...] = ()  # how the report names a unit whose battle roll it tells
    battle_units: frozenset[str] = frozenset()  # the units of the enemy forces it fought


def _owner_side(known: Known, token: str) -> str | None:
    if token in known.side_of_force:
        return known.side_of_force[token]
    if token in known.member_force:
        return known.side_of_force[known.member_force[token]]
    return known.side_of_player.get(token)


def _ties_across_sides(known: Known, ledger: list[dict[str, Any]]) -> set[str]:
    """Forces whose initiative (R6.1.3) equalled that of a force of another side."""
    totals = {
        r["purpose"].removeprefix("movement:initiative-"): r["total"]
        for r in ledger
        if r["rule"] == "R6.1.3"
    }
    return {
        f
        for f, t in totals.items()
        for g, u in totals.items()
        if t == u and known.side_of_force[f] != known.side_of_force[g]
    }


def forbidden_rows(known: Known, side: str | None, seen: frozenset[str]) -> Secret:
    """Rolls a side must not read: any naming an enemy force, unit or player, or a battle it
    did not fight, unless it is a roll of a battle it fought; its own tie re-rolls against
    another side."""
    rows: set[tuple[str, str]] = set()
    for ledger in known.ledgers:
        tied = _ties_across_sides(known, ledger)
        for r in ledger:
            purpose, rule = r["purpose"], r["rule"]
            if any(re.search(rf"\b{b}\b", purpose) for b in seen):
                continue
            tokens = set(re.findall(r"[A-Za-z0-9_]+", purpose))
            owners = {o for t in tokens if (o := _owner_side(known, t)) is not None}
            unseen = any(re.search(rf"\b{b}\b", purpose) for b in known.battles)
            if unseen or owners - {side}:
                rows.add((purpose, ""))
            elif rule == "R6.1.5" and purpose.removeprefix("movement:initiative-") in tied:
                rows.add((purpose, rule))
    return Secret("ledger rows", rows=frozenset(rows))


def _count_secrets(known: Known, campaign, seen: frozenset[str]) -> list[Secret]:
    turn = turn_current(campaign=campaign)
    mine = Battle.objects.filter(turn=turn, key__in=seen)
    total, pending = mine.count(), mine.filter(status=Battle.Status.PENDING).count()
    return [
        count_secret(
            "battles waiting count", "{n} battle is waiting for its result", pending or None
        ),
        count_secret(
            "battles waiting count", "{n} battles are waiting for their results", pending or None
        ),
        count_secret("battles total count", "of {n} still without a result", total or None),
    ]


def forbidden_for(world: World, who: str) -> Forbidden:
    """What `who` must not read, computed from the stored states (see the module text)."""
    known = known_of(world.campaign)
    if who == "gm":
        return Forbidden([], [], frozenset(known.battles))
    side = SIDE_OF.get(who)
    seen = frozenset(k for k, (sides, _, _) in known.battles.items() if side in sides)
    enemies = {f for f, s in known.side_of_force.items() if s != side}
    fought = {f for k in seen for f in known.battles[k][2]} & enemies
    remembered = set(
        Sighting.objects.filter(campaign=world.campaign, side_key=side).values_list(
            "force_key", flat=True
        )
    )
    # the rule of sight itself (R6.6.1: zones of control, holdings' squares)
    visible = visible_force_keys(known.state, side) if side is not None else set()
    hidden = enemies - visible - remembered - fought
    forces = list(known.forces.values())
    anywhere = force_secrets(forces, hidden)
    anywhere += roster_secrets(forces, hidden, "hidden force's units")
    anywhere += roster_secrets(forces, enemies - hidden - fought, "roster of visible force")
    for h, owners in sorted(known.holding_sides.items()):
        feature = FEATURES.get(h)
        if feature and side not in owners:
            label = FEATURE_LABELS[feature]
            anywhere.append(Secret(f"feature of {h}", texts=(feature, label, label.lower())))
    for key, (_, (x, y), _) in sorted(known.battles.items()):
        if key not in seen:
            texts = (f"battle at ({x}, {y})", f"Battle at ({x}, {y})")
            anywhere.append(Secret(f"battle {key}", texts, re.compile(rf"\b{key}\b")))
    anywhere.append(forbidden_rows(known, side, seen))
    anywhere += _count_secrets(known, world.campaign, seen)
    return Forbidden(
        anywhere,
        roster_secrets(forces, fought, "roster of fought force"),
        frozenset(seen),
        _battle_lines(known, seen),
        frozenset(u.id for f in fought for u in known.forces[f].units),
    )


def _battle_lines(known: Known, seen: frozenset[str]) -> tuple[str, ...]:
    """The units of the rolls of the battles `seen` after the battle (wounded, deserters:
    "after:t1-b1:wounded-f4u1"), as the report's narrative names them ("Troop-Zzq-4a of
    Host-Zzq-4"): the rolls of a battle the side fought are its to read."""
    units = {u.id: (u, f) for f in known.forces.values() for u in f.units}
    out = set()
    for ledger in known.ledgers:
        for r in ledger:
            if any(re.search(rf"\b{b}\b", r["purpose"]) for b in seen):
                for token in re.findall(r"[A-Za-z0-9_]+", r["purpose"]):
                    if token in units:
                        unit, force = units[token]
                        out.add(f"{unit.type} of {force.name}")
    return tuple(sorted(out))


def leaks_in(reading: Reading, forbidden: Forbidden, *, battle_page: bool) -> dict[str, list]:
    """Label → what of it the response holds."""
    found = {s.label: seen for s in forbidden.anywhere if (seen := s.seen_in(reading))}
    if not battle_page:  # elsewhere, only the battles' own rolls, events and packs
        rest = without_battles(
            reading, set(forbidden.battles), forbidden.battle_lines, forbidden.battle_units
        )
        found |= {s.label: seen for s in forbidden.battle_rosters if (seen := s.seen_in(rest))}
    return found


# --- the URLs -------------------------------------------------------------------------------------


def _variants(name: str, params: tuple[str, ...]) -> tuple[str, ...]:
    ns = name.split(":")[0]
    own = set(params) - {"slug"}
    if ns == "battles":
        if "pk" in own:
            return ("battle photo",)
        return tuple(f"battle {k}" for k in BATTLES) if own else ("",)
    if own & {"force_key", "key"}:
        return tuple(f"{f} force" for f in FORCES)
    if "token" in own:
        return ("invitation", "unknown token")
    if ns == "notifications" and own:
        return tuple(f"{p} notice" for p in ("p1", "p2", "p3"))
    return ("",)


TARGETS = [Target(n, v, p) for n, p in url_names() for v in _variants(n, p)]


def _kwargs(world: World, target: Target, who: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    tail = target.variant.split(" ")[-1] if target.variant else ""  # "t1-b1", "photo", …
    for p in target.params:
        if p == "slug":
            out[p] = world.campaign.slug
        elif target.name.startswith("battles:"):
            out[p] = {"key": BATTLES[0] if tail == "photo" else tail, "pk": world.photo_pk}[p]
        elif p == "number":
            out[p] = 1
        elif p == "battle":  # an amendment's battle
            out[p] = BATTLES[0]
        elif p == "kind":  # a set-up roll
            out[p] = "climate"
        elif p in ("force_key", "key"):
            out[p] = target.variant.split(" ")[0]
        elif p == "item":  # a unit of the force
            out[p] = f"{target.variant.split(' ')[0]}u1"
        elif p == "token":
            out[p] = world.invitation_token if tail == "invitation" else "no-such-token"
        elif p == "pk" and target.name.startswith("notifications:"):
            out[p] = world.notices[target.variant.split(" ")[0]]
        elif p == "pk":  # the invitation
            out[p] = world.invitation_pk
        elif p == "job":  # the reader's own export (who is no member tries the GM's)
            out[p] = world.exports.get(who, world.exports["gm"])
        else:
            raise AssertionError(f"no concrete argument for {p!r} of {target.name}: add one")
    return out


# the other views of a page (as in the matrix), and the odds against each variant's force
EXTRA_GETS: dict[str, list[tuple[dict[str, str], dict[str, str]]]] = {
    "campaign:report": [({"phase": "movement"}, {**HTMX, "HX-Target": "ledger"})],
    "campaign:orders-force": [({"view": "summary"}, HTMX)],
    "campaign:orders-probability": [({"change_to": "probe"}, HTMX)],
    "campaign:orders-odds": [({"enemy": "nobody", "status": "defend"}, {})],
}
# POSTs that change nothing, whose answers show campaign data: an empty form shown again, the
# replay check, the result form's live check
READ_ONLY_POSTS = {
    "campaign:replay",
    "campaign:orders-force",
    "campaign:orders-path",
    "battles:result-preview",
}


def _requests(target: Target, who: str, shown: bool) -> list[tuple[str, dict, dict]]:
    """After the plain GET (`shown`: it answered 200), for a member: the htmx GET of a page he
    may open, the page's other views, and a read-only POST."""
    out: list[tuple[str, dict, dict]] = []
    if who in MEMBERS:
        if shown:
            out.append(("GET", {}, HTMX))
        out += [("GET", q, h) for q, h in EXTRA_GETS.get(target.name, [])]
        if target.name in READ_ONLY_POSTS:
            out.append(("POST", {}, {}))
    return out


def walk(world: World, who: str, check: Callable[[Target, str, Any], list[str]]) -> list[str]:
    """Every URL and variant as `who`; `check(target, where, response)` names what is wrong."""
    client = world.client(who)
    if who in MEMBERS:  # his export, of the campaign as it is now (an amendment may follow)
        world.exports[who] = export_made(world.campaign, world.users[who]).pk
    problems = []
    for target in TARGETS:
        url = reverse(target.name, kwargs=_kwargs(world, target, who))
        first = client.get(url)
        requests = [("GET", {}, {}, first)]
        for method, data, headers in _requests(target, who, first.status_code == 200):
            send = client.get if method == "GET" else client.post
            requests.append((method, data, headers, send(url, data, headers=headers)))
        for method, data, headers, response in requests:
            where = f"{who} {method} {url} {data or ''}{' (htmx)' if headers else ''}"
            if response.status_code >= 500:
                problems.append(f"{where}: {response.status_code}")
            elif not getattr(response, "streaming", False):
                problems += check(target, where, response)
    return problems


@pytest.mark.parametrize("who", [r for r in ROLES if r != "gm"])
def test_fog_of_war_hides_what_each_reader_may_not_see(three: World, who: str):
    """Every URL (plain, htmx, the page's other views, the read-only POSTs) and the export
    (JSON), as `who`: nothing of what he must not read (see the module text). (The GM reads
    everything: his pages are where the detectors are shown to find what they look for.)"""
    forbidden = forbidden_for(three, who)

    def check(target: Target, where: str, response) -> list[str]:
        reading = reading_of(response.content.decode(), response.get("Content-Type", ""))
        battle_page = target.name.startswith("battles:")
        found = leaks_in(reading, forbidden, battle_page=battle_page)
        return [f"{where}: LEAKS {label}: {seen}" for label, seen in found.items()]

    problems = walk(three, who, check)
    assert not problems, "\n".join(problems)


def _get(world: World, who: str, name: str, *args: Any) -> Reading:
    response = world.client(who).get(reverse(name, args=[world.campaign.slug, *args]))
    assert response.status_code == 200, (who, name, response.status_code)
    return reading_of(response.content.decode(), response.get("Content-Type", ""))


def test_the_detectors_find_what_they_look_for(three: World):
    """The other half: what each reader must not see is there for those who may see it (the
    GM, the own side, a battle's sides on its pages), so that "no leak" proves something."""
    p3 = forbidden_for(three, "p3")
    gm_export = _get(three, "gm", "campaign:export-download", three.exports["gm"])
    gm_report = _get(three, "gm", "campaign:report", 1)
    p3_labels = {s.label for s in p3.anywhere}
    assert {"hidden force f4", "hidden force f8", "roster of visible force f2"} <= p3_labels
    assert {"battle t1-b1", "battle t1-b2", "feature of h1-1", "feature of h2-1"} <= p3_labels
    assert "feature of h3-1" not in p3_labels
    found = set(leaks_in(gm_export, p3, battle_page=False))
    assert {"hidden force f4", "roster of visible force f2", "battle t1-b1"} <= found
    assert {"feature of h1-1", "ledger rows"} <= found
    assert "ledger rows" in leaks_in(gm_report, p3, battle_page=False)
    # p3's own tie re-roll (Host-Zzq-3 tied at 9 with Host-Zzq-4 and Host-Zzq-8) is one of them
    assert ("movement:initiative-f3", "R6.1.5") in next(
        s for s in p3.anywhere if s.label == "ledger rows"
    ).rows
    assert ("movement:initiative-f3", "R6.1.5") in gm_report.rows
    # a side reads its own forces fully, and its own holdings' features
    own = roster_secrets(three_side_state().forces, {"f3", "f6"}, "own")
    p3_export = _get(three, "p3", "campaign:export-download", three.exports["p3"])
    assert {s.label for s in own if s.found_in(p3_export)} == {"own f3", "own f6"}
    assert "burial-mound" in p3_export.body
    # the battle's sides read both armies on its pages (the exemption is exercised)
    p1 = forbidden_for(three, "p1")
    pack = _get(three, "p1", "battles:pack", "t1-b1")
    assert {"roster of fought force f8"} <= {s.label for s in p1.battle_rosters if s.found_in(pack)}
    if three.state == "battles":  # the counts are there for the GM and for a battle's sides
        detail = _get(three, "gm", "campaign:detail").body
        assert "2 battles are waiting for their results." in detail
        p1_detail = _get(three, "p1", "campaign:detail").body
        assert "2 battles are waiting for their results." in p1_detail
        count = next(s for s in p3.anywhere if s.label == "battles total count")
        assert count.found_in(Reading(detail))
        # the third side reads that battles elsewhere are waiting, with no count
        third = _get(three, "p3", "campaign:detail").body
        assert "Battles elsewhere are waiting for their results" in third
