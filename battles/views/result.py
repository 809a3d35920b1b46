"""The result page of one battle (`battles:result`): the players enter and confirm or dispute
its result, the GM chooses the resolver and settles disputes. A GET shows the page; each
action has its own POST view, under `<key>/result/<action>/`:

- `preview`: the live check while the form is filled in. The form posts it through htmx on
  every change and gets back `#live` (totals per side, the outcome as the rules read it, every
  problem) with each unit's "left on the field" and row errors swapped out of band. Without
  JavaScript the same button shows the whole page checked, nothing saved;
- `enter`, `override` (GM, with a note), `confirm`, `dispute` (with a note), `resolver` (GM),
  `auto` (GM: the tactical engine fights it now), `photo`: a service call; a redirect back on
  success, the page with the errors (400) or the refusal (409) otherwise.

Each of these forms but the photo's carries the version of the result it was rendered from
(`battles.stale`): a form built on a result that has changed since is refused (409) with the
page as it is now and what changed, before anything it holds is read. The live check only
says that the result has changed, and offers to reload.

Photos are served by `result-photo` after the same access check as the page: the media URL of
an upload is never shown.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any

from django import forms
from django.contrib import messages
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from battles import services
from battles.entry import ResultCheck, battle_result_check, person_field, points_field, unit_field
from battles.forms import BattleResultForm, DisputeForm, PhotoForm, ResolverForm
from battles.models import Battle
from battles.packs import battle_get_for_viewer
from battles.rights import BattleRights, battle_rights_for_viewer
from battles.roster import COUNTS, Roster, battle_roster_get
from battles.selectors import battle_audit_list, battle_photos_list
from battles.stale import (
    VERSION_FIELD,
    StaleResult,
    result_expected,
    result_moved_message,
    result_moved_notice,
    result_version_posted,
)
from battles.views.odds import odds_context
from campaign.access import HtmxHttpRequest, NotAllowed, Viewer, campaign_viewer
from campaign.amendments import readers_of_result
from campaign.errors import ServiceError
from campaign.fog import battle_sides
from campaign.selectors import user_label

TEMPLATE = "battles/result.html"
# each action's URL name, `battles:result-<name>`
ACTIONS = {
    "preview": "preview",
    "enter": "enter",
    "override": "override",
    "confirm": "confirm",
    "dispute": "dispute",
    "resolver": "resolver",
    "auto": "auto",
    "photo": "photo-add",
}


def _battle(viewer: Viewer, key: str) -> Battle:
    battle = battle_get_for_viewer(viewer=viewer, key=key)
    if battle is None:
        raise Http404("No such battle.")
    return battle


@never_cache
@require_GET
def result(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    viewer = campaign_viewer(request, slug)
    battle = _battle(viewer, key)
    rights = battle_rights_for_viewer(battle=battle, viewer=viewer)
    roster = battle_roster_get(battle=battle)
    form = BattleResultForm(initial=_initial(battle), roster=roster)
    check = _stored_check(battle, roster)
    context = _context(viewer, battle, rights, roster, form, check)
    return render(request, TEMPLATE, context | odds_context(viewer, battle))


@never_cache
@require_GET
def photo(request: HttpRequest, slug: str, key: str, pk: int) -> FileResponse:
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
    kind = mimetypes.guess_type(item.file.name or "")[0] or "application/octet-stream"
    return FileResponse(handle, content_type=kind)


# --- the actions: the result form ------------------------------------------------------------


def _entry(request: HtmxHttpRequest, slug: str, key: str, action: str) -> HttpResponse:
    """Check the typed result (`preview`), or enter it, or settle it (`override`). An htmx
    request is always the form's live check: once a button with a `formaction` was clicked,
    htmx sends the form's own requests to that button's URL."""
    if request.htmx:
        action = "preview"
    viewer = campaign_viewer(request, slug)
    battle = _battle(viewer, key)
    rights = battle_rights_for_viewer(battle=battle, viewer=viewer)
    roster = battle_roster_get(battle=battle)
    allowed = {
        "preview": rights.can_enter or rights.can_override or rights.can_amend,
        "enter": rights.can_enter,
        "override": rights.can_override,
    }[action]
    refusal = _("You cannot enter or change the result of this battle now.")
    posted = request.POST.get(VERSION_FIELD)
    if action == "preview" and not allowed:
        raise NotAllowed(refusal)
    if action != "preview":  # the live check changes nothing: it only says what changed
        try:
            _version_checked(request, battle, allowed, refusal)
        except StaleResult as e:
            return _again(request, viewer, battle, {"refusal": str(e)}, 409)
    form = BattleResultForm(request.POST, roster=roster)
    form.is_valid()  # the typed values that parse are used; the others are errors
    data = form.result_data()
    check = battle_result_check(roster=roster, data=data)
    # what was typed is shown again with the version it was built on, not the stored one
    read = result_version_posted(posted)
    version = {"version": "" if read is None else read}
    if action == "preview" or form.errors:
        form.add_service_errors(check.errors)
        context = _context(viewer, battle, rights, roster, form, check) | version
        if read != battle.result_version:
            context["stale"] = result_moved_notice(battle=battle)
        if action == "preview" and request.htmx:
            return render(request, f"{TEMPLATE}#live", {**context, "oob": True})
        return render(request, TEMPLATE, context, status=200 if action == "preview" else 400)
    campaign, user = viewer.campaign, viewer.user
    report_text = form.cleaned_data.get("report_text", "")
    try:
        if action == "override":
            services.battle_result_override(
                campaign=campaign,
                battle=battle,
                user=user,
                version=posted,
                note=form.cleaned_data.get("note", ""),
                data=data,
                report_text=report_text,
            )
            done = _("You settled the result of battle %(battle)s; the note is in the audit log.")
        else:
            services.battle_result_enter(
                campaign=campaign,
                battle=battle,
                user=user,
                version=posted,
                data=data,
                report_text=report_text,
            )
            done = _(
                "The result of battle %(battle)s is entered: it now awaits the other side's "
                "confirmation."
            )
    except StaleResult as e:  # changed between the check above and the service's lock
        return _again(request, viewer, battle, {"refusal": str(e)}, 409)
    except ServiceError as e:
        context = _context(viewer, battle, rights, roster, form, check) | version
        if _is_entry_error(e):
            form.add_service_errors(e.field_messages)
            return render(request, TEMPLATE, context, status=400)
        return render(request, TEMPLATE, context | {"refusal": str(e)}, status=409)
    messages.success(request, done % {"battle": battle.label})
    return redirect("battles:result", slug=viewer.campaign.slug, key=battle.key)


def _is_entry_error(e: ServiceError) -> bool:
    """Mistakes in what was typed (field by field, 400), not a refusal of the battle's state
    (409)."""
    return hasattr(e, "error_dict")


@require_POST
def result_preview(request: HtmxHttpRequest, slug: str, key: str) -> HttpResponse:
    return _entry(request, slug, key, "preview")


@require_POST
def result_enter(request: HtmxHttpRequest, slug: str, key: str) -> HttpResponse:
    return _entry(request, slug, key, "enter")


@require_POST
def result_override(request: HtmxHttpRequest, slug: str, key: str) -> HttpResponse:
    return _entry(request, slug, key, "override")


# --- the actions around it -------------------------------------------------------------------


@dataclass(frozen=True)
class Asked:
    """What one action on the battle works with; the forms it binds go into `extra` (as
    `<name>_form`) so the page can show their errors."""

    request: HttpRequest
    viewer: Viewer
    battle: Battle
    rights: BattleRights
    extra: dict[str, Any]

    def version(self, allowed: bool, refusal: str) -> str | None:
        """The version of the result the form was rendered from (`_version_checked`)."""
        return _version_checked(self.request, self.battle, allowed, refusal)


def _version_checked(
    request: HttpRequest, battle: Battle, allowed: bool, refusal: str
) -> str | None:
    """The version of the result a state-changing form was rendered from (`battles.stale`),
    checked before the form is read (its service checks it again, under its lock). A form
    built on an earlier version is refused first, saying what changed: the change is often
    why its action is no longer `allowed`. Then an action not allowed (`refusal`, 403); then a
    form that names no version."""
    posted = request.POST.get(VERSION_FIELD)
    if result_version_posted(posted) not in (None, battle.result_version):
        raise StaleResult(result_moved_message(battle=battle))
    if not allowed:
        raise NotAllowed(refusal)
    result_expected(battle=battle, posted=posted)
    return posted


Act = Callable[[Asked], str | None]


def _action(act: Act) -> Callable[[HttpRequest, str, str], HttpResponse]:
    """The view of one action on the battle: `act` does it and says what was done, or None when
    a form it bound has errors."""

    @require_POST
    @wraps(act)
    def view(request: HttpRequest, slug: str, key: str) -> HttpResponse:
        viewer = campaign_viewer(request, slug)
        battle = _battle(viewer, key)
        rights = battle_rights_for_viewer(battle=battle, viewer=viewer)
        extra: dict[str, Any] = {}
        try:
            done = act(Asked(request, viewer, battle, rights, extra))
        except ServiceError as e:
            return _refused(request, viewer, battle, extra, e)
        if done is None:
            return _again(request, viewer, battle, extra, 400)
        messages.success(request, done % {"battle": battle.label})
        return redirect("battles:result", slug=viewer.campaign.slug, key=battle.key)

    return view


def _refused(
    request: HttpRequest, viewer: Viewer, battle: Battle, extra: dict[str, Any], e: ServiceError
) -> HttpResponse:
    """The page again: mistakes in a form go beside its fields, a refusal above."""
    form = next((f for f in extra.values() if isinstance(f, forms.Form)), None)
    if _is_entry_error(e) and form is not None:
        for field, msgs in e.field_messages.items():
            for message in msgs:
                form.add_error(field if field in form.fields else None, message)
        return _again(request, viewer, battle, extra, 400)
    status = 400 if _is_entry_error(e) else 409  # refused by the battle's state
    return _again(request, viewer, battle, {**extra, "refusal": str(e)}, status)


def _valid(form: forms.Form, extra: dict[str, Any], name: str) -> dict[str, Any] | None:
    """The form's data, or None when it has errors (it stays in `extra`, to show them)."""
    extra[name] = form
    return form.cleaned_data if form.is_valid() else None


