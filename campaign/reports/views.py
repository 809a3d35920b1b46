"""The turn report with its dice ledger and replay check, and the GM inbox.

What each viewer may see is decided in `campaign.reports` (through `campaign.fog`); these
views only ask who is asking and render what it returns.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from battles.models import Battle
from battles.selectors import battle_items_for_inbox
from campaign.access import HtmxHttpRequest, Viewer, campaign_viewer, require_gm
from campaign.amendments import amendment_title
from campaign.fog import amendment_readers
from campaign.models import Amendment, Turn
from campaign.reports.ending import ending_get
from campaign.reports.inbox import inbox_get
from campaign.reports.turn_report import ReplayCheck, turn_replay_for_viewer, turn_report_get


@never_cache
@require_GET
def report(request: HtmxHttpRequest, slug: str, number: int) -> HttpResponse:
    """The narrative and dice ledger of one turn; `?phase=` filters the ledger (htmx swaps
    only the ledger)."""
    viewer = campaign_viewer(request, slug)
    turn = Turn.objects.filter(campaign=viewer.campaign, number=number).first()
    if turn is None:
        # the navigation links the campaign's turn number, which runs one past the last turn
        # once the campaign has ended
        latest = viewer.campaign.turns.order_by("-number").first()
        if latest is None or number != viewer.campaign.turn_number:
            raise Http404("No such turn.")
        return redirect("campaign:report", slug, latest.number)
    context = _report_context(request, viewer, turn)
    if request.htmx and request.htmx.target == "ledger":
        return render(request, "campaign/report.html#ledger", context)
    return render(request, "campaign/report.html", context)


@require_GET
def report_latest(request: HttpRequest, slug: str) -> HttpResponse:
    """The report the navigation's "Turn report" opens: the last resolved turn's (the
    current one is still empty), or the current turn's before any is resolved."""
    viewer = campaign_viewer(request, slug)
    turns = viewer.campaign.turns.order_by("-number")
    latest = turns.filter(status=Turn.Status.RESOLVED).first() or turns.first()
    if latest is None:
        raise Http404("No turn yet.")
    return redirect("campaign:report", slug, latest.number)


@never_cache
@require_POST
def replay(request: HtmxHttpRequest, slug: str, number: int) -> HttpResponse:
    """Re-run a resolved turn from its stored inputs and seed and compare it with what was
    stored: any member may run this check."""
    viewer = campaign_viewer(request, slug)
    turn = get_object_or_404(Turn, campaign=viewer.campaign, number=number)
    check: ReplayCheck | None = None
    refused = ""
    if turn.resolved:
        check = turn_replay_for_viewer(turn=turn, viewer=viewer)
    else:
        refused = _("A turn can be replayed once it is resolved.")
    if request.htmx:  # htmx swaps only 2xx answers: the refusal is shown in place
        context = {"campaign": viewer.campaign, "turn": turn, "check": check, "refused": refused}
        return render(request, "campaign/report.html#replay-result", context)
    context = _report_context(request, viewer, turn) | {"check": check, "refused": refused}
    return render(request, "campaign/report.html", context, status=409 if refused else 200)


