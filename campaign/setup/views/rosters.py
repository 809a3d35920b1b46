"""Rosters (R2.5) and their placement (R2.6): an army's forces, and one force's page with
its order and square, its commands with their units, and its characters. One view per page
and one per POST action; each change is checked against R2.5 and R2.6 and refused beside its
field."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from campaign import adapters
from campaign.access import HtmxHttpRequest, NotAllowed, Viewer, campaign_viewer
from campaign.errors import ServiceError
from campaign.keys import key_asked
from campaign.models import Campaign, Command, Force, Holding, Individual, Player, Unit
from campaign.setup import rosters
from campaign.setup.force_problems import force_problem_texts
from campaign.setup.forms import CommandForm, ForceForm, IndividualForm, NewUnitForm, UnitForm
from campaign.setup.views.pages import bound_data, page, refusal_show, require_setup
from campaign.text import labels

FORCE_TEMPLATE = "campaign/setup_force.html"

# --- an army's roster ------------------------------------------------------------------------


def _roster_player(viewer: Viewer, key: str | None) -> Player:
    """Whose roster the viewer may open: the GM any army's, a player only his own."""
    if viewer.is_gm:
        players = Player.objects.filter(campaign=viewer.campaign)
        player = players.filter(key=key).first() if key else players.first()
        if player is None:
            raise Http404("No such army.")
        return player
    if viewer.is_player and viewer.player is not None:
        if key and key != viewer.player.key:
            raise NotAllowed(_("You can open only your own roster."))
        return viewer.player
    raise NotAllowed(_("Only players keep rosters."))


def _force_summaries(campaign: Campaign, forces: Iterable[Force]) -> list[dict[str, Any]]:
    state = adapters.state_load(campaign=campaign)
    out = []
    for f in forces:
        rf = state.force(f.key)
        out.append(
            {
                "force": f,
                "state": rf,
                "status": labels.label(labels.STATUS, rf.status),
                "problems": force_problem_texts(rf) + rosters.placement_problems(state, rf),
            }
        )
    return out


def roster(request: HttpRequest, slug: str) -> HttpResponse:
    """An army's forces (R2.5) and a form for a new force with its first command."""
    viewer = campaign_viewer(request, slug)
    campaign = viewer.campaign
    if viewer.is_gm and not Player.objects.filter(campaign=campaign).exists():
        messages.info(request, _("Create the armies first."))
        return redirect("campaign:setup-players", campaign.slug)
    player = _roster_player(
        viewer, key_asked(request.GET.get("player") or request.POST.get("player"))
    )
    editable = campaign.setup_open
    home = (
        Holding.objects.filter(campaign=campaign, owner=player)
        .order_by("-capital", "position")
        .first()
    )
    force_form = ForceForm(
        bound_data(request),
        initial={"x": home.x, "y": home.y, "status": "defend"} if home else {"status": "defend"},
    )
    command_form = CommandForm(bound_data(request))
    unit_form = UnitForm(bound_data(request), prefix="unit")
    status = 200
    if request.method == "POST":
        require_setup(viewer)
        if all([force_form.is_valid(), command_form.is_valid(), unit_form.is_valid()]):
            f = force_form.cleaned_data
            try:
                force = rosters.force_create(
                    player=player,
                    name=f["name"],
                    x=f["x"],
                    y=f["y"],
                    status=f["status"],
                    general=command_form.cleaned_data,
                    unit=unit_form.cleaned_data,
                )
            except ServiceError as e:
                refusal_show(request, e, force_form, command_form, unit_form)
            else:
                messages.success(
                    request, _("Force %(name)s created.") % {"name": force.name or force.key}
                )
                return redirect("campaign:roster-force", campaign.slug, force.key)
        status = 400
    forces = Force.objects.filter(campaign=campaign, owner=player)
    summaries = _force_summaries(campaign, forces)
    points = sum(s["state"].points for s in summaries)
    context = page(
        viewer,
        _("Roster of %(army)s") % {"army": player.name},
        player=player,
        players=Player.objects.filter(campaign=campaign) if viewer.is_gm else [],
        summaries=summaries,
        points=points,
        over_budget=bool(player.initial_points) and points > player.initial_points,
        editable=editable,
        force_form=force_form,
        command_form=command_form,
        unit_form=unit_form,
        holdings=Holding.objects.filter(campaign=campaign, owner__side=player.side),
    )
    return render(request, "campaign/roster.html", context, status=status)


