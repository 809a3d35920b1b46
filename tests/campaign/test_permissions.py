"""The permission matrix: every URL of the `campaign`, `notifications` and `battles` namespaces
(enumerated from the URL resolver, so a new URL is covered as soon as it is registered) × the
cast (tests/conftest.py) × GET and POST, in four states of the demo campaign (turn 1 open, the
same without fog of war, waiting for a battle result, resolved), against an explicit
expectation table.

A URL without a row in `EXPECT` fails the matrix: a new page cannot slip in unchecked.

Besides the status codes every response body is searched for what its reader must not see:
the other side's orders (distinctive orders are saved for each side first: a path and a retreat
preference no page writes otherwise) and, with fog of war on, the enemy forces his side cannot
see (`campaign.fog.visible_force_keys`, less the ghosts it remembers): their keys,
names, generals and characters, in pages, htmx fragments, JSON and downloads alike.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.test import Client
from django.urls import reverse

from battles.models import Battle, BattlePhoto
from campaign.adapters import state_current
from campaign.models import Force, Membership, Orders, Turn
from campaign.orders.services import orders_submit
from campaign.selectors import turn_current
from campaign.setup.invitations import invitation_create
from campaign.turns.services import turn_close, turn_resolve, turn_resolve_after_battles
from notifications.models import Kind, Notification
from tests.campaign.exchange.exports import download_url, export_made
from tests.campaign.leaks import (
    HTMX,
    Secret,
    Target,
    force_secrets,
    hidden_from,
    leaks,
    url_names,
)
from tests.campaign.orders.test_orders_page import _stamp
from tests.conftest import CAST

pytestmark = pytest.mark.django_db

# turn 1 open; the same without fog of war; waiting for a battle's result; resolved
STATES = ("open", "nofog", "battles", "resolved")
OPEN_STATES = ("open", "nofog")

# --- the expectation table -------------------------------------------------------------------

LOGIN = "login"  # a redirect to the login page with ?next=


def row(
    gm: int,
    side_a: int,
    side_b: int,
    observer: int,
    outsider: int = 404,
    anonymous=LOGIN,
    staff: int | None = None,
) -> dict[str, Any]:
    """What each of the cast gets. A campaign page hides the campaign from outsiders (404)
    and sends anonymous visitors to the login page, so those two rarely change. Staff (a
    superuser who is a member of nothing) get what an outsider gets unless told otherwise:
    GM powers come from membership only (issue 12, 8)."""
    return {
        "gm": gm,
        "side_a": side_a,
        "side_b": side_b,
        "observer": observer,
        "outsider": outsider,
        "staff": outsider if staff is None else staff,
        "anonymous": anonymous,
    }


def everyone(status) -> dict[str, Any]:
    return dict.fromkeys(CAST, status)


@dataclass(frozen=True)
class ByState:
    """An expectation that depends on the state of the campaign."""

    rows: dict[str, dict[str, Any]]


def by_state(**rows: dict[str, Any]) -> ByState:
    assert set(rows) == set(STATES), rows
    return ByState(rows)  # None: the state has no battle, the URL is not asked


MEMBERS = row(200, 200, 200, 200)
GM_ONLY = row(200, 403, 403, 403)
NOBODY = row(403, 403, 403, 403)  # set-up pages once the campaign has started
GET_ONLY = everyone(405)  # require_GET / require_POST answer before anything else
LOGGED_IN = row(200, 200, 200, 200, outsider=200)  # pages of one's own account, not a campaign
# a player's own force (own) and the other side's (other); the GM and observers give no orders
OWN_FORCE_A = row(403, 200, 404, 403)
OWN_FORCE_B = row(403, 404, 200, 403)

# Keys: "namespace:name", or "namespace:name[variant]" for URLs taking a force, an invitation
# or a battle (see `_variants`). POST bodies are empty: they test who may post, never change
# anything (the matrix checks that every Orders row is the same afterwards).
EXPECT: dict[str, dict[str, Any]] = {
    # the front page is public; a plain view without a method restriction (a POST renders it)
    "campaign:home": {"GET": everyone(200), "POST": everyone(200)},
    "campaign:detail": {"GET": MEMBERS, "POST": GET_ONLY},
    # the GM's turn controls, one URL each: an empty form names no turn, so the GM's is refused
    # (400) in every state, and nothing is done (campaign.selectors.turn_expected)
    "campaign:turn-deadline": {"GET": GET_ONLY, "POST": row(400, 403, 403, 403)},
    "campaign:turn-battles-deadline": {"GET": GET_ONLY, "POST": row(400, 403, 403, 403)},
    "campaign:turn-extend": {"GET": GET_ONLY, "POST": row(400, 403, 403, 403)},
    "campaign:turn-pause": {"GET": GET_ONLY, "POST": row(400, 403, 403, 403)},
    "campaign:turn-resume": {"GET": GET_ONLY, "POST": row(400, 403, 403, 403)},
    "campaign:turn-remind": {"GET": GET_ONLY, "POST": row(400, 403, 403, 403)},
    "campaign:turn-close": {"GET": GET_ONLY, "POST": row(400, 403, 403, 403)},
    "campaign:turn-advance": {"GET": GET_ONLY, "POST": row(400, 403, 403, 403)},
    "campaign:turn-retry": {"GET": GET_ONLY, "POST": row(400, 403, 403, 403)},
    "campaign:turn-auto-close": {"GET": GET_ONLY, "POST": row(400, 403, 403, 403)},
    "campaign:turn-status": {"GET": MEMBERS, "POST": GET_ONLY},
    # the end page exists once the campaign has ended; before that it says so (404)
    "campaign:end": {"GET": row(404, 404, 404, 404), "POST": GET_ONLY},
    "campaign:map": {"GET": MEMBERS, "POST": GET_ONLY},
    "campaign:map-json": {"GET": MEMBERS, "POST": GET_ONLY},
    "campaign:report": {"GET": MEMBERS, "POST": GET_ONLY},
    # the navigation's "Turn report": a redirect to the last resolved turn's report
    "campaign:report-latest": {"GET": row(302, 302, 302, 302), "POST": GET_ONLY},
    # any member may check the replay of a resolved turn; before that it is refused (409)
    "campaign:replay": {
        "GET": GET_ONLY,
        "POST": by_state(
            open=row(409, 409, 409, 409),
            nofog=row(409, 409, 409, 409),
            battles=row(409, 409, 409, 409),
            resolved=MEMBERS,
        ),
    },
    "campaign:inbox": {"GET": GM_ONLY, "POST": GET_ONLY},
    # the export page; a POST asks for the member's export (302: back to the page)
    "campaign:export": {"GET": MEMBERS, "POST": row(302, 302, 302, 302)},
    # an export, its progress line and its download: its own member's only, anyone else's
    # is not found (side_a's and side_b's, written)
    "campaign:export-job[side_a export]": {"GET": row(404, 200, 404, 404), "POST": GET_ONLY},
    "campaign:export-job[side_b export]": {"GET": row(404, 404, 200, 404), "POST": GET_ONLY},
    "campaign:export-download[side_a export]": {
        "GET": row(404, 200, 404, 404),
        "POST": GET_ONLY,
    },
    "campaign:export-download[side_b export]": {
        "GET": row(404, 404, 200, 404),
        "POST": GET_ONLY,
    },
    # the whole campaign with its photo files: the GM's only
    "campaign:export-archive": {"GET": GM_ONLY, "POST": GET_ONLY},
    # the GM sees who has saved or confirmed; an observer is told only players give orders
    "campaign:orders": {"GET": MEMBERS, "POST": GET_ONLY},
    # a player without an `action` gets 400 "Unknown action."
    "campaign:orders-confirm": {"GET": GET_ONLY, "POST": row(403, 400, 400, 403)},
    # A player's forms of the orders pages name the turn they were drawn for: an empty POST
    # names none, and is refused before anything is done (409, "Nothing acts on a stale
    # page"); the other side's force does not exist for a player (404).
    # a player's army-wide choices (R6.1.2), random-event choices and regrouping (R8.3.2)
    "campaign:orders-army": {"GET": GET_ONLY, "POST": row(403, 409, 409, 403)},
    "campaign:orders-events": {"GET": GET_ONLY, "POST": row(403, 409, 409, 403)},
    "campaign:orders-regroup": {"GET": GET_ONLY, "POST": row(403, 409, 409, 403)},
    # a player's reinforcement requests (§9.3): adding, removing, moving one
    "campaign:reinforcements": {"GET": row(403, 200, 200, 403), "POST": row(403, 409, 409, 403)},
    "campaign:reinforcements-remove": {"GET": GET_ONLY, "POST": row(403, 409, 409, 403)},
    "campaign:reinforcements-move": {"GET": GET_ONLY, "POST": row(403, 409, 409, 403)},
    "campaign:orders-force[side_a force]": {"GET": OWN_FORCE_A, "POST": row(403, 409, 404, 403)},
    "campaign:orders-force[side_b force]": {"GET": OWN_FORCE_B, "POST": row(403, 404, 409, 403)},
    "campaign:orders-path[side_a force]": {"GET": GET_ONLY, "POST": row(403, 409, 404, 403)},
    "campaign:orders-path[side_b force]": {"GET": GET_ONLY, "POST": row(403, 404, 409, 403)},
    # the odds against an enemy force: without a visible enemy named, the owner is told to
    # choose one (400; htmx gets the refusal in its panel, 200, see HTMX_GET)
    "campaign:orders-odds[side_a force]": {"GET": row(403, 400, 404, 403), "POST": GET_ONLY},
    "campaign:orders-odds[side_b force]": {"GET": row(403, 404, 400, 403), "POST": GET_ONLY},
    "campaign:orders-probability[side_a force]": {"GET": OWN_FORCE_A, "POST": GET_ONLY},
    "campaign:orders-probability[side_b force]": {"GET": OWN_FORCE_B, "POST": GET_ONLY},
    # anyone logged in may create a campaign; an empty form is refused (400)
    "campaign:new": {
        "GET": LOGGED_IN,
        "POST": row(400, 400, 400, 400, outsider=400),
    },
    # an invitation is for people outside the campaign: members are told they are members
    # already (and refused, 400), the outsider joins (302 to the overview), an anonymous
    # visitor sees the offer with a sign-up form (an empty one is refused, 400)
    "campaign:join[invitation]": {
        "GET": everyone(200),
        # (staff come after the outsider, who took the invitation's one seat: 400)
        "POST": row(400, 400, 400, 400, outsider=302, anonymous=400, staff=400),
    },
    "campaign:join[unknown token]": {"GET": everyone(404), "POST": everyone(404)},
    # set-up pages: the GM's, and closed once the campaign has started
    "campaign:setup-map": {"GET": NOBODY, "POST": NOBODY},
    "campaign:setup-square": {"GET": GET_ONLY, "POST": NOBODY},
    "campaign:setup-import": {"GET": NOBODY, "POST": NOBODY},
    "campaign:setup-territory": {"GET": NOBODY, "POST": NOBODY},
    "campaign:setup-holdings": {"GET": NOBODY, "POST": NOBODY},
    "campaign:setup-holding-remove[side_a force]": {"GET": GET_ONLY, "POST": NOBODY},
    "campaign:setup-holding-remove[side_b force]": {"GET": GET_ONLY, "POST": NOBODY},
    "campaign:setup-players": {"GET": NOBODY, "POST": GET_ONLY},
    "campaign:setup-side-add": {"GET": GET_ONLY, "POST": NOBODY},
    "campaign:setup-side-delete[side_a force]": {"GET": GET_ONLY, "POST": NOBODY},
    "campaign:setup-side-delete[side_b force]": {"GET": GET_ONLY, "POST": NOBODY},
    "campaign:setup-player-add": {"GET": GET_ONLY, "POST": NOBODY},
    "campaign:setup-player-save[side_a force]": {"GET": GET_ONLY, "POST": NOBODY},
    "campaign:setup-player-save[side_b force]": {"GET": GET_ONLY, "POST": NOBODY},
    "campaign:setup-player-delete[side_a force]": {"GET": GET_ONLY, "POST": NOBODY},
    "campaign:setup-player-delete[side_b force]": {"GET": GET_ONLY, "POST": NOBODY},
    "campaign:start": {"GET": NOBODY, "POST": NOBODY},
    # every member reads the options; only the GM changes them, during set-up
    "campaign:setup-options": {"GET": MEMBERS, "POST": NOBODY},
    "campaign:setup-roll": {"GET": GET_ONLY, "POST": NOBODY},
    # invitations stay the GM's after the start; an empty form is refused (400); withdrawing
    # one takes no form (302)
    "campaign:invite": {"GET": GM_ONLY, "POST": row(400, 403, 403, 403)},
    "campaign:invitation-revoke": {"GET": GET_ONLY, "POST": row(302, 403, 403, 403)},
    # rosters: the GM's and each player's own; written only during set-up
    "campaign:roster": {"GET": row(200, 200, 200, 403), "POST": NOBODY},
    # a player marks his own roster ready; after the start he is told it is too late (302)
    "campaign:roster-ready": {"GET": GET_ONLY, "POST": row(403, 302, 302, 403)},
    # another player's force is hidden like on the orders page (404), not refused (403): a 403
    # would confirm that a force with that key exists, which fog of war hides
    "campaign:roster-force[side_a force]": {"GET": row(200, 200, 404, 403), "POST": GET_ONLY},
    "campaign:roster-force[side_b force]": {"GET": row(200, 404, 200, 403), "POST": GET_ONLY},
    # the force page's actions, one URL each: closed once the campaign has started
    **{
        f"campaign:roster-{action}[{variant}]": {"GET": GET_ONLY, "POST": post}
        for action in (
            "force-save",
            "force-delete",
            "command-add",
            "unit-add",
            "character-add",
            "item-save",
            "item-delete",
        )
        for variant, post in (
            ("side_a force", row(403, 403, 404, 403)),
            ("side_b force", row(403, 404, 403, 403)),
        )
    },
    # one's own notifications; an empty POST names no kind of notification (400)
    "notifications:log": {"GET": LOGGED_IN, "POST": row(400, 400, 400, 400, outsider=400)},
    # opening a notice goes to its page; anyone else's notice does not exist (404)
    "notifications:open[side_a notice]": {
        "GET": row(404, 302, 404, 404, outsider=404),
        "POST": GET_ONLY,
    },
    "notifications:read-all": {"GET": GET_ONLY, "POST": row(302, 302, 302, 302, outsider=302)},
    # battles: the history lists what each member may see (under fog a player his side's
    # battles, an observer following no side none); battle t1-b1 (the Red Riders against the
    # Southern March) is shown to the GM and both sides' players, to nobody else under fog
    "battles:history": {"GET": MEMBERS, "POST": GET_ONLY},
    "battles:pack-print": {"GET": MEMBERS, "POST": GET_ONLY},
    "battles:detail[battle]": {"GET": row(200, 200, 200, 404), "POST": GET_ONLY},
    "battles:pack[battle]": {"GET": row(200, 200, 200, 404), "POST": GET_ONLY},
    # the tactical engine's odds of the battle: whoever sees the battle (the pack's rule)
    "battles:odds[battle]": {"GET": row(200, 200, 200, 404), "POST": GET_ONLY},
    # the unit-orders calculators (§10) read nothing the pack does not show: the pack's rule
    "battles:unit-orders[battle]": {"GET": row(200, 200, 200, 404), "POST": GET_ONLY},
    # the result page and its actions, one URL each: the battle's players enter and confirm,
    # the GM settles. Empty POSTs: the live check shows the empty form (200) while the battle
    # waits; a form that changes the result but names no version of it is refused (409,
    # battles.stale: entering, overriding, the resolver, auto-resolve); a photo without a file
    # is refused (400); there is nothing to confirm or dispute yet (403). Once the turn has
    # gone on, what changes the result is refused (403).
    "battles:result[battle]": {"GET": row(200, 200, 200, 404), "POST": GET_ONLY},
    # (the GM's live check goes on once the turn is resolved: he may amend the result)
    "battles:result-preview[battle]": {
        "GET": GET_ONLY,
        "POST": by_state(
            open=None, nofog=None, battles=row(200, 200, 200, 404), resolved=row(200, 403, 403, 404)
        ),
    },
    "battles:result-enter[battle]": {
        "GET": GET_ONLY,
        "POST": by_state(
            open=None, nofog=None, battles=row(409, 409, 409, 404), resolved=row(403, 403, 403, 404)
        ),
    },
    "battles:result-override[battle]": {
        "GET": GET_ONLY,
        "POST": by_state(
            open=None, nofog=None, battles=row(409, 403, 403, 404), resolved=row(403, 403, 403, 404)
        ),
    },
    "battles:result-confirm[battle]": {"GET": GET_ONLY, "POST": row(403, 403, 403, 404)},
    "battles:result-dispute[battle]": {"GET": GET_ONLY, "POST": row(403, 403, 403, 404)},
    "battles:result-resolver[battle]": {"GET": GET_ONLY, "POST": row(409, 403, 403, 404)},
    "battles:result-auto[battle]": {
        "GET": GET_ONLY,
        "POST": by_state(
            open=None, nofog=None, battles=row(409, 403, 403, 404), resolved=row(403, 403, 403, 404)
        ),
    },
    "battles:result-photo-add[battle]": {"GET": GET_ONLY, "POST": row(400, 400, 400, 404)},
    # amendments and the audit log: the GM's alone. Amending a result with an empty form is
    # refused for want of a reason (400) once the battle exists; amending turn 1 needs it
    # resolved (404 before); no amendment 1 exists in any state (404)
    "campaign:amend-result": {
        "GET": GET_ONLY,
        "POST": by_state(
            open=row(404, 403, 403, 403),
            nofog=row(404, 403, 403, 403),
            battles=row(400, 403, 403, 403),
            resolved=row(400, 403, 403, 403),
        ),
    },
    "campaign:amend-turn": {
        "GET": by_state(
            open=row(404, 403, 403, 403),
            nofog=row(404, 403, 403, 403),
            battles=row(404, 403, 403, 403),
            resolved=GM_ONLY,
        ),
        "POST": by_state(
            open=row(404, 403, 403, 403),
            nofog=row(404, 403, 403, 403),
            battles=row(404, 403, 403, 403),
            resolved=row(400, 403, 403, 403),
        ),
    },
    "campaign:amendment": {"GET": row(404, 403, 403, 403), "POST": GET_ONLY},
    "campaign:amendment-commit": {"GET": GET_ONLY, "POST": row(404, 403, 403, 403)},
    "campaign:amendment-discard": {"GET": GET_ONLY, "POST": row(404, 403, 403, 403)},
    "campaign:amendment-line": {"GET": row(404, 403, 403, 403), "POST": GET_ONLY},
    "campaign:audit": {"GET": GM_ONLY, "POST": GET_ONLY},
    # a photo, behind the same check as the battle
    "battles:result-photo[battle photo]": {"GET": row(200, 200, 200, 404), "POST": GET_ONLY},
}

# htmx GETs expect what the plain GET gets, except: a live panel answers 286 ("stop polling")
# once what it follows has settled, as it has in every state the matrix uses; a panel that
# shows its refusal inside itself answers 200. Keyed by URL name, or name[variant].
HTMX_GET = {
    "campaign:turn-status": row(286, 286, 286, 286),
    "battles:detail": row(286, 286, 286, 404),  # its after-battle panel polls the same way
    # an export's progress line stops polling once the export is written
    "campaign:export-job[side_a export]": row(404, 286, 404, 404),
    "campaign:export-job[side_b export]": row(404, 404, 286, 404),
    "campaign:orders-odds[side_a force]": OWN_FORCE_A,
    "campaign:orders-odds[side_b force]": OWN_FORCE_B,
}

# more GETs of the same URL (query string, extra htmx headers), with the same expectations:
# the other views of one page, which must not leak either
EXTRA_GETS: dict[str, list[tuple[dict[str, str], dict[str, str]]]] = {
    "campaign:report": [({"phase": "movement"}, {**HTMX, "HX-Target": "ledger"})],
    "campaign:orders-force": [({"view": "summary"}, HTMX)],
    "campaign:orders-probability": [({"change_to": "probe"}, HTMX)],
    "campaign:orders-odds": [({"enemy": "nobody", "status": "defend"}, {})],
}

# --- the URLs ----------------------------------------------------------------------------------


FORCE_PARAMS = {"force_key", "key"}  # in the campaign namespace: a force key
TOKEN_PARAMS = {"token"}
# in the battles namespace `key` is the battle's key; other objects are named per URL
BATTLE_OBJECTS = {"battles:result-photo": {"pk": "battle photo"}}


def _variants(name: str, params: tuple[str, ...]) -> tuple[str, ...]:
    ns = name.split(":")[0]
    own = set(params) - {"slug"}
    if ns == "battles":
        objects = BATTLE_OBJECTS.get(name, {})
        if own - {"key"} - set(objects):
            return ("unknown parameters",)
        if objects:
            return tuple(objects.values())
        return ("battle",) if own else ("",)
    if own & FORCE_PARAMS:
        return ("side_a force", "side_b force")
    if own & TOKEN_PARAMS:
        return ("invitation", "unknown token")
    if "job" in own:
        return ("side_a export", "side_b export")
    if ns == "notifications" and own:
        return ("side_a notice",)
    return ("",)


def targets() -> list[Target]:
    """Every URL of the namespaces, as registered when the tests run."""
    found = url_names()
    return [
        Target(name, variant, params)
        for name, params in found
        for variant in _variants(name, params)
    ]


TARGETS = targets()


def test_every_url_has_an_expectation_row():
    """A URL without a row fails here (and in the matrix); a row without a URL is stale."""
    keys = {t.key for t in TARGETS}
    missing = sorted(keys - set(EXPECT))
    assert not missing, f"no expectation row for {missing}: add them to EXPECT"
    stale = sorted(set(EXPECT) - keys)
    assert not stale, f"rows for URLs that no longer exist: {stale}"
    for t in TARGETS:
        for method in ("GET", "POST"):
            assert method in EXPECT[t.key], (t.key, method)
    assert {t.name.split(":")[0] for t in TARGETS} >= {"campaign", "notifications"}
    assert not [t for t in TARGETS if t.variant == "unknown parameters"], "give them values"


# --- the world -----------------------------------------------------------------------------------

# distinctive orders, written nowhere else: a path and a retreat preference per side
RAIDER_PATH = ((3, 4), (4, 4), (4, 3))  # Hakon's Warband (r2)
RAIDER_RETREAT = ((1, 3), (1, 4))
DEFENDER_PATH = ((12, 1), (13, 1), (14, 1))  # The Northern March (d2), asking for Probe
DEFENDER_RETREAT = ((10, 1), (10, 0))


@dataclass
class World:
    cast: Any
    state: str
    invitation_token: str
    invitation_pk: int
    battle: Battle | None
    photo: BattlePhoto | None = None
    notice_pk: int = 0  # side_a's notice
    exports: dict[str, int] = field(default_factory=dict)  # side_a, side_b → his export

    @property
    def campaign(self):
        return self.cast.campaign


def _save_distinctive_orders(campaign) -> None:
    turn = turn_current(campaign=campaign)
    raiders = Orders.objects.get(turn=turn, player__key="raiders").data
    raiders = {k: v for k, v in raiders.items() if k != "player_id"}
    raiders["forces"]["r2"] = {
        "force_id": "r2",
        "path": [list(sq) for sq in RAIDER_PATH],
        "retreat_squares": [list(sq) for sq in RAIDER_RETREAT],
    }
    defenders = {
        "forces": {
            "d2": {
                "force_id": "d2",
                "change_to": "probe",
                "path": [list(sq) for sq in DEFENDER_PATH],
                "retreat_squares": [list(sq) for sq in DEFENDER_RETREAT],
            }
        }
    }
    for key, data in (("raiders", raiders), ("defenders", defenders)):
        player = campaign.players.get(key=key)
        orders_submit(player=player, turn=turn, data=data)


def _battle_photo(battle: Battle, user) -> BattlePhoto:
    return BattlePhoto.objects.create(
        battle=battle, file=ContentFile(PNG, name="table.png"), caption="The ford", uploaded_by=user
    )


# a 1×1 PNG
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)


@pytest.fixture(params=STATES)
def world(request, cast, record_results, settings, tmp_path) -> World:
    """The demo with distinctive orders for both sides; the Southern March waits at (4, 8) on
    the Red Riders' path, so that turn 1 has a battle (t1-b1, with a photo). `open`: turn 1
    open; `nofog`: the same with fog of war off (every force is public, orders still are
    not); `battles`: turn 1 waits for that battle's result; `resolved`: turn 1 resolved, turn
    2 open."""
    settings.MEDIA_ROOT = tmp_path
    campaign = cast.campaign
    Force.objects.filter(campaign=campaign, key="d3").update(x=4, y=8)
    _save_distinctive_orders(campaign)
    if request.param == "nofog":
        campaign.fog_of_war = False
        campaign.save(update_fields=["fog_of_war"])
    if request.param not in OPEN_STATES:
        turn = turn_close(turn=turn_current(campaign=campaign), seed=7)
        turn_resolve(turn_id=turn.pk)
        assert Turn.objects.get(pk=turn.pk).status == Turn.Status.BATTLES
        if request.param == "resolved":
            record_results(Turn.objects.get(pk=turn.pk))
            turn_resolve_after_battles(turn_id=turn.pk)
            assert Turn.objects.get(pk=turn.pk).status == Turn.Status.RESOLVED
    campaign.refresh_from_db()
    invitation = invitation_create(
        campaign=campaign, role=Membership.Role.OBSERVER, created_by=cast.users["gm"]
    )
    battle = Battle.objects.filter(campaign=campaign).order_by("pk").first()
    notice = Notification.objects.create(
        user=cast.users["side_a"],
        campaign=campaign,
        turn=turn_current(campaign=campaign),
        kind=Kind.REMINDER,
        subject="Your orders, please",
        body="Your orders, please.",
        url=f"http://testserver{reverse('campaign:orders', args=[campaign.slug])}",
    )
    return World(
        cast=cast,
        state=request.param,
        invitation_token=invitation.token,
        invitation_pk=invitation.pk,
        battle=battle,
        notice_pk=notice.pk,
        photo=_battle_photo(battle, cast.users["gm"]) if battle is not None else None,
        exports={who: export_made(campaign, cast.users[who]).pk for who in ("side_a", "side_b")},
    )


def _kwargs(world: World, target: Target) -> dict[str, Any]:
    """Concrete arguments: the demo's slug, turn 1, Hakon's Warband or the Northern March,
    the invitation (or a token nobody was given), the battle."""
    out: dict[str, Any] = {}
    for p in target.params:
        if p == "slug":
            out[p] = world.campaign.slug
        elif target.name.startswith("battles:"):
            assert world.battle is not None
            if p == "key":
                out[p] = world.battle.key
            elif BATTLE_OBJECTS.get(target.name, {}).get(p) == "battle photo":
                assert world.photo is not None
                out[p] = world.photo.pk
            else:
                raise AssertionError(f"no concrete argument for {p!r} of {target.name}: add one")
        elif p == "number":
            out[p] = 1
        elif p == "battle":  # an amendment's battle: t1-b1, fought in `battles` and `resolved`
            out[p] = world.battle.key if world.battle is not None else "t1-b1"
        elif p == "kind":  # a set-up roll
            out[p] = "climate"
        elif p in FORCE_PARAMS:
            out[p] = "r2" if target.variant == "side_a force" else "d2"
        elif p in TOKEN_PARAMS:
            out[p] = world.invitation_token if target.variant == "invitation" else "no-such-token"
        elif p == "item":  # a unit of the force
            out[p] = "r2u1" if target.variant == "side_a force" else "d2u1"
        elif p == "pk" and target.name.startswith("notifications:"):  # side_a's notice
            out[p] = world.notice_pk
        elif p == "pk":  # the invitation
            out[p] = world.invitation_pk
        elif p == "job":  # (a world made without exports: one that does not exist)
            out[p] = world.exports.get(target.variant.split(" ")[0], 0)
        else:
            raise AssertionError(f"no concrete argument for {p!r} of {target.name}: add one")
    return out


# --- what each of the cast must not read ---------------------------------------------------------


def _path_secret(label: str, path: tuple[tuple[int, int], ...]) -> Secret:
    return Secret(
        label,
        texts=(
            "; ".join(f"{x},{y}" for x, y in path),  # the form's hidden input
            " → ".join(f"({x}, {y})" for x, y in path),  # the saved orders' summary
            json.dumps([list(sq) for sq in path]),
            json.dumps([list(sq) for sq in path], separators=(",", ":")),
        ),
        squares=path,
    )


def _retreat_secret(label: str, squares: tuple[tuple[int, int], ...]) -> Secret:
    return Secret(
        label,
        texts=(
            "; ".join(f"{x},{y}" for x, y in squares),
            ", ".join(f"({x}, {y})" for x, y in squares),
            json.dumps([list(sq) for sq in squares]),
            json.dumps([list(sq) for sq in squares], separators=(",", ":")),
        ),
        squares=squares,
    )


def secrets_for(world: World) -> dict[str, list[Secret]]:
    """Role → what it must not read. The other side's orders: always their retreat
    preference; their path while the turn is open, afterwards unless the force is visible
    (its move may then be shown, as far as it was watched)."""
    state = state_current(campaign=world.campaign)
    open_turn = world.state in OPEN_STATES
    if world.campaign.fog_of_war:
        hidden = {
            "side_a": hidden_from(world.campaign, state, "raiders"),
            "side_b": hidden_from(world.campaign, state, "defenders"),
            "observer": hidden_from(world.campaign, state, None),
        }
    else:  # every member sees every force
        hidden = {"side_a": set(), "side_b": set(), "observer": set()}
    orders = {
        "side_a": ("r2", RAIDER_PATH, RAIDER_RETREAT),
        "side_b": ("d2", DEFENDER_PATH, DEFENDER_RETREAT),
    }
    out: dict[str, list[Secret]] = {}
    for who in ("side_a", "side_b", "observer", "outsider", "anonymous"):
        secrets: list[Secret] = []
        for owner, (force, path, retreat) in orders.items():
            if owner == who:
                continue
            secrets.append(_retreat_secret(f"{owner}'s retreat orders", retreat))
            if open_turn or force in hidden.get(who, {force}):
                secrets.append(_path_secret(f"{owner}'s path orders", path))
        keys = hidden.get(who, {f.id for f in state.forces})
        secrets += force_secrets(state.forces, keys)
        out[who] = secrets
    return out


# --- the matrix ----------------------------------------------------------------------------------


def _expected(target: Target, method: str, state: str, *, htmx: bool = False) -> dict:
    spec = EXPECT[target.key][method]
    override = HTMX_GET.get(target.key, HTMX_GET.get(target.name)) if htmx else None
    if override:
        spec = {**spec, **override}
    return spec.rows[state] if isinstance(spec, ByState) else spec


def _check(response, expected) -> str | None:
    if expected == LOGIN:
        location = response.get("Location", "")
        if response.status_code == 302 and location.startswith(reverse("login")):
            return None
        return f"{response.status_code} {location!r}, not the login redirect"
    if response.status_code != expected:
        return f"{response.status_code}, expected {expected}"
    return None


def _requests(target: Target, url: str) -> list[tuple[str, str, dict, dict, bool]]:
    """(method, url, data, headers, htmx) for one URL: the plain GET, the htmx GET, the extra
    views of the page, and an empty POST."""
    out = [("GET", url, {}, {}, False), ("GET", url, {}, HTMX, True)]
    for query, headers in EXTRA_GETS.get(target.name, []):
        out.append(("GET", url, query, headers, "HX-Request" in headers))
    out.append(("POST", url, {}, {}, False))
    return out


def _orders_snapshot() -> dict[int, tuple[str, Any]]:
    return {o.pk: (o.status, o.data) for o in Orders.objects.all()}


# Known problems, reported and not fixed yet. The table above says what is right; a case listed
# here is expected to fail in exactly this way, for exactly these roles (an xfail that names
# the problem), and fails loudly once the view is fixed, so that the entry is removed.
KNOWN_ISSUES: dict[str, tuple[str, set[str]]] = {}


@dataclass(frozen=True)
class Problem:
    who: str
    text: str
    leak: bool = False


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.key)
def test_matrix(world: World, target: Target):
    """Every member of the cast, GET (plain, htmx, the page's other views) and an empty POST:
    the status the table expects, and nothing in the body its reader must not see."""
    if target.key not in EXPECT:
        pytest.fail(f"no expectation row for {target.key}: add it to EXPECT")
    if target.needs_battle and world.battle is None:
        pytest.skip("no battle in this state")
    url = reverse(target.name, kwargs=_kwargs(world, target))
    secrets = secrets_for(world)
    before = _orders_snapshot()
    problems: list[Problem] = []
    for who in CAST:
        client = world.cast.client(who)
        for method, path, data, headers, htmx in _requests(target, url):
            send = client.get if method == "GET" else client.post
            response = send(path, data, headers=headers)
            expected = _expected(target, method, world.state, htmx=htmx)[who]
            where = f"{who} {method} {path} {data or ''}{' (htmx)' if htmx else ''}"
            error = _check(response, expected)
            if error:
                problems.append(Problem(who, f"{where}: {error}"))
            if who in secrets and not getattr(response, "streaming", False):
                body = response.content.decode()
                leaked = leaks(body, response.get("Content-Type", ""), secrets[who])
                if leaked:
                    problems.append(Problem(who, f"{where}: LEAKS {leaked}", leak=True))
    assert _orders_snapshot() == before, "an empty POST changed someone's orders"
    known, roles = KNOWN_ISSUES.get(target.key, ("", set()))
    expected_failures = [p for p in problems if p.who in roles and not p.leak]
    others = [p.text for p in problems if p not in expected_failures]
    assert not others, "\n".join(others)
    if known:
        if not expected_failures:
            pytest.fail(f"{target.key} behaves as the table says now: remove it from KNOWN_ISSUES")
        pytest.xfail(f"{known}. Seen: " + "; ".join(p.text for p in expected_failures))


def test_the_leak_detectors_find_what_they_look_for(cast):
    """The other half of the matrix's leak checks: the same detectors do find the orders and
    the forces in the responses of those who may see them (else "no leak" would prove
    nothing)."""
    _save_distinctive_orders(cast.campaign)
    world = World(cast=cast, state="open", invitation_token="", invitation_pk=0, battle=None)
    secrets = secrets_for(world)
    slug = cast.campaign.slug

    def found(who: str, url: str, against: str) -> set[str]:
        response = cast.client(who).get(url)
        assert response.status_code == 200
        body = response.content.decode()
        return set(leaks(body, response.get("Content-Type", ""), secrets[against]))

    orders = reverse("campaign:orders", args=[slug])
    exports = {
        who: export_made(cast.campaign, cast.users[who]) for who in ("gm", "side_a", "side_b")
    }
    export = {who: download_url(cast.campaign, job) for who, job in exports.items()}
    game_map = reverse("campaign:map", args=[slug])
    editor = reverse("campaign:orders-force", args=[slug, "r2"])
    # the raider's own orders page, editor and export hold what the defender must not read
    assert {"side_a's path orders", "side_a's retreat orders"} <= found("side_a", orders, "side_b")
    assert {"side_a's path orders", "side_a's retreat orders"} <= found("side_a", editor, "side_b")
    assert {"side_a's path orders", "side_a's retreat orders"} <= found(
        "side_a", export["side_a"], "side_b"
    )
    assert {"side_b's path orders", "side_b's retreat orders"} <= found(
        "side_b", export["side_b"], "side_a"
    )
    # the GM's map and export show every force each player must not see
    hidden_defenders = {"hidden force d1", "hidden force d2", "hidden force d3"}
    assert hidden_defenders <= found("gm", game_map, "side_a")
    assert hidden_defenders <= found("gm", export["gm"], "side_a")
    assert hidden_defenders | {"hidden force r1", "hidden force r2", "hidden force r3"} <= found(
        "gm", reverse("campaign:map-json", args=[slug]), "observer"
    )


# --- orders for someone else's force ---------------------------------------------------------


def _full_form(**changes: str) -> dict[str, str]:
    data = {
        "change_to": "full-speed",
        "path": "",
        "zoc": "stop",
        "countermarch": "never",
        "countermarch_square": "",
        "retreat_squares": "",
        "initiative": "early",
    }
    data.update(changes)
    return data


@pytest.mark.parametrize(
    ("who", "force", "status"),
    [
        ("side_a", "d2", 404),
        ("side_b", "r2", 404),
        ("gm", "r2", 403),
        ("gm", "d2", 403),
        ("observer", "r2", 403),
        ("outsider", "d2", 404),
    ],
)
def test_an_order_post_for_someone_elses_force_is_refused(cast, who, force, status):
    _save_distinctive_orders(cast.campaign)
    before = _orders_snapshot()
    client = cast.client(who)
    slug = cast.campaign.slug
    stamp = _stamp(cast.campaign, force)  # a page of this turn: only ownership refuses
    posts = [
        (reverse("campaign:orders-force", args=[slug, force]), _full_form(path="12,2")),
        (reverse("campaign:orders-force", args=[slug, force]), {"clear": "1"}),
        (reverse("campaign:orders-path", args=[slug, force]), _full_form(x="12", y="2")),
        (reverse("campaign:orders-path", args=[slug, force]), _full_form(clear_path="1")),
    ]
    posts = [(url, {**data, **stamp}) for url, data in posts]
    for url, data in posts:
        for headers in ({}, HTMX):
            response = client.post(url, data, headers=headers)
            assert response.status_code == status, (url, data, headers)
    assert _orders_snapshot() == before


def test_an_order_post_for_an_own_force_is_saved(cast):
    """The same posts from the force's own player go through (so the refusals above are the
    permission check, not a broken form)."""
    client = cast.client("side_b")
    url = reverse("campaign:orders-force", args=[cast.campaign.slug, "d2"])
    stamp = _stamp(cast.campaign, "d2")
    response = client.post(url, {**_full_form(change_to="probe", path="12,1; 13,1"), **stamp})
    assert response.status_code == 302
    turn = turn_current(campaign=cast.campaign)
    saved = Orders.objects.get(turn=turn, player__key="defenders").data["forces"]["d2"]
    assert saved["path"] == [[12, 1], [13, 1]]


def test_a_player_opens_no_other_roster(cast):
    url = reverse("campaign:roster", args=[cast.campaign.slug])
    assert cast.client("side_a").get(url, {"player": "defenders"}).status_code == 403
    assert cast.client("side_b").get(url, {"player": "raiders"}).status_code == 403
    html = cast.client("gm").get(url, {"player": "defenders"}).content.decode()
    assert "The Northern March" in html


# --- posts need the CSRF token -------------------------------------------------------------------


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.key)
def test_posts_without_the_csrf_token_are_refused(cast, target, settings, tmp_path):
    """Whatever a URL does with a POST, it never does it without the token (the CSRF check
    comes before the view, so even GET-only views answer 403 here)."""
    settings.MEDIA_ROOT = tmp_path
    campaign = cast.campaign
    invitation = invitation_create(
        campaign=campaign, role=Membership.Role.OBSERVER, created_by=cast.users["gm"]
    )
    battle = Battle.objects.create(
        campaign=campaign,
        turn=turn_current(campaign=campaign),
        key="t1-b1",
        x=4,
        y=8,
        pack={"sides": []},
    )
    world = World(
        cast=cast,
        state="open",
        invitation_token=invitation.token,
        invitation_pk=invitation.pk,
        battle=battle,
        photo=_battle_photo(battle, cast.users["gm"]),
    )
    url = reverse(target.name, kwargs=_kwargs(world, target))
    before = _orders_snapshot()
    for who in ("gm", "side_a", "side_b", "outsider"):
        client = Client(enforce_csrf_checks=True)
        client.force_login(cast.users[who])
        response = client.post(url, {"action": "confirm"})
        assert response.status_code == 403, (who, url, response.status_code)
        assert b"CSRF" in response.content, (who, url)
    assert _orders_snapshot() == before
    assert not Membership.objects.filter(user=cast.users["outsider"]).exists()
