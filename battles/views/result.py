"""The result page of one battle (`battles:result`): the players enter and confirm or dispute
its result, the GM chooses the resolver and settles disputes.

One page, `<key>/result/`. A GET shows it; a POST is one action (field `action`):

- `preview`: the live check while the form is filled in. The form posts it through htmx on
  every change and gets back `#live` (totals per side, the outcome as the rules read it, every
  problem) with each unit's "left on the field" and row errors swapped out of band. Without
  JavaScript the same button shows the whole page checked, nothing saved;
- `enter`, `override` (GM, with a note), `confirm`, `dispute` (with a note), `resolver` (GM),
  `auto` (GM: the tactical engine fights it now), `photo`: a service call; a redirect back on
  success, the page with the errors (400) or the refusal (409) otherwise.

Photos are served by `result-photo` after the same access check as the page: the media URL of
an upload is never shown.
"""

from __future__ import annotations

import mimetypes
from typing import Any

from django.contrib import messages
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods

from battles import services
from battles.forms import BattleResultForm, DisputeForm, PhotoForm, ResolverForm
from battles.models import Battle
from battles.queries import battle_get_for_viewer
from battles.selectors import (
    COUNTS,
    BattleRights,
    Roster,
    battle_audit_list,
    battle_photos_list,
    battle_rights_for_viewer,
    battle_roster_get,
    user_label,
)
from battles.views.odds import odds_context
from campaign.access import NotAllowed, Viewer, campaign_viewer
from campaign.services import ServiceError

TEMPLATE = "battles/result.html"