def _labelled_units(command: Command) -> list[Unit]:
    units = list(command.units.all())
    for u in units:
        row = cast(Any, u)  # the template reads these names beside the unit's fields
        row.speciality_label = labels.label(labels.SPECIALITY, u.speciality)
        row.quality_label = labels.label(labels.QUALITY, u.quality)
    return units


def _item(force: Force, item: str) -> Command | Unit | Individual | None:
    """The command, unit or individual of `force` with key `item`, or None."""
    if not item:
        return None
    return (
        Command.objects.filter(force=force, key=item).first()
        or Unit.objects.filter(command__force=force, key=item).select_related("command").first()
        or Individual.objects.filter(force=force, key=item).first()
    )


# --- one force -------------------------------------------------------------------------------


@dataclass
class ForceForms:
    """Every form of the force page; those of the action being carried out are bound to its
    POST (`active`), the edit panel holds the form of the item being edited."""

    force_form: ForceForm
    new_command: CommandForm
    new_command_unit: UnitForm
    new_unit: NewUnitForm
    new_individual: IndividualForm
    editing: Command | Unit | Individual | None = None
    edit_form: forms.Form | None = None
    active: list[forms.Form] = field(default_factory=list)

    @property
    def edit_kind(self) -> str:
        return type(self.editing).__name__.lower() if self.edit_form is not None else ""

    def context(self) -> dict[str, Any]:
        return {
            "force_form": self.force_form,
            "new_command": self.new_command,
            "new_command_unit": self.new_command_unit,
            "new_unit": self.new_unit,
            "new_individual": self.new_individual,
            "editing": self.editing,
            "edit_kind": self.edit_kind,
            "edit_form": self.edit_form,
        }


EDIT_FORMS: dict[type, tuple[type[forms.Form], tuple[str, ...]]] = {
    Command: (CommandForm, rosters.GENERAL_FIELDS),
    Unit: (UnitForm, rosters.UNIT_FIELDS),
    Individual: (IndividualForm, rosters.INDIVIDUAL_FIELDS),
}


def _force_forms(
    force: Force, commands: list[Command], item: str = "", post: Mapping[str, Any] | None = None
) -> ForceForms:
    """The force page's forms; with `post`, the form(s) of the action are bound to it by the
    view that binds them (see the action views)."""
    editing = _item(force, item)
    edit_form = None
    if editing is not None:
        form_class, names = EDIT_FORMS[type(editing)]
        edit_form = form_class(post, prefix="edit", initial={f: getattr(editing, f) for f in names})
    return ForceForms(
        force_form=ForceForm(
            generals=commands,
            naval=adapters.options_of(force.campaign).naval_movement,
            initial={
                "name": force.name,
                "x": force.x,
                "y": force.y,
                "status": force.status,
                "leader": force.leader_key,
                "ships": force.ships,
                "sea_folk": force.sea_folk,
                "boats": force.boats,
                "rafts": force.rafts,
            },
        ),
        new_command=CommandForm(prefix="command"),
        new_command_unit=UnitForm(prefix="command-unit"),
        new_unit=NewUnitForm(prefix="unit", commands=commands),
        new_individual=IndividualForm(prefix="individual"),
        editing=editing,
        edit_form=edit_form,
    )


def _viewer_force(request: HttpRequest, slug: str, key: str) -> tuple[Viewer, Force]:
    """The force `key` if the viewer may open it: the GM any, a player only his own (another
    army's force answers like a missing one: its existence is not revealed)."""
    viewer = campaign_viewer(request, slug)
    forces = Force.objects.select_related("owner").filter(campaign=viewer.campaign)
    if not viewer.is_gm:
        if not viewer.is_player:
            raise NotAllowed(_("You can open only your own forces."))
        forces = forces.filter(owner=viewer.player)
    return viewer, get_object_or_404(forces, key=key)


