"""The GM's amendment pages (`campaign.turns.amend`): amend a battle's result from its result
page, amend a turn (a player's orders, the options in force, or a rollback to its start) from
the turn's report, read the preview and commit or discard it, the audit log, and the lines of
turns amendments replaced. Everything here is the GM's: anyone else gets 403."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from battles.forms import BattleResultForm
from battles.models import Battle
from battles.roster import battle_roster_get
from battles.views.result import result_page_checked, result_preview
from campaign import adapters
from campaign.access import HtmxHttpRequest, Viewer, campaign_viewer, require_gm
from campaign.amendments import amendment_title, diff_lines, readers_of_turn
from campaign.errors import ServiceError
from campaign.json_input import JsonRefused, json_parse
from campaign.models import Amendment, AuditEntry, LineArchive, Side, Turn, TurnResolution
from campaign.text.labels import battle_number
from campaign.text.names import Names
from campaign.text.sentences import event_sentence
from campaign.text_input import TextField
from campaign.turns import amend
from rules import to_data


def _gm(request: HttpRequest, slug: str) -> Viewer:
    viewer = campaign_viewer(request, slug)
    require_gm(viewer)
    return viewer


def _amendment(viewer: Viewer, number: int) -> Amendment:
    a = Amendment.objects.filter(campaign=viewer.campaign, number=number).first()
    if a is None:
        raise Http404("No such amendment.")
    return a


def _done(request: HttpRequest, viewer: Viewer, a: Amendment) -> HttpResponse:
    return redirect("campaign:amendment", viewer.campaign.slug, a.number)


# --- amending a battle's result (from the battle's result page) -------------------------------


@require_POST
def amend_result(request: HtmxHttpRequest, slug: str, battle: str) -> HttpResponse:
    if request.htmx:
        # the result form's live check: once a button with a `formaction` was clicked, htmx
        # sends the form's own requests there too; it is a check, and drafts nothing
        return result_preview(request, slug, battle)
    viewer = _gm(request, slug)
    row = Battle.objects.filter(campaign=viewer.campaign, key=battle).select_related("turn")
    fought = row.first()
    if fought is None:
        raise Http404("No such battle.")
    form = BattleResultForm(request.POST, roster=battle_roster_get(battle=fought))
    form.is_valid()
    reason = request.POST.get("reason", "")
    extra: dict[str, Any] = {"reason": reason}
    try:
        a = amend.amendment_preview(
            campaign=viewer.campaign,
            user=viewer.user,
            kind=Amendment.Kind.RESULT,
            turn_number=fought.turn.number,
            target=fought.key,
            data=form.result_data(),
            reason=reason,
        )
    except ServiceError as e:
        fields = e.field_messages if hasattr(e, "error_dict") else {}
        if amend.REASON_FIELD in fields:
            extra["reason_errors"] = fields.pop(amend.REASON_FIELD)
        form.add_service_errors(fields)
        if not fields and "reason_errors" not in extra:
            extra["refusal"] = str(e.messages[0])
        return result_page_checked(request, viewer, fought, form, extra, 400)
    return _done(request, viewer, a)


# --- amending a turn (from its report) ---------------------------------------------------------

AMEND_JSON_MAX = 1_000_000  # characters: the orders of a large army, pretty-printed, fit


class TurnAmendForm(forms.Form):
    KINDS = [
        (
            Amendment.Kind.ROLLBACK.value,
            gettext_lazy("Roll the campaign back to the start of this turn"),
        ),
        (Amendment.Kind.ORDERS.value, gettext_lazy("Correct a player's orders for this turn")),
        (Amendment.Kind.OPTIONS.value, gettext_lazy("Correct the campaign options in force")),
    ]
    kind = forms.ChoiceField(
        label=gettext_lazy("What to amend"), choices=KINDS, widget=forms.RadioSelect
    )
    player = forms.ChoiceField(label=gettext_lazy("Whose orders"), required=False)
    orders = TextField(
        label=gettext_lazy("His orders as they should have been (JSON)"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 14, "spellcheck": "false", "class": "json"}),
        help_text=gettext_lazy(
            "Prefilled with the orders the turn used; the format is docs/state-format.md's."
        ),
    )
    options = TextField(
        label=gettext_lazy("The options as they should have been (JSON)"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 14, "spellcheck": "false", "class": "json"}),
        help_text=gettext_lazy("Prefilled with the options in force on the turn."),
    )
    reason = TextField(
        label=gettext_lazy("Why (the audit log and the players read it)"),
        widget=forms.Textarea(attrs={"rows": 2}),
    )

    def __init__(self, *args: Any, players: list[tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        player = self.fields["player"]
        assert isinstance(player, forms.ChoiceField)
        player.choices = players

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        kind = data.get("kind")
        if kind == Amendment.Kind.ORDERS and not data.get("player"):
            self.add_error("player", _("Choose whose orders to correct."))
        field = {"orders": "orders", "options": "options"}.get(str(kind))
        if field is not None:
            try:
                data["parsed"] = json_parse(data.get(field) or "", max_chars=AMEND_JSON_MAX)
            except JsonRefused as e:
                self.add_error(field, e.message)
        return data


def _turn_inputs(turn: Turn) -> dict[str, Any]:
    """What the turn's Phases 0–2 used: each player's orders and the options in force."""
    row = turn.resolutions.filter(stage="turn").first()
    if row is None:
        return {"orders": {}, "options": None}
    state = adapters.state_before(row)
    return {"orders": row.inputs, "options": to_data(state.options)}


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False)


@never_cache
@require_http_methods(["GET", "POST"])
def amend_turn(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """The turn's amendments; `?player=` chooses whose orders the form shows."""
    viewer = _gm(request, slug)
    turn = Turn.objects.filter(campaign=viewer.campaign, number=number).first()
    if turn is None or not turn.resolved:
        raise Http404("No such resolved turn.")
    used = _turn_inputs(turn)
    players = [(p.key, p.name) for p in viewer.campaign.players.all()]
    chosen = request.GET.get("player") or (players[0][0] if players else "")
    if chosen not in dict(players):
        chosen = players[0][0] if players else ""
    status, refusal = 200, ""
    if request.method == "POST":
        form = TurnAmendForm(request.POST, players=players)
        if form.is_valid():
            d = form.cleaned_data
            try:
                a = amend.amendment_preview(
                    campaign=viewer.campaign,
                    user=viewer.user,
                    kind=d["kind"],
                    turn_number=turn.number,
                    target=d["player"] if d["kind"] == Amendment.Kind.ORDERS else "",
                    data=d.get("parsed"),
                    reason=d["reason"],
                )
                return _done(request, viewer, a)
            except ServiceError as e:
                refusal = _form_refused(form, d["kind"], e)
        status = 400
    else:
        kind = Amendment.Kind.ORDERS.value if "player" in request.GET else ""
        form = TurnAmendForm(
            players=players,
            initial={
                "kind": kind or Amendment.Kind.ROLLBACK.value,
                "player": chosen,
                "orders": _pretty(used["orders"].get(chosen, {})),
                "options": _pretty(used["options"]),
            },
        )
    context = {
        "campaign": viewer.campaign,
        "viewer": viewer,
        "turn": turn,
        "form": form,
        "refusal": refusal,
        "players": players,
        "chosen": chosen,
        "readers": readers_of_turn(viewer.campaign),
    }
    return render(request, "campaign/amend_turn.html", context, status=status)