@_action
def result_confirm(a: Asked) -> str | None:
    version = a.version(a.rights.can_confirm, _("You cannot confirm this result."))
    services.battle_result_confirm(
        campaign=a.viewer.campaign, battle=a.battle, user=a.viewer.user, version=version
    )
    return _("You confirmed the result of battle %(battle)s.")


@_action
def result_dispute(a: Asked) -> str | None:
    version = a.version(a.rights.can_dispute, _("You cannot dispute this result."))
    data = _valid(DisputeForm(a.request.POST), a.extra, "dispute_form")
    if data is None:
        return None
    services.battle_result_dispute(
        campaign=a.viewer.campaign,
        battle=a.battle,
        user=a.viewer.user,
        version=version,
        note=data["note"],
    )
    return _("You disputed the result of battle %(battle)s: the game master settles it.")


@_action
def result_resolver(a: Asked) -> str | None:
    refusal = _("Only the game master chooses how a battle is resolved.")
    version = a.version(a.rights.is_gm, refusal)
    data = _valid(ResolverForm(a.request.POST), a.extra, "resolver_form")
    if data is None:
        return None
    services.battle_resolver_set(
        campaign=a.viewer.campaign,
        battle=a.battle,
        user=a.viewer.user,
        version=version,
        resolver=data["resolver"],
        auto_at_deadline=data["auto_at_deadline"],
    )
    return _("The resolver of battle %(battle)s is saved.")