def _force_page(
    request: HtmxHttpRequest, viewer: Viewer, force: Force, forms_: ForceForms, *, status: int = 200
) -> HttpResponse:
    campaign = viewer.campaign
    commands = list(force.commands.prefetch_related("units"))
    (summary,) = _force_summaries(campaign, [force])
    individuals = list(force.individuals.all())
    for i in individuals:
        # the template reads the name beside the character's fields
        cast(Any, i).kind_label = labels.label(labels.INDIVIDUAL_KIND, i.kind)
    context = page(
        viewer,
        _("Force %(name)s") % {"name": force.name or force.key},
        force=force,
        summary=summary,
        commands=[{"command": c, "units": _labelled_units(c)} for c in commands],
        individuals=individuals,
        editable=campaign.setup_open,
        edit_item=forms_.editing.key if forms_.editing is not None else "",
        **forms_.context(),
    )
    if request.htmx and request.method == "GET" and forms_.editing is not None:
        return render(request, f"{FORCE_TEMPLATE}#edit-panel", context)
    return render(request, FORCE_TEMPLATE, context, status=status)


@require_http_methods(["GET", "HEAD"])
def roster_force(request: HtmxHttpRequest, slug: str, key: str) -> HttpResponse:
    """One force: its order and square, its commands with their units, its individuals;
    `?edit=<item>` opens a command, unit or character in the edit panel."""
    viewer, force = _viewer_force(request, slug, key)
    commands = list(force.commands.prefetch_related("units"))
    return _force_page(
        request, viewer, force, _force_forms(force, commands, key_asked(request.GET.get("edit")))
    )


def _force_action(
    request: HtmxHttpRequest,
    slug: str,
    key: str,
    act: Callable[[Force, ForceForms], str | None],
    item: str = "",
) -> HttpResponse:
    """Carry out one action of the force page: `act(force, forms)` binds the forms it needs
    (kept in `forms.active`, to show their errors) and says what was done, or None when a
    form is invalid; a refusal goes beside its field."""
    viewer, force = _viewer_force(request, slug, key)
    require_setup(viewer)
    commands = list(force.commands.prefetch_related("units"))
    forms_ = _force_forms(force, commands, item, request.POST)
    try:
        done = act(force, forms_)
    except ServiceError as e:
        refusal_show(request, e, *(forms_.active or [forms_.force_form]))
        done = None
    if not done:
        return _force_page(request, viewer, force, forms_, status=400)
    messages.success(request, done)
    return redirect("campaign:roster-force", viewer.campaign.slug, force.key)


@require_POST
def roster_force_save(request: HtmxHttpRequest, slug: str, key: str) -> HttpResponse:
    def act(force: Force, forms_: ForceForms) -> str | None:
        form = forms_.force_form = ForceForm(
            request.POST,
            generals=list(force.commands.all()),
            naval=adapters.options_of(force.campaign).naval_movement,
        )
        forms_.active = [form]
        if not form.is_valid():
            return None
        d = form.cleaned_data
        rosters.force_update(
            force=force,
            name=d["name"],
            x=d["x"],
            y=d["y"],
            status=d["status"],
            leader_key=d.get("leader", ""),
            ships=d.get("ships"),
            sea_folk=d.get("sea_folk") if "sea_folk" in form.fields else None,
            boats=d.get("boats"),
            rafts=d.get("rafts"),
        )
        return _("Force saved.")

    return _force_action(request, slug, key, act)


