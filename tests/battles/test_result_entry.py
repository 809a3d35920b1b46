"""The battle result page (`battles:result`) and its services: who may see and do what, the
live check, every impossible entry refused with a clear message, the enter → confirm or
dispute → override flow with its audit log, the turn held up by an unsettled result, the
resolver choice (tabletop or auto-resolve), photos, and the GM inbox."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from battles.models import Battle, BattleAudit
from battles.selectors import battle_items_for_inbox
from battles.services import (
    BattleRefused,
    battle_result_confirm,
    battle_result_enter,
    battle_result_override,
)
from campaign.errors import ServiceError
from campaign.models import Campaign, Turn
from campaign.turns.services import turn_advance, turn_resolve_after_battles
from tests.battles.conftest import (
    DEFENDER_UNITS,
    RAIDER_UNITS,
    figures,
    form_data,
    raiders_wiped,
    result_url,
    stamped,
    version,
)
from tests.conftest import CAST

pytestmark = pytest.mark.django_db

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


def page(cast, who: str, battle: Battle) -> str:
    response = cast.client(who).get(result_url(battle))
    assert response.status_code == 200
    return response.content.decode()


def enter(cast, who: str, battle: Battle, **kwargs):
    return cast.client(who).post(result_url(battle, "enter"), stamped(battle, form_data(**kwargs)))


def refresh(battle: Battle) -> Battle:
    return Battle.objects.select_related("turn").get(pk=battle.pk)


def defenders_win(cast) -> dict:
    return {"units": raiders_wiped(cast.campaign), "outcome": "b"}


# --- who sees the page -----------------------------------------------------------------------


@pytest.mark.parametrize("who, status", zip(CAST, (200, 200, 200, 404, 404, 404, 302), strict=True))
def test_the_cast_on_the_result_page(cast, battle, who, status):
    """Under fog of war an observer following no one sees no battle; outsiders get a 404."""
    response = cast.client(who).get(result_url(battle))
    assert response.status_code == status
    if who == "anonymous":
        assert response["Location"].startswith(reverse("login"))


def test_the_page_lists_every_unit_and_person_of_both_sides(cast, battle):
    html = page(cast, "side_a", battle)
    for uid in RAIDER_UNITS + DEFENDER_UNITS:
        assert f'name="u-{uid}-killed"' in html
        assert f'name="u-{uid}-left_retreat"' in html
    assert 'name="p-r3g1"' in html and 'name="p-d3i1"' in html  # a general, a character
    assert "Enter the result" in html
    assert "Auto-resolve needs the tactical engine" not in html
    assert f'hx-post="{result_url(battle, "preview")}"' in html
    assert f'action="{result_url(battle, "enter")}"' in html  # a real form too


def test_an_observer_sees_it_when_fog_of_war_is_off_but_cannot_enter(cast, battle):
    Campaign.objects.filter(pk=cast.campaign.pk).update(fog_of_war=False)
    html = page(cast, "observer", battle)
    assert "result-form" not in html
    response = cast.client("observer").post(
        result_url(battle, "enter"), stamped(battle, form_data(**defenders_win(cast)))
    )
    assert response.status_code == 403


def test_htmx_preview_gives_the_live_totals_and_each_row(cast, battle):
    data = form_data(
        units={"r3u1": {"killed": 10, "fled": 9}, "d3u3": {"killed": 3}},
        outcome="a",
    )
    response = cast.client("side_a").post(
        result_url(battle, "preview"), data, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="live"')
    assert '<tr id="totals-a">' in html
    assert 'hx-swap-oob="true"' in html  # each unit's figures left and row errors
    assert (
        "Horse raiders of The Red Riders had 16 figures when the battle began, but 19 are "
        "entered as killed, fled or gone off the table (R7.1.1)." in html
    )
    # the March still has 37 figures on the field: the raiders cannot have won (core method)
    assert "Raiders cannot have won: Defenders still has 37 figures on the field." in html
    assert not refresh(battle).result  # a preview saves nothing


def test_preview_without_javascript_shows_the_whole_page(cast, battle):
    data = form_data(**defenders_win(cast))
    response = cast.client("side_b").post(result_url(battle, "preview"), data)
    html = response.content.decode()
    assert response.status_code == 200 and "<h1>" in html
    assert "The rules accept this result." in html
    assert "Defenders won the battle." in html


# --- impossible entries ------------------------------------------------------------------------


def check(cast, battle: Battle, data: dict) -> dict[str, list[str]]:
    """The service's errors for `data`, entered by the raiders' player."""
    with pytest.raises(ServiceError) as e:
        battle_result_enter(
            campaign=cast.campaign,
            battle=battle,
            version=version(battle),
            user=cast.users["side_a"],
            data=data,
        )
    return e.value.field_messages


def test_negative_numbers_are_refused(cast, battle):
    errors = check(
        cast, battle, {"units": [{"unit_id": "r3u1", "killed": -1}], "outcomes": _won("b")}
    )
    assert errors["u-r3u1-killed"] == [
        "Horse raiders of The Red Riders: the figures killed cannot be a negative number."
    ]
    response = enter(cast, "side_a", battle, units={"d3u2": {"fled": -3}}, outcome="stalemate")
    assert response.status_code == 400
    assert "Archers of The Southern March: the figures that fled cannot be a negative number." in (
        response.content.decode()
    )


def test_more_figures_than_present_are_refused(cast, battle):
    errors = check(
        cast,
        battle,
        {"units": [{"unit_id": "r3u2", "killed": 6, "left_oppose": 5}], "outcomes": _won("b")},
    )
    assert errors["u-r3u2"] == [
        "Wolf riders of The Red Riders had 10 figures when the battle began, but 11 are entered "
        "as killed, fled or gone off the table (R7.1.1)."
    ]
    response = enter(cast, "side_b", battle, units={"d3u3": {"killed": 11}}, outcome="stalemate")
    assert response.status_code == 400
    assert "Light horse of The Southern March had 10 figures when the battle began (R7.1.1)." in (
        response.content.decode()
    )
    assert refresh(battle).entry == Battle.Entry.NONE


def test_a_winner_with_no_figures_left_is_refused(cast, battle):
    had = figures(cast.campaign, *RAIDER_UNITS)
    data = {
        "units": [{"unit_id": u, "left_retreat": n} for u, n in had.items()],
        "outcomes": _won("a"),
    }
    errors = check(cast, battle, data)
    assert errors["outcome"] == [
        "Raiders is entered as the winner but has no figures left on the field: a side with "
        "nothing left loses the battle (R7.3.1)."
    ]


def test_the_outcome_must_follow_the_core_rule(cast, battle):
    # both sides still on the field: a stalemate, not a win (R7.3.2–3)
    errors = check(cast, battle, {"units": [], "outcomes": _won("b")})
    assert errors["outcome"] == [
        "Defenders cannot have won: Raiders still has 56 figures on the field. Under the core "
        "method a side wins only by driving every enemy figure off the field (R7.3.2); with "
        "figures left on both sides the battle is a stalemate (R7.3.3)."
    ]
    # a side with nothing left lost: not a stalemate (R7.3.1)
    wiped = [{"unit_id": u, **c} for u, c in raiders_wiped(cast.campaign).items()]
    errors = check(cast, battle, {"units": wiped, "outcomes": {"a": "stalemate", "b": "stalemate"}})
    assert errors["outcome"] == [
        "Raiders has no figures left on the field, so it lost the battle and Defenders won it "
        "(R7.3.1–2)."
    ]
    errors = check(cast, battle, {"units": wiped})
    assert errors["outcome"] == ["Choose the outcome of the battle."]


def test_units_and_people_outside_the_battle_and_bad_fates_are_refused(cast, battle):
    errors = check(
        cast,
        battle,
        {
            "units": [{"unit_id": "r1u1", "killed": 1}],
            "individuals": [{"individual_id": "d3i1", "fate": "captured"}],
            "outcomes": {"a": "stalemate", "b": "stalemate"},
        },
    )
    assert errors["__all__"] == ["Unit r1u1 did not fight in battle 1 of turn 1."]
    assert errors["p-d3i1"] == ["Robin of the Fens, Scout: the fate must be killed or fled."]


def test_a_result_for_another_campaigns_battle_is_refused(cast, battle, run_other_campaign):
    other = run_other_campaign()
    foreign = Battle.objects.get(campaign=other, key="t1-b1")  # the same key, another campaign
    with pytest.raises(BattleRefused) as e:
        battle_result_enter(
            campaign=cast.campaign,
            battle=foreign,
            version=version(foreign),
            user=cast.users["gm"],
            data={"outcomes": {"a": "stalemate", "b": "stalemate"}},
        )
    assert str(e.value) == (
        "Battle 1 of turn 1 belongs to another campaign: it cannot be changed from this one."
    )
    # the page of each campaign reaches its own battle only; a non-member gets a 404
    response = cast.client("gm").post(
        reverse("battles:result-enter", args=[other.slug, "t1-b1"]),
        form_data(outcome="stalemate"),
    )
    assert response.status_code == 404
    assert Battle.objects.get(pk=foreign.pk).entry == Battle.Entry.NONE


def test_an_entry_after_confirmation_needs_the_gm(cast, battle):
    enter(cast, "side_a", battle, **defenders_win(cast))
    cast.client("side_b").post(result_url(battle, "confirm"), stamped(battle))
    assert refresh(battle).entry == Battle.Entry.CONFIRMED
    for who in ("side_a", "side_b"):
        response = enter(cast, who, battle, units={}, outcome="stalemate")
        assert response.status_code == 403  # the form is not offered any more
        with pytest.raises(BattleRefused) as e:
            battle_result_enter(
                campaign=cast.campaign,
                battle=battle,
                version=version(battle),
                user=cast.users[who],
                data={"outcomes": {"a": "stalemate", "b": "stalemate"}},
            )
        assert str(e.value) == (
            "Both sides have confirmed the result of battle 1 of turn 1: only the game master can "
            "change it now."
        )
    # the GM changes it with an override, and its note
    data = form_data(units={}, outcome="stalemate", note="Misread the table.")
    response = cast.client("gm").post(result_url(battle, "override"), stamped(battle, data))
    assert response.status_code == 302
    battle = refresh(battle)
    assert battle.entry == Battle.Entry.OVERRIDDEN
    assert battle.result["outcomes"] == {"a": "stalemate", "b": "stalemate"}


def test_italian_points_lost_decide_the_outcome(cast, make_battle):
    def italian(campaign):
        Campaign.objects.filter(pk=campaign.pk).update(
            options={**campaign.options, "battle_result_method": "italian"}
        )

    battle = make_battle(italian)
    a_points, b_points = (sum(f["points"] for f in s["forces"]) for s in battle.pack["sides"])
    data = form_data(units={"r3u1": {"killed": 5}}, points={"a": 300, "b": 20})
    response = cast.client("side_a").post(
        result_url(battle, "preview"), data, HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert "Outcome from the points lost (R7.3.6):" in html
    assert "Defenders won the battle." in html  # 280 > 20 % of the smaller army
    assert f"at most {round(min(a_points, b_points) / 5)}" in html
    errors = check(cast, battle, {"points_lost": {"a": -1, "b": b_points + 1}})
    assert errors["points-a"] == ["The points lost cannot be a negative number."]
    assert errors["points-b"] == [
        f"Defenders fielded {b_points} army points: it cannot have lost {b_points + 1}."
    ]
    response = enter(cast, "side_a", battle, units={"r3u1": {"killed": 5}}, points={"a": 60})
    assert "Enter the army points Defenders lost." in response.content.decode()
    response = enter(
        cast, "side_a", battle, units={"r3u1": {"killed": 5}}, points={"a": 30, "b": 0}
    )
    assert response.status_code == 302
    assert refresh(battle).result["points_lost"] == {"a": 30, "b": 0}


# --- enter, confirm, dispute, override ---------------------------------------------------------


def test_enter_then_confirm_by_the_other_side_queues_phases_4_8(
    cast, battle, django_capture_on_commit_callbacks
):
    response = enter(
        cast,
        "side_a",
        battle,
        **defenders_win(cast),
        people={"r3g2": "fled"},
        report_text="The riders broke at dusk.",
    )
    assert response.status_code == 302
    battle = refresh(battle)
    assert (battle.entry, battle.status) == (Battle.Entry.ENTERED, Battle.Status.PENDING)
    assert battle.entered_by == cast.users["side_a"] and battle.report_text
    html = page(cast, "side_b", battle)
    assert "Entered by Ulfrik of Wolfstead; it awaits the confirmation of Defenders." in html
    assert "Confirm the result" in html
    assert "Confirm the result" not in page(cast, "side_a", battle)
    # the side that entered it cannot confirm it
    with pytest.raises(BattleRefused):
        battle_result_confirm(
            campaign=cast.campaign,
            battle=battle,
            version=version(battle),
            user=cast.users["side_a"],
        )
    assert (
        cast.client("side_a").post(result_url(battle, "confirm"), stamped(battle)).status_code
        == 403
    )
    with django_capture_on_commit_callbacks() as callbacks:
        response = cast.client("side_b").post(result_url(battle, "confirm"), stamped(battle))
    assert response.status_code == 302
    battle = refresh(battle)
    assert (battle.entry, battle.status) == (Battle.Entry.CONFIRMED, Battle.Status.RESOLVED)
    assert battle.confirmed_by == cast.users["side_b"]
    assert len(callbacks) == 1  # turn_resolve_after_battles_task, once this commits
    actions = list(BattleAudit.objects.filter(battle=battle).values_list("action", "user"))
    assert actions == [
        ("entered", cast.users["side_a"].pk),
        ("confirmed", cast.users["side_b"].pk),
    ]


def test_the_last_confirmation_runs_phases_4_8_as_a_task(
    cast, battle, django_capture_on_commit_callbacks
):
    enter(cast, "side_b", battle, **defenders_win(cast))
    with django_capture_on_commit_callbacks(execute=True):  # Celery runs eagerly in tests
        cast.client("side_a").post(result_url(battle, "confirm"), stamped(battle))
    turn = Turn.objects.get(pk=battle.turn_id)
    assert turn.status == Turn.Status.RESOLVED
    assert cast.campaign.turns.filter(number=2, status=Turn.Status.OPEN).exists()


def test_either_player_may_enter_again_before_confirmation(cast, battle):
    enter(cast, "side_a", battle, **defenders_win(cast))
    enter(cast, "side_b", battle, **defenders_win(cast), people={"r3i1": "killed"})
    html = page(cast, "side_a", battle)
    assert "it awaits the confirmation of Raiders." in html
    assert "Confirm the result" in html
    assert "Confirm the result" not in page(cast, "side_b", battle)


def test_a_result_the_gm_entered_is_confirmed_by_either_side(cast, battle):
    response = enter(cast, "gm", battle, **defenders_win(cast))
    assert response.status_code == 302
    assert "awaits the confirmation of either side" in page(cast, "side_b", battle)
    battle_result_confirm(
        campaign=cast.campaign, battle=battle, version=version(battle), user=cast.users["side_b"]
    )
    assert refresh(battle).entry == Battle.Entry.CONFIRMED


def test_a_dispute_blocks_the_turn_until_the_gm_settles_it(
    cast, battle, django_capture_on_commit_callbacks
):
    enter(cast, "side_a", battle, **defenders_win(cast))
    response = cast.client("side_b").post(
        result_url(battle, "dispute"), stamped(battle, {"note": ""})
    )
    assert response.status_code == 400
    assert "Say what is wrong with the result: the game master reads it." in (
        response.content.decode()
    )
    note = "Our light horse held the ford to the end."
    response = cast.client("side_b").post(
        result_url(battle, "dispute"), stamped(battle, {"note": note})
    )
    assert response.status_code == 302
    battle = refresh(battle)
    assert (battle.entry, battle.status) == (Battle.Entry.DISPUTED, Battle.Status.PENDING)

    # the turn cannot go on, and the GM's inbox says why
    turn = battle.turn
    with pytest.raises(ServiceError):
        turn_advance(turn=turn)
    with pytest.raises(ServiceError):
        turn_resolve_after_battles(turn_id=turn.pk)
    inbox = cast.client("gm").get(reverse("campaign:inbox", args=[cast.campaign.slug]))
    html = inbox.content.decode()
    assert (
        "The result of battle 1 of turn 1 at (4, 8) is disputed by Sir Edmund of Ashbury: “Our "
        "light horse held the ford to the end.” It blocks the turn until you settle it." in html
    )
    assert "Settle the disputed result" in html and result_url(battle) in html
    assert "has no result yet" not in html

    # neither player can change it now
    response = enter(cast, "side_a", battle, **defenders_win(cast))
    assert response.status_code == 403
    with pytest.raises(BattleRefused, match="is disputed: the game master settles it"):
        battle_result_enter(
            campaign=cast.campaign,
            battle=battle,
            version=version(battle),
            user=cast.users["side_b"],
            data={"outcomes": {"a": "stalemate", "b": "stalemate"}},
        )

    # the GM settles it: a note is mandatory and kept in the audit log
    data = form_data(units={"d3u3": {"killed": 4}}, outcome="stalemate")
    response = cast.client("gm").post(result_url(battle, "override"), stamped(battle, data))
    assert response.status_code == 400
    assert "An override needs a note saying why: the audit log keeps it." in (
        response.content.decode()
    )
    data["note"] = "Both players agree the ford was held; stalemate."
    with django_capture_on_commit_callbacks() as callbacks:
        response = cast.client("gm").post(result_url(battle, "override"), stamped(battle, data))
    assert response.status_code == 302
    battle = refresh(battle)
    assert (battle.entry, battle.status) == (Battle.Entry.OVERRIDDEN, Battle.Status.RESOLVED)
    assert len(callbacks) == 1
    last = BattleAudit.objects.filter(battle=battle).last()
    assert (last.action, last.note, last.user) == (
        "overridden",
        "Both players agree the ford was held; stalemate.",
        cast.users["gm"],
    )
    assert last.data["previous"]["entry"] == "disputed"
    assert "Both players agree the ford was held; stalemate." in page(cast, "side_a", battle)
    assert battle_items_for_inbox(campaign=cast.campaign, turn=turn) == []


def test_the_inbox_shows_results_waiting_for_confirmation(cast, battle):
    items = battle_items_for_inbox(campaign=cast.campaign, turn=battle.turn)
    assert [(i.kind, i.text) for i in items] == [
        ("battle-none", "Battle 1 of turn 1 at (4, 8) has no result yet.")
    ]
    enter(cast, "side_a", battle, **defenders_win(cast))
    html = cast.client("gm").get(reverse("campaign:inbox", args=[cast.campaign.slug]))
    assert (
        "The result of battle 1 of turn 1 at (4, 8) was entered by Ulfrik of Wolfstead and awaits "
        "the confirmation of Defenders." in html.content.decode()
    )


def test_only_the_gm_overrides_and_only_players_confirm(cast, battle):
    enter(cast, "side_a", battle, **defenders_win(cast))
    data = form_data(**defenders_win(cast), note="Because.")
    assert (
        cast.client("side_b")
        .post(result_url(battle, "override"), stamped(battle, data))
        .status_code
        == 403
    )
    with pytest.raises(BattleRefused, match="Only the game master"):
        battle_result_override(
            campaign=cast.campaign,
            battle=battle,
            version=version(battle),
            user=cast.users["side_b"],
            note="Because.",
        )
    with pytest.raises(BattleRefused, match="as game master you settle it"):
        battle_result_confirm(
            campaign=cast.campaign, battle=battle, version=version(battle), user=cast.users["gm"]
        )
    # the GM may settle the entered result as it stands
    battle_result_override(
        campaign=cast.campaign,
        battle=battle,
        version=version(battle),
        user=cast.users["gm"],
        note="As entered.",
    )
    assert refresh(battle).entry == Battle.Entry.OVERRIDDEN


def test_nothing_changes_once_phases_4_8_have_run(cast, battle):
    enter(cast, "side_a", battle, **defenders_win(cast))
    battle_result_confirm(
        campaign=cast.campaign, battle=battle, version=version(battle), user=cast.users["side_b"]
    )
    turn_resolve_after_battles(turn_id=battle.turn_id)
    with pytest.raises(BattleRefused, match="no longer waits for battle results"):
        battle_result_override(
            campaign=cast.campaign,
            battle=battle,
            version=version(battle),
            user=cast.users["gm"],
            note="Too late.",
        )
    html = page(cast, "side_a", battle)
    assert "result-form" not in html
    assert "The entered result" in html and "Defenders won the battle." in html
    # the GM alone may still correct it: as an amendment of the resolved turn, previewed
    html = page(cast, "gm", battle)
    assert "Amend the result" in html and "Preview the amendment" in html
    assert "Settle it now" not in html and "Enter the result" not in html


# --- the resolver ------------------------------------------------------------------------------


def test_the_gm_may_choose_auto_resolve(cast, battle):
    html = page(cast, "gm", battle)
    assert 'name="resolver" value="auto" disabled' not in html
    url = result_url(battle, "resolver")
    data = {"resolver": "auto", "auto_at_deadline": "on"}
    response = cast.client("gm").post(url, stamped(battle, data))
    assert response.status_code == 302
    battle = refresh(battle)
    assert (battle.resolver, battle.auto_at_deadline) == ("auto", True)
    response = cast.client("gm").post(url, stamped(battle, {"resolver": "tabletop"}))
    assert response.status_code == 302
    battle = refresh(battle)
    assert (battle.resolver, battle.auto_at_deadline) == ("tabletop", False)
    assert BattleAudit.objects.filter(battle=battle, action="resolver-set").count() == 2
    response = cast.client("side_a").post(url, stamped(battle, {"resolver": "tabletop"}))
    assert response.status_code == 403


# --- photos ------------------------------------------------------------------------------------


def test_players_add_photos_served_only_to_those_who_see_the_battle(
    cast, battle, settings, tmp_path
):
    settings.MEDIA_ROOT = tmp_path
    url = result_url(battle, "photo")
    upload = SimpleUploadedFile("../../evil name.png", PNG, content_type="image/png")
    response = cast.client("side_a").post(url, {"photo": upload, "caption": "The ford at dusk"})
    assert response.status_code == 302
    photo = battle.photos.get()
    assert photo.file.name.startswith("battles/incursion/t1-b1/") and ".." not in photo.file.name
    photo_url = reverse("battles:result-photo", args=["incursion", "t1-b1", photo.pk])
    assert photo_url in page(cast, "side_b", battle)
    response = cast.client("gm").get(photo_url)
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    assert b"".join(response.streaming_content) == PNG
    assert cast.client("outsider").get(photo_url).status_code == 404
    assert cast.client("observer").get(photo_url).status_code == 404
    fake = SimpleUploadedFile("notes.png", b"<script>alert(1)</script>", content_type="image/png")
    response = cast.client("side_b").post(url, {"photo": fake})
    assert response.status_code == 400
    assert "The photo must be a JPEG, PNG, GIF or WebP image." in response.content.decode()


# --- helpers -----------------------------------------------------------------------------------


def _won(side: str) -> dict[str, str]:
    return {k: "won" if k == side else "lost" for k in ("a", "b")}


@pytest.fixture
def run_other_campaign(db):
    """Another campaign (generated, 6×6) whose turn 1 also waits for a battle t1-b1."""
    from io import StringIO

    from django.core.management import call_command

    def _make() -> Campaign:
        out = StringIO()
        call_command(
            *("generate_campaign", "--width", "6", "--height", "6", "--forces", "10"),
            *("--seed", "6", "--orders", "--slug", "skirmish"),
            stdout=out,
        )
        call_command("resolve_turn", "skirmish", "--seed", "1", stdout=out)
        return Campaign.objects.get(slug="skirmish")

    return _make