@_action
def result_auto(a: Asked) -> str | None:
    refusal = _("Only the game master can auto-resolve a battle.")
    version = a.version(a.rights.can_set_resolver, refusal)
    services.battle_auto_resolve(
        campaign=a.viewer.campaign, battle=a.battle, user=a.viewer.user, version=version
    )
    return _("The tactical engine fought battle %(battle)s: its result is settled.")


@_action
def result_photo(a: Asked) -> str | None:
    """A photo leaves the result as it is: it is added whatever version the page showed."""
    if not a.rights.can_add_photo:
        raise NotAllowed(_("Only the players of the battle and the game master add photos."))
    data = _valid(PhotoForm(a.request.POST, a.request.FILES), a.extra, "photo_form")
    if data is None:
        return None
    services.battle_photo_add(
        campaign=a.viewer.campaign,
        battle=a.battle,
        user=a.viewer.user,
        file=data["photo"],
        caption=data["caption"],
    )
    return _("The photo is added to battle %(battle)s.")


def result_page_checked(
    request: HttpRequest,
    viewer: Viewer,
    battle: Battle,
    form: BattleResultForm,
    extra: dict[str, Any],
    status: int,
) -> HttpResponse:
    """The page with a result form the user filled in, checked, with `extra` (a refusal):
    an amendment refused shows it this way (`campaign.turns.amend_views`)."""
    rights = battle_rights_for_viewer(battle=battle, viewer=viewer)
    roster = battle_roster_get(battle=battle)
    check = battle_result_check(roster=roster, data=form.result_data())
    form.add_service_errors(check.errors)
    context = _context(viewer, battle, rights, roster, form, check) | extra
    return render(request, TEMPLATE, context | odds_context(viewer, battle), status=status)