def _battle(viewer: Viewer, key: str) -> Battle:
    battle = battle_get_for_viewer(viewer=viewer, key=key)
    if battle is None:
        raise Http404("No such battle.")
    return battle


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def result(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    viewer = campaign_viewer(request, slug)
    battle = _battle(viewer, key)
    rights = battle_rights_for_viewer(battle=battle, viewer=viewer)
    roster = battle_roster_get(battle=battle)
    if request.method == "POST":
        return _post(request, viewer, battle, rights, roster)
    form = BattleResultForm(initial=_initial(battle), roster=roster)
    check = _stored_check(battle, roster)
    context = _context(viewer, battle, rights, roster, form, check)
    return render(request, TEMPLATE, context | odds_context(viewer, battle))


@never_cache
@require_GET
def photo(request: HttpRequest, slug: str, key: str, pk: int) -> HttpResponse:
    """A photo of the battle, for those who may see the battle."""
    viewer = campaign_viewer(request, slug)
    battle = _battle(viewer, key)
    item = battle.photos.filter(pk=pk).first()
    if item is None or not item.file:
        raise Http404("No such photo.")
    try:
        handle = item.file.open("rb")
    except FileNotFoundError:
        raise Http404("No such photo.") from None
    kind = mimetypes.guess_type(item.file.name)[0] or "application/octet-stream"
    return FileResponse(handle, content_type=kind)


urlpatterns = [
    path("", result, name="result"),
    path("photos/<int:pk>/", photo, name="result-photo"),
]


# --- the actions -----------------------------------------------------------------------------


def _post(
    request: HttpRequest, viewer: Viewer, battle: Battle, rights: BattleRights, roster: Roster
) -> HttpResponse:
    action = request.POST.get("action", "")
    if action in ("preview", "enter", "override"):
        return _result_action(request, viewer, battle, rights, roster, action)
    campaign, user = viewer.campaign, request.user
    form: DisputeForm | ResolverForm | PhotoForm | None = None
    try:
        if action == "confirm":
            if not rights.can_confirm:
                raise NotAllowed(_("You cannot confirm this result."))
            services.battle_result_confirm(campaign=campaign, battle=battle, user=user)
            done = _("You confirmed the result of battle %(battle)s.")
        elif action == "dispute":
            if not rights.can_dispute:
                raise NotAllowed(_("You cannot dispute this result."))
            form = DisputeForm(request.POST)
            if not form.is_valid():
                return _again(request, viewer, battle, roster, {"dispute_form": form}, 400)
            services.battle_result_dispute(
                campaign=campaign, battle=battle, user=user, note=form.cleaned_data["note"]
            )
            done = _("You disputed the result of battle %(battle)s: the game master settles it.")
        elif action == "resolver":
            if not rights.is_gm:
                raise NotAllowed(_("Only the game master chooses how a battle is resolved."))
            form = ResolverForm(request.POST)
            if not form.is_valid():
                return _again(request, viewer, battle, roster, {"resolver_form": form}, 400)
            services.battle_resolver_set(
                campaign=campaign,
                battle=battle,
                user=user,
                resolver=form.cleaned_data["resolver"],
                auto_at_deadline=form.cleaned_data["auto_at_deadline"],
            )
            done = _("The resolver of battle %(battle)s is saved.")
        elif action == "auto":
            if not rights.can_set_resolver:
                raise NotAllowed(_("Only the game master can auto-resolve a battle."))
            services.battle_auto_resolve(campaign=campaign, battle=battle, user=user)
            done = _("The tactical engine fought battle %(battle)s: its result is settled.")
        elif action == "photo":
            if not rights.can_add_photo:
                raise NotAllowed(
                    _("Only the players of the battle and the game master add photos.")
                )
            form = PhotoForm(request.POST, request.FILES)
            if not form.is_valid():
                return _again(request, viewer, battle, roster, {"photo_form": form}, 400)
            services.battle_photo_add(
                campaign=campaign,
                battle=battle,
                user=user,
                file=form.cleaned_data["photo"],
                caption=form.cleaned_data["caption"],
            )
            done = _("The photo is added to battle %(battle)s.")
        else:
            return _again(request, viewer, battle, roster, {"refusal": _("Unknown action.")}, 400)
    except services.InvalidResultEntry as e:
        extra: dict[str, Any] = {}
        if form is None:
            extra["refusal"] = str(e)
        else:
            extra[f"{action}_form"] = form
            for key, msgs in e.errors.items():
                for message in msgs:
                    form.add_error(key if key in form.fields else None, message)
        return _again(request, viewer, battle, roster, extra, 400)
    except ServiceError as e:  # refused by the battle's state (or the rules, if it changed)
        return _again(request, viewer, battle, roster, {"refusal": str(e)}, 409)
    messages.success(request, done % {"battle": battle.key})
    return redirect("battles:result", slug=viewer.campaign.slug, key=battle.key)


def _result_action(
    request: HttpRequest,
    viewer: Viewer,
    battle: Battle,
    rights: BattleRights,
    roster: Roster,
    action: str,
) -> HttpResponse:
    allowed = rights.can_override if action == "override" else rights.can_enter
    if action == "preview":
        allowed = rights.can_enter or rights.can_override
    if not allowed:
        raise NotAllowed(_("You cannot enter or change the result of this battle now."))
    form = BattleResultForm(request.POST, roster=roster)
    form.is_valid()  # the typed values that parse are used; the others are errors
    data = form.result_data()
    check = services.battle_result_check(roster=roster, data=data)
    if action == "preview":
        form.add_service_errors(check.errors)
        context = _context(viewer, battle, rights, roster, form, check)
        if request.htmx:
            return render(request, f"{TEMPLATE}#live", {**context, "oob": True})
        return render(request, TEMPLATE, context)
    if form.errors:
        form.add_service_errors(check.errors)
        context = _context(viewer, battle, rights, roster, form, check)
        return render(request, TEMPLATE, context, status=400)
    campaign, user = viewer.campaign, request.user
    report_text = form.cleaned_data.get("report_text", "")
    try:
        if action == "override":
            services.battle_result_override(
                campaign=campaign,
                battle=battle,
                user=user,
                note=form.cleaned_data.get("note", ""),
                data=data,
                report_text=report_text,
            )
            done = _("You settled the result of battle %(battle)s; the note is in the audit log.")
        else:
            services.battle_result_enter(
                campaign=campaign, battle=battle, user=user, data=data, report_text=report_text
            )
            done = _(
                "The result of battle %(battle)s is entered: it now awaits the other side's "
                "confirmation."
            )
    except services.InvalidResultEntry as e:
        form.add_service_errors(e.errors)
        context = _context(viewer, battle, rights, roster, form, check)
        return render(request, TEMPLATE, context, status=400)
    except ServiceError as e:
        context = _context(viewer, battle, rights, roster, form, check) | {"refusal": str(e)}
        return render(request, TEMPLATE, context, status=409)
    messages.success(request, done % {"battle": battle.key})
    return redirect("battles:result", slug=viewer.campaign.slug, key=battle.key)


def _again(
    request: HttpRequest,
    viewer: Viewer,
    battle: Battle,
    roster: Roster,
    extra: dict[str, Any],
    status: int,
) -> HttpResponse:
    """The page again after a refused action, with what the user typed in that action's form."""
    battle.refresh_from_db()
    rights = battle_rights_for_viewer(battle=battle, viewer=viewer)
    form = BattleResultForm(initial=_initial(battle), roster=roster)
    check = _stored_check(battle, roster)
    context = _context(viewer, battle, rights, roster, form, check) | extra
    context |= odds_context(viewer, battle)
    return render(request, TEMPLATE, context, status=status)


# --- what the page shows ---------------------------------------------------------------------


def _stored_check(battle: Battle, roster: Roster) -> services.ResultCheck | None:
    """The stored result read back: its totals and outcome, for the page."""
    if not battle.result:
        return None
    return services.battle_result_check(roster=roster, data=battle.result)


def _initial(battle: Battle) -> dict[str, Any]:
    return {**BattleResultForm.initial_from(battle.result), "report_text": battle.report_text}


def _tables(form: BattleResultForm, roster: Roster, check: services.ResultCheck | None) -> list:
    """Per side: each unit with its four count fields, figures left and row errors; each
    general and character with its fate field; the side's totals."""
    tables = []
    for side in roster.sides:
        units = [
            {
                "unit": u,
                "fields": [form[services.unit_field(u.id, w)] for w in COUNTS],
                "left": check.unit_left.get(u.id, u.figures) if check else u.figures,
                "errors": form.row_errors.get(u.id, []),
            }
            for u in side.units
        ]
        people = [{"person": p, "field": form[services.person_field(p.id)]} for p in side.people]
        tables.append(
            {
                "side": side,
                "units": units,
                "people": people,
                "totals": check.totals.get(side.key) if check else None,
                "points_field": form[services.points_field(side.key)]
                if services.points_field(side.key) in form.fields
                else None,
            }
        )
    return tables


def _outcome_text(roster: Roster, outcome: dict[str, str] | None) -> str:
    if not outcome:
        return ""
    winner = next((s for s in roster.sides if outcome.get(s.key) == "won"), None)
    if winner is None:
        return _("Stalemate: neither side won.")
    return _("%(side)s won the battle.") % {"side": winner.name}


def _context(
    viewer: Viewer,
    battle: Battle,
    rights: BattleRights,
    roster: Roster,
    form: BattleResultForm,
    check: services.ResultCheck | None,
) -> dict[str, Any]:
    campaign = viewer.campaign
    editing = rights.can_enter or rights.can_override
    problems: list[str] = []
    if check is not None and editing:
        for msgs in check.errors.values():
            problems += [m for m in msgs if m not in problems]
    entered_side = roster.side(rights.entered_side).name if rights.entered_side else None
    awaiting = None
    if battle.entry == Battle.Entry.ENTERED:
        others = [s.name for s in roster.sides if s.key != rights.entered_side]
        awaiting = others[0] if rights.entered_side else _("either side")
    return {
        "campaign": campaign,
        "viewer": viewer,
        "battle": battle,
        "rights": rights,
        "roster": roster,
        "form": form,
        "tables": _tables(form, roster, check),
        "check": check,
        "problems": problems,
        "outcome_text": _outcome_text(roster, check.outcome if check else None),
        "expected_text": _outcome_text(roster, check.expected if check else None),
        "editing": editing,
        "italian": roster.method == "italian",
        "entered_by": user_label(battle.entered_by) if battle.entered_by_id else "",
        "entered_side": entered_side,
        "confirmed_by": user_label(battle.confirmed_by) if battle.confirmed_by_id else "",
        "awaiting": awaiting,
        "dispute_form": DisputeForm(),
        "resolver_form": ResolverForm(
            initial={"resolver": battle.resolver, "auto_at_deadline": battle.auto_at_deadline}
        ),
        "photo_form": PhotoForm(),
        "audit": battle_audit_list(battle=battle),
        "photos": [
            {"photo": p, "who": user_label(p.uploaded_by)}
            for p in battle_photos_list(battle=battle)
        ],
        "points_lost": [
            (side.name, (battle.result.get("points_lost") or {}).get(side.key, 0))
            for side in roster.sides
        ]
        if battle.result and battle.result.get("points_lost")
        else [],
        "url": reverse("battles:result", args=[campaign.slug, battle.key]),
        "oob": False,
    }