def _form_refused(form: TurnAmendForm, kind: str, e: ServiceError) -> str:
    """The service's refusal on the form: beside its field, or above it (returned)."""
    fields = e.field_messages if hasattr(e, "error_dict") else {}
    if not fields:
        return str(e.messages[0])
    beside = {"orders": "orders", "options": "options", amend.REASON_FIELD: "reason"}
    for field, msgs in fields.items():
        for m in msgs:
            form.add_error(beside.get(field, "orders" if kind == "orders" else "options"), m)
    return ""


# --- the preview, commit and discard -------------------------------------------------------------


@never_cache
@require_GET
def amendment(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    viewer = _gm(request, slug)
    a = _amendment(viewer, number)
    players = {p.key: p.name for p in viewer.campaign.players.all()}
    preview = a.preview or {}
    context = {
        "campaign": viewer.campaign,
        "viewer": viewer,
        "a": a,
        "title": amendment_title(a, players),
        "changes": diff_lines(preview.get("diff", []), players),
        "notes": [_note_text(n) for n in preview.get("notes", [])],
        "open_turn": preview.get("open_turn"),
        "ended": preview.get("ended"),
        "archive": LineArchive.objects.filter(amendment=a).only("pk", "from_turn").first(),
    }
    return render(request, "campaign/amendment.html", context)


def _note_text(n: dict[str, Any]) -> str:
    values = {"turn": n["turn"], "subject": n["subject"], "player": n["player"], "why": n["detail"]}
    if n["kind"] == "orders-dropped":
        return (
            _(
                "Turn %(turn)s: the orders of %(player)s for %(subject)s no longer fit (%(why)s): "
                "the force holds, as without orders."
            )
            % values
        )
    values["subject"] = battle_number(n["subject"])
    if n["kind"] == "result-changed-battle":
        return (
            _(
                "Turn %(turn)s: battle %(subject)s is fought by other troops than before; its "
                "result is kept as it was entered. Amend it afterwards if it no longer makes sense."
            )
            % values
        )
    if n["detail"]:
        return (
            _(
                "Turn %(turn)s: the result of battle %(subject)s no longer fits (%(why)s): the "
                "tactical engine fights it, with the dice an auto-resolve uses."
            )
            % values
        )
    return (
        _(
            "Turn %(turn)s: battle %(subject)s is new: the tactical engine fights it, with the "
            "dice an auto-resolve uses (amend its result afterwards if it was fought at the table)."
        )
        % values
    )


@require_POST
def amendment_commit(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    viewer = _gm(request, slug)
    a = _amendment(viewer, number)
    try:
        amend.amendment_commit(amendment=a, user=viewer.user)
    except ServiceError as e:
        messages.error(request, str(e.messages[0]))
        return _done(request, viewer, a)
    messages.success(
        request,
        _(
            "Amendment %(n)s is committed: the campaign follows the corrected line, and the "
            "players are told what changed for them."
        )
        % {"n": a.number},
    )
    return _done(request, viewer, a)


@require_POST
def amendment_discard(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    viewer = _gm(request, slug)
    a = _amendment(viewer, number)
    try:
        number = amend.amendment_discard(amendment=a, user=viewer.user)
    except ServiceError as e:
        messages.error(request, str(e.messages[0]))
        return _done(request, viewer, a)
    messages.success(request, _("Amendment %(n)s is discarded: nothing changed.") % {"n": number})
    return redirect("campaign:audit", viewer.campaign.slug)


# --- the audit log and the replaced lines -------------------------------------------------------


@never_cache
@require_GET
def audit(request: HttpRequest, slug: str) -> HttpResponse:
    viewer = _gm(request, slug)
    entries = [
        {"entry": e, "detail": _audit_detail(e)}
        for e in AuditEntry.objects.filter(campaign=viewer.campaign).select_related(
            "user", "amendment"
        )
    ]
    amendments = viewer.campaign.amendments.select_related("created_by").order_by("-number")
    names = {p.key: p.name for p in viewer.campaign.players.all()}
    context = {
        "campaign": viewer.campaign,
        "viewer": viewer,
        "entries": entries,
        "amendments": [(a, amendment_title(a, names)) for a in amendments],
    }
    return render(request, "campaign/audit.html", context)


def _audit_detail(e: AuditEntry) -> str:
    c = e.changes if isinstance(e.changes, dict) else {}
    if e.amendment is not None:
        return _(
            "Amendment %(n)s: %(forces)s changes to forces, %(battles)s to battles, "
            "%(holdings)s to holdings."
        ) % {
            "n": e.amendment.number,
            "forces": c.get("forces", 0),
            "battles": c.get("battles", 0),
            "holdings": c.get("holdings", 0),
        }
    if e.action == AuditEntry.Action.OVERRIDDEN:
        return _("Battle %(battle)s, settled with the result given.") % {
            "battle": battle_number(c.get("battle", ""))
        }
    why = c.get("interrupted", "")
    label = Turn.Interruption(why).label if why in Turn.Interruption.values else why
    status = c.get("status", "")
    stage = Turn.Status(status).label if status in Turn.Status.values else status
    return _("%(stage)s stopped: %(why)s. The turn waits for the game master to retry.") % {
        "stage": stage,
        "why": label,
    }


@never_cache
@require_GET
def amendment_line(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """The line of turns an amendment replaced, as the turn reports told it."""
    viewer = _gm(request, slug)
    a = _amendment(viewer, number)
    archive = LineArchive.objects.filter(amendment=a).first()
    if archive is None:
        raise Http404("This amendment replaced nothing.")
    if request.GET.get("format") == "json":
        response = JsonResponse(archive.data, json_dumps_params={"indent": 1, "sort_keys": True})
        name = f"{viewer.campaign.slug}-amendment-{a.number}-replaced-line.json"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response
    sides = dict(Side.objects.filter(campaign=viewer.campaign).values_list("key", "name"))
    turns = []
    for t in archive.data.get("turns", []):
        stages = []
        rs = t.get("resolutions", [])
        for i, r in enumerate(rs):
            before = adapters.state_from_data(r["state_before"])
            nxt = rs[i + 1]["state_before"] if i + 1 < len(rs) else None
            states = (before, adapters.state_from_data(nxt)) if nxt else (before,)
            names = Names(states, sides=sides, everything=True)
            stages.append(
                {
                    "label": TurnResolution.Stage(r["stage"]).label,
                    "events": [event_sentence(e, names) for e in r.get("events", [])],
                }
            )
        turns.append({"number": t["number"], "seed": t.get("seed"), "stages": stages})
    context = {
        "campaign": viewer.campaign,
        "viewer": viewer,
        "a": a,
        "title": amendment_title(a),
        "archive": archive,
        "turns": turns,
        "battles": archive.data.get("battles", []),
    }
    return render(request, "campaign/amendment_line.html", context)