def _again(
    request: HttpRequest, viewer: Viewer, battle: Battle, extra: dict[str, Any], status: int
) -> HttpResponse:
    """The page again after a refused action, with what the user typed in that action's form."""
    battle.refresh_from_db()
    rights = battle_rights_for_viewer(battle=battle, viewer=viewer)
    roster = battle_roster_get(battle=battle)
    form = BattleResultForm(initial=_initial(battle), roster=roster)
    check = _stored_check(battle, roster)
    context = _context(viewer, battle, rights, roster, form, check) | extra
    context |= odds_context(viewer, battle)
    return render(request, TEMPLATE, context, status=status)


# --- what the page shows ---------------------------------------------------------------------


def _stored_check(battle: Battle, roster: Roster) -> ResultCheck | None:
    """The stored result read back: its totals and outcome, for the page."""
    if not battle.result:
        return None
    return battle_result_check(roster=roster, data=battle.result)


def _initial(battle: Battle) -> dict[str, Any]:
    return {**BattleResultForm.initial_from(battle.result), "report_text": battle.report_text}


def _tables(
    form: BattleResultForm, roster: Roster, check: ResultCheck | None
) -> list[dict[str, Any]]:
    """Per side: each unit with its four count fields, figures left and row errors; each
    general and character with its fate field; the side's totals."""
    tables = []
    for side in roster.sides:
        units = [
            {
                "unit": u,
                "fields": [form[unit_field(u.id, w)] for w in COUNTS],
                "left": check.unit_left.get(u.id, u.figures) if check else u.figures,
                "errors": form.row_errors.get(u.id, []),
            }
            for u in side.units
        ]
        people = [{"person": p, "field": form[person_field(p.id)]} for p in side.people]
        tables.append(
            {
                "side": side,
                "units": units,
                "people": people,
                "totals": check.totals.get(side.key) if check else None,
                "points_field": form[points_field(side.key)]
                if points_field(side.key) in form.fields
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
    check: ResultCheck | None,
) -> dict[str, Any]:
    campaign = viewer.campaign
    editing = rights.can_enter or rights.can_override or rights.can_amend
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
        "urls": {
            **{
                name: reverse(f"battles:result-{ACTIONS[name]}", args=[campaign.slug, battle.key])
                for name in ACTIONS
            },
            "amend": reverse("campaign:amend-result", args=[campaign.slug, battle.key]),
        },
        "oob": False,
        # who reads the GM's reason (and what he corrects): the sides that saw the battle
        "amend_readers": readers_of_result(campaign, battle_sides(battle))
        if rights.can_amend
        else "",
        "version": battle.result_version,  # what the forms were rendered from (battles.stale)
        "version_field": VERSION_FIELD,
    }