@never_cache
@require_GET
def inbox(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """For the GM: everything that holds up the current turn, each with a link to where it is
    settled."""
    viewer = campaign_viewer(request, slug)
    require_gm(viewer)
    box = inbox_get(campaign=viewer.campaign)
    overview = reverse("campaign:detail", args=[viewer.campaign.slug])
    # the battles' own items (disputed, awaiting confirmation, no result) replace the plain
    # "no result yet" ones, and link to the result page besides the battle
    battle_items = battle_items_for_inbox(campaign=viewer.campaign, turn=box.turn)
    covered = {i.battle.pk for i in battle_items}
    items = [
        {
            "item": i,
            "url": _battle_url(i.battle),
            "link": _("Open the battle"),
            "result_url": reverse("battles:result", args=[viewer.campaign.slug, i.battle.key]),
        }
        for i in battle_items
    ] + [
        {
            "item": item,
            "url": _battle_url(item.battle) if item.battle is not None else overview,
            "link": _("Open the battle") if item.battle is not None else _("Open the overview"),
        }
        for item in box.items
        if not (item.kind == "battle-pending" and item.battle and item.battle.pk in covered)
    ]
    context = {"campaign": viewer.campaign, "viewer": viewer, "inbox": box, "items": items}
    if request.htmx:
        return render(request, "campaign/inbox.html#inbox-items", context)
    return render(request, "campaign/inbox.html", context)


LEDGER_PAGE = 100  # rolls a page of the ledger shows: a big turn has thousands


def _report_context(request: HttpRequest, viewer: Viewer, turn: Turn) -> dict[str, Any]:
    report = turn_report_get(turn=turn, viewer=viewer)
    phases = dict(report.phases)
    phase = request.GET.get("phase", "")
    if phase not in phases:
        phase = ""
    total = len(report.entries_in(phase))
    raw = request.GET.get("from", "")
    start = int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 9 else 0
    start = start - start % LEDGER_PAGE if start < total else 0
    rolls = report.rolls_in(phase, start, LEDGER_PAGE)
    return {
        "campaign": viewer.campaign,
        "viewer": viewer,
        "turn": turn,
        "turns": list(viewer.campaign.turns.order_by("number").only("number", "status")),
        "report": report,
        "phases": report.phases,
        "phase": phase,
        "rolls": rolls,
        "rolls_total": total,
        "rolls_first": start + 1,
        "rolls_last": start + len(rolls),
        "rolls_previous": max(0, start - LEDGER_PAGE) if start else None,
        "rolls_next": start + LEDGER_PAGE if start + LEDGER_PAGE < total else None,
        "resolved": turn.resolved,
        "amendments": _amendments_of(viewer, turn),
    }


def _amendments_of(viewer: Viewer, turn: Turn) -> list[dict[str, Any]]:
    """The committed amendments that made this turn what it is: one of it or of an earlier
    turn that replayed it, or a rollback to its start. What and why is read as far as the
    viewer's side saw what it corrects (`campaign.fog.amendment_readers`, as in his notice);
    the others read only that the game master amended an earlier turn. What changed is the
    GM's page, or each player's notice."""
    names = {p.key: p.name for p in viewer.campaign.players.all()}
    out = []
    for a in Amendment.objects.filter(
        campaign=viewer.campaign, status=Amendment.Status.COMMITTED, turn_number__lte=turn.number
    ).order_by("number"):
        last = (a.preview or {}).get("last_turn") or a.turn_number
        if a.kind == Amendment.Kind.ROLLBACK:
            if a.turn_number != turn.number:
                continue
        elif turn.number > last:
            continue
        if amendment_readers(a).include(viewer):
            out.append({"a": a, "title": amendment_title(a, names), "shown": True})
        else:  # its date and turn only (the turns it replayed are no secret), not its number
            out.append({"a": a, "title": "", "shown": False})
    return out


def _battle_url(battle: Battle) -> str:
    """The battle's page if the battles app has one, else its admin page."""
    for args in (
        (battle.campaign.slug, battle.key),
        (battle.campaign.slug, battle.pk),
        (battle.key,),
        (battle.pk,),
    ):
        try:
            return reverse("battles:detail", args=args)
        except NoReverseMatch:
            continue
    return reverse("admin:battles_battle_change", args=[battle.pk])


@require_GET
def end(request: HttpRequest, slug: str) -> HttpResponse:
    """The final page of an ended campaign: the winner, how, and the totals. Before the end
    it says the campaign is still running and links the overview."""
    viewer = campaign_viewer(request, slug)
    campaign = viewer.campaign
    context: dict[str, Any] = {"campaign": campaign, "viewer": viewer}
    if not campaign.ended:
        return render(request, "campaign/end.html", context, status=404)
    context["ending"] = ending_get(campaign=campaign)
    return render(request, "campaign/end.html", context)