@require_POST
def roster_force_delete(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    viewer, force = _viewer_force(request, slug, key)
    require_setup(viewer)
    try:
        rosters.force_delete(force=force)
    except ServiceError as e:
        messages.error(request, str(e))
        return redirect("campaign:roster-force", viewer.campaign.slug, force.key)
    messages.success(request, _("Force deleted."))
    return HttpResponseRedirect(
        reverse("campaign:roster", args=[viewer.campaign.slug])
        + (f"?player={force.owner.key}" if viewer.is_gm else "")
    )


@require_POST
def roster_command_add(request: HtmxHttpRequest, slug: str, key: str) -> HttpResponse:
    def act(force: Force, forms_: ForceForms) -> str | None:
        general = forms_.new_command = CommandForm(request.POST, prefix="command")
        unit = forms_.new_command_unit = UnitForm(request.POST, prefix="command-unit")
        forms_.active = [general, unit]
        if not all([general.is_valid(), unit.is_valid()]):
            return None
        rosters.command_create(force=force, general=general.cleaned_data, unit=unit.cleaned_data)
        return _("Command added.")

    return _force_action(request, slug, key, act)


@require_POST
def roster_unit_add(request: HtmxHttpRequest, slug: str, key: str) -> HttpResponse:
    def act(force: Force, forms_: ForceForms) -> str | None:
        form = forms_.new_unit = NewUnitForm(
            request.POST, prefix="unit", commands=list(force.commands.all())
        )
        forms_.active = [form]
        if not form.is_valid():
            return None
        d = dict(form.cleaned_data)
        command = get_object_or_404(Command, force=force, key=d.pop("command"))
        rosters.unit_create(command=command, **d)
        return _("Unit added.")

    return _force_action(request, slug, key, act)


@require_POST
def roster_character_add(request: HtmxHttpRequest, slug: str, key: str) -> HttpResponse:
    def act(force: Force, forms_: ForceForms) -> str | None:
        form = forms_.new_individual = IndividualForm(request.POST, prefix="individual")
        forms_.active = [form]
        if not form.is_valid():
            return None
        rosters.individual_create(force=force, **form.cleaned_data)
        return _("Character added.")

    return _force_action(request, slug, key, act)


# the services that change or remove a command, unit or character, by its model
ITEM_UPDATE: dict[type, Callable[..., Any]] = {
    Command: lambda item, data: rosters.command_update(command=item, **data),
    Unit: lambda item, data: rosters.unit_update(unit=item, **data),
    Individual: lambda item, data: rosters.individual_update(individual=item, **data),
}
ITEM_DELETE: dict[type, Callable[..., Any]] = {
    Command: lambda item: rosters.command_delete(command=item),
    Unit: lambda item: rosters.unit_delete(unit=item),
    Individual: lambda item: rosters.individual_delete(individual=item),
}


@require_POST
def roster_item_save(request: HtmxHttpRequest, slug: str, key: str, item: str) -> HttpResponse:
    """Save the command, unit or character `item` of the force from the edit panel."""

    def act(force: Force, forms_: ForceForms) -> str | None:
        if forms_.editing is None or forms_.edit_form is None:
            raise Http404("No such item in this force.")
        forms_.active = [forms_.edit_form]
        if not forms_.edit_form.is_valid():
            return None
        ITEM_UPDATE[type(forms_.editing)](forms_.editing, forms_.edit_form.cleaned_data)
        return _("Saved.")

    return _force_action(request, slug, key, act, item)


@require_POST
def roster_item_delete(request: HtmxHttpRequest, slug: str, key: str, item: str) -> HttpResponse:
    """Remove the command, unit or character `item` of the force."""

    def act(force: Force, forms_: ForceForms) -> str | None:
        if forms_.editing is None:
            raise Http404("No such item in this force.")
        forms_.active = [forms_.edit_form] if forms_.edit_form is not None else []
        ITEM_DELETE[type(forms_.editing)](forms_.editing)
        return _("Removed.")

    return _force_action(request, slug, key, act, item)


@require_POST
def roster_ready(request: HttpRequest, slug: str) -> HttpResponse:
    """The player marks his army's roster ready for the start (`ready=1`), or takes it back."""
    viewer = campaign_viewer(request, slug)
    if not viewer.is_player or viewer.player is None:
        raise NotAllowed(_("Only the army's player marks its roster ready."))
    ready = request.POST.get("ready") == "1"
    try:
        rosters.roster_ready_set(player=viewer.player, ready=ready)
    except ServiceError as e:
        for message in e.messages:
            messages.error(request, message)
    else:
        messages.success(
            request,
            _("Your roster is marked ready: the game master can start the campaign.")
            if ready
            else _("Your roster is open again: mark it ready when you are done."),
        )
    return redirect("campaign:roster", viewer.campaign.slug)
