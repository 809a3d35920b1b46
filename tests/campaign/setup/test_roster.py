"""Rosters before the start: forces, commands, units and individuals, each save checked
against R2.5 (organisation) and R2.6 (initial order and placement), refusals put beside
their field and nothing written. Then the roster pages and who may open them."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from campaign import adapters
from campaign.errors import ServiceError
from campaign.models import Command, Force, Individual, Unit
from campaign.setup.base import SetupClosed
from campaign.setup.rosters import (
    command_create,
    command_delete,
    command_update,
    force_create,
    force_delete,
    force_update,
    individual_create,
    individual_delete,
    individual_update,
    unit_create,
    unit_delete,
    unit_update,
)
from campaign.setup.services import campaign_start, player_create
from rules.setup import validate_force_organisation
from tests.campaign.setup.test_setup import GENERAL, UNIT, World, make_world

pytestmark = pytest.mark.django_db

WIZARD = {"kind": "wizard", "name": "Gandalf", "points": 90, "magic_points": 25}


@pytest.fixture
def world(settings) -> World:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    return make_world()


def _force(world: World, **kwargs) -> Force:
    args = {"name": "Hammer", "x": 1, "y": 1, "status": "defend", "general": GENERAL, "unit": UNIT}
    return force_create(player=world.red, **{**args, **kwargs})


def _rules_force(world: World, force: Force):
    world.campaign.refresh_from_db()
    return adapters.state_load(campaign=world.campaign).force(force.key)


# --- keys and the state ----------------------------------------------------------------------


def test_a_new_force_is_a_valid_force_with_fresh_keys(world):
    f = _force(world)
    c = f.commands.get()
    u = c.units.get()
    assert re.fullmatch(r"f\d+", f.key)
    assert re.fullmatch(rf"{f.key}c\d+", c.key) and re.fullmatch(rf"{f.key}g\d+", c.general_key)
    assert re.fullmatch(rf"{f.key}u\d+", u.key)
    assert len({f.key, c.key, c.general_key, u.key}) == 4
    rf = _rules_force(world, f)
    assert validate_force_organisation(rf).valid
    assert (rf.owner, rf.square, rf.status.value, rf.cv) == ("red-dwarves", (1, 1), "defend", 4)
    assert rf.units[0].figures == 20 and rf.points == 100 + 20 * 8


def test_keys_never_repeat(world):
    f1, f2 = _force(world), _force(world, name="Anvil", x=2, y=2)
    command_create(force=f1, general=GENERAL, unit=UNIT)
    individual_create(force=f1, **WIZARD)
    keys = [
        *Force.objects.filter(campaign=world.campaign).values_list("key", flat=True),
        *Command.objects.filter(campaign=world.campaign).values_list("key", flat=True),
        *Command.objects.filter(campaign=world.campaign).values_list("general_key", flat=True),
        *Unit.objects.filter(campaign=world.campaign).values_list("key", flat=True),
        *Individual.objects.filter(campaign=world.campaign).values_list("key", flat=True),
    ]
    assert len(keys) == len(set(keys)) == 2 + 3 * 2 + 3 + 1
    assert f2.key != f1.key
    world.campaign.refresh_from_db()
    assert world.campaign.next_id > max(int(re.findall(r"\d+", k)[-1]) for k in keys)


# --- R2.6 placement and the initial order ----------------------------------------------------


@pytest.mark.parametrize(
    ("x", "y", "ok"), [(1, 1, True), (2, 2, True), (0, 0, True), (3, 1, False), (1, 3, False)]
)
def test_a_force_starts_on_or_next_to_a_holding_of_its_side(world, x, y, ok):
    if ok:
        assert _force(world, x=x, y=y).x == x
    else:
        with pytest.raises(
            ServiceError, match=r"not on or next to a holding of its side \(R2.6.2\)"
        ) as e:
            _force(world, x=x, y=y)
        assert "Karak (1, 1)" in e.value.field_messages["x"][0]
        assert not Force.objects.filter(campaign=world.campaign).exists()


def test_an_allys_holding_will_do(world):
    ally = player_create(campaign=world.campaign, side=world.blue.side, name="Blue Goblins")
    f = force_create(
        player=ally, name="Sneaks", x=6, y=4, status="probe", general=GENERAL, unit=UNIT
    )
    assert (f.x, f.y) == (6, 4)
    with pytest.raises(ServiceError, match="R2.6.2"):
        force_create(player=ally, name="Lost", x=2, y=1, status="probe", general=GENERAL, unit=UNIT)


def test_a_force_starts_under_an_order(world):
    with pytest.raises(ServiceError, match="starts under an order") as e:
        _force(world, status="confused")
    assert "status" in e.value.field_messages
    for order in ("full-speed", "probe", "defend"):
        assert _force(world, status=order).status == order


def test_a_force_off_the_map_is_refused(world):
    with pytest.raises(ServiceError, match="off the 9×6 map"):
        _force(world, x=12, y=1)


# --- R2.5 organisation -----------------------------------------------------------------------


def test_a_general_cv_outside_one_to_six_is_refused_beside_the_field(world):
    with pytest.raises(ServiceError) as e:
        _force(world, general={**GENERAL, "general_cv": 7})
    assert "command value outside 1 to 6" in e.value.field_messages["general_cv"][0]
    assert not Force.objects.exists() and not Command.objects.exists()  # rolled back


def test_individuals_may_not_outnumber_units(world):
    f = _force(world)
    individual_create(force=f, **WIZARD)
    with pytest.raises(ServiceError, match="characters may not outnumber units") as e:
        individual_create(force=f, kind="hero", name="Conan")
    assert "kind" in e.value.field_messages
    assert f.individuals.count() == 1
    # generals do not count: a second command brings a unit, then a hero fits
    command_create(force=f, general={**GENERAL, "general_cv": 3}, unit=UNIT)
    individual_create(force=f, kind="hero", name="Conan")
    assert validate_force_organisation(_rules_force(world, f)).valid


def test_mercenaries_never_form_a_force_alone(world):
    with pytest.raises(ServiceError, match="only allied or mercenary commands") as e:
        _force(world, unit={**UNIT, "mercenary": True})
    assert "mercenary" in e.value.field_messages
    f = _force(world)
    command_create(force=f, general=GENERAL, unit={**UNIT, "mercenary": True})
    regular = f.commands.order_by("position").first()
    with pytest.raises(ServiceError, match="only allied or mercenary"):
        command_delete(command=regular)


def test_a_force_keeps_its_leader_and_a_unit(world):
    f = _force(world)
    command = f.commands.get()
    with pytest.raises(ServiceError, match="has no unit"):
        unit_delete(unit=command.units.get())
    with pytest.raises(ServiceError, match="no general to lead it"):
        command_delete(command=Command.objects.get(pk=command.pk))
    assert Unit.objects.filter(command_id=command.pk).count() == 1


def test_units_and_commands_are_edited_under_the_rules(world):
    f = _force(world)
    command = f.commands.get()
    unit = unit_create(command=command, **{**UNIT, "type": "Crossbows", "speciality": "missile"})
    unit_update(unit=unit, figures=12, quality="elite")
    unit.refresh_from_db()
    assert (unit.figures, unit.quality) == (12, "elite")
    with pytest.raises(ServiceError, match="at least one figure"):
        unit_update(unit=unit, figures=0)
    with pytest.raises(ServiceError, match="Unknown value 'heroic'"):
        unit_update(unit=unit, quality="heroic")
    command_update(command=command, general_name="Dain", general_cv=5)
    assert _rules_force(world, f).cv == 5
    with pytest.raises(ServiceError, match="outside 1 to 6"):
        command_update(command=command, general_cv=0)
    unit_delete(unit=unit)
    assert command.units.count() == 1


def test_the_leader_is_a_general_with_the_highest_cv(world):
    f = _force(world)
    second = command_create(force=f, general={**GENERAL, "general_name": "Balin"}, unit=UNIT)
    update = {"name": "Hammer", "x": 1, "y": 1, "status": "defend"}
    force_update(force=f, **update, leader_key=second.general_key)
    assert _rules_force(world, f).leader.name == "Balin"  # a tie broken by designation
    # the designated leader keeps the highest CV (R2.5.4): lowering his is refused …
    with pytest.raises(ServiceError, match="highest command value") as e:
        command_update(command=second, general_cv=3)
    assert "leader" in e.value.field_messages
    # … and so is designating a general with a lower CV
    force_update(force=f, **update, leader_key="")
    command_update(command=Command.objects.get(pk=second.pk), general_cv=3)
    with pytest.raises(ServiceError) as e:
        force_update(force=f, **update, leader_key=second.general_key)
    assert "highest command value, CV 4" in e.value.field_messages["leader"][0]
    assert _rules_force(world, f).leader.name == "Thorin"


def test_force_update_moves_and_reorders_under_r26(world):
    f = _force(world)
    force_update(force=f, name="Big Hammer", x=2, y=0, status="full-speed")
    f.refresh_from_db()
    assert (f.name, f.x, f.y, f.status) == ("Big Hammer", 2, 0, "full-speed")
    with pytest.raises(ServiceError, match="R2.6.2"):
        force_update(force=f, name="Big Hammer", x=4, y=4, status="full-speed")
    f.refresh_from_db()
    assert (f.x, f.y) == (2, 0)


def test_individuals_are_edited_and_removed(world):
    f = _force(world)
    wizard = individual_create(force=f, **WIZARD)
    individual_update(individual=wizard, magic_points=50)
    assert _rules_force(world, f).individuals[0].magic_points == 50
    individual_delete(individual=wizard)
    assert not f.individuals.exists()


def test_rosters_are_fixed_once_the_campaign_started(settings):
    w = make_world(forces=True)
    campaign_start(campaign=w.campaign)
    f = Force.objects.filter(campaign=w.campaign, owner=w.red).get()
    with pytest.raises(SetupClosed):
        individual_create(force=f, **WIZARD)
    with pytest.raises(SetupClosed):
        force_delete(force=f)


# --- the roster page -------------------------------------------------------------------------


FORCE_POST = {
    "name": "Hammer",
    "x": 1,
    "y": 1,
    "status": "defend",
    "general_name": "Thorin",
    "general_cv": 4,
    "general_points": 100,
    "unit-type": "Axemen",
    "unit-speciality": "infantry",
    "unit-quality": "veteran",
    "unit-figures": 20,
    "unit-points_per_figure": 8,
}


def test_a_player_writes_his_roster(world):
    client = world.client("red")
    response = client.get(world.url("roster"))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Roster of Red Dwarves" in html and "Create the force" in html and "Karak (1, 1)" in html
    response = client.post(world.url("roster"), FORCE_POST)
    assert response.status_code == 302
    f = Force.objects.get(campaign=world.campaign)
    assert response["Location"] == world.url("roster-force", f.key)
    assert f.owner == world.red
    html = client.get(world.url("roster")).content.decode()
    assert "Organised and placed by the rules." in html and "260 points" in html


def test_roster_errors_are_shown_beside_their_fields(world):
    client = world.client("red")
    response = client.post(world.url("roster"), {**FORCE_POST, "general_cv": 9})
    assert response.status_code == 400
    assert "outside 1 to 6" in str(response.context["command_form"].errors["general_cv"])
    response = client.post(world.url("roster"), {**FORCE_POST, "x": 5, "y": 5})
    assert response.status_code == 400
    assert "R2.6.2" in str(response.context["force_form"].errors["x"])
    response = client.post(world.url("roster"), {**FORCE_POST, "unit-mercenary": "on"})
    assert "only allied or mercenary" in str(response.context["unit_form"].errors["mercenary"])
    assert not Force.objects.exists()


def test_a_player_cannot_open_another_players_roster(world):
    client = world.client("red")
    assert client.get(world.url("roster") + "?player=blue-orcs").status_code == 403
    assert (
        client.post(world.url("roster"), {**FORCE_POST, "player": "blue-orcs"}).status_code == 403
    )
    assert not Force.objects.exists()


def test_the_gm_opens_any_roster(world):
    client = world.client("gm")
    response = client.get(world.url("roster") + "?player=blue-orcs")
    assert response.status_code == 200 and response.context["player"] == world.blue
    response = client.post(
        world.url("roster"), {**FORCE_POST, "player": "blue-orcs", "x": 7, "y": 4}
    )
    assert response.status_code == 302
    assert Force.objects.get(campaign=world.campaign).owner == world.blue


@pytest.mark.parametrize(("who", "status"), [("observer", 403), ("outsider", 404)])
def test_observers_and_outsiders_have_no_roster(world, who, status):
    assert world.client(who).get(world.url("roster")).status_code == status


def test_the_roster_is_read_only_after_the_start(settings):
    w = make_world(forces=True)
    campaign_start(campaign=w.campaign)
    client = w.client("red")
    html = client.get(w.url("roster")).content.decode()
    assert "Hammer" in html and "Create the force" not in html
    assert client.post(w.url("roster"), FORCE_POST).status_code == 403


# --- the force page --------------------------------------------------------------------------


def test_force_page_full_and_htmx_edit_panel(world):
    f = _force(world)
    unit = Unit.objects.get(command__force=f)
    client = world.client("red")
    url = world.url("roster-force", f.key)
    html = client.get(url).content.decode()
    assert "<html" in html and "Axemen" in html and "Thorin" in html
    assert f'href="{url}?edit={unit.key}#edit-panel" hx-get="{url}?edit={unit.key}"' in html
    response = client.get(url + f"?edit={unit.key}", headers={"hx-request": "true"})
    fragment = response.content.decode()
    assert fragment.lstrip().startswith('<section id="edit-panel"') and "<html" not in fragment
    assert 'name="edit-figures"' in fragment
    assert f'action="{world.url("roster-item-save", f.key, unit.key)}"' in fragment


def test_force_page_actions(world):
    f = _force(world)
    client = world.client("red")
    command = f.commands.get()
    response = client.post(
        world.url("roster-unit-add", f.key),
        {
            "unit-command": command.key,
            "unit-type": "Crossbows",
            "unit-speciality": "missile",
            "unit-quality": "average",
            "unit-figures": 10,
            "unit-points_per_figure": 7,
        },
    )
    assert response.status_code == 302
    crossbows = Unit.objects.get(command=command, type="Crossbows")
    response = client.post(
        world.url("roster-item-save", f.key, crossbows.key),
        {
            "edit-type": "Crossbows",
            "edit-speciality": "missile",
            "edit-quality": "veteran",
            "edit-figures": 12,
            "edit-points_per_figure": 7,
            "edit-min_figures": 6,
            "edit-leader_points": 4,
        },
    )
    assert response.status_code == 302
    crossbows.refresh_from_db()
    assert (crossbows.figures, crossbows.quality) == (12, "veteran")
    assert (crossbows.min_figures, crossbows.leader_points) == (6, 4)  # R8.3.3
    assert (
        "minimum 6 figures, Leader 4 points"
        in client.get(world.url("roster-force", f.key)).content.decode()
    )
    response = client.post(
        world.url("roster-character-add", f.key),
        {
            "individual-kind": "wizard",
            "individual-name": "Gandalf",
            "individual-points": 90,
            "individual-magic_points": 25,
        },
    )
    assert response.status_code == 302
    response = client.post(
        world.url("roster-command-add", f.key),
        {
            "command-general_name": "Balin",
            "command-general_cv": 3,
            "command-general_points": 60,
            "command-unit-type": "Miners",
            "command-unit-speciality": "infantry",
            "command-unit-quality": "average",
            "command-unit-figures": 15,
            "command-unit-points_per_figure": 6,
        },
    )
    assert response.status_code == 302
    assert _rules_force(world, f).figures == 20 + 12 + 15
    response = client.post(
        world.url("roster-force-save", f.key),
        {
            "name": "Hammer",
            "x": 0,
            "y": 2,
            "status": "probe",
            "leader": "",
        },
    )
    assert response.status_code == 302
    f.refresh_from_db()
    assert (f.x, f.y, f.status) == (0, 2, "probe")
    response = client.post(world.url("roster-item-delete", f.key, crossbows.key))
    assert response.status_code == 302 and not Unit.objects.filter(pk=crossbows.pk).exists()


def test_force_page_refusals_beside_the_field(world):
    f = _force(world)
    client = world.client("red")
    command = f.commands.get()
    response = client.post(
        world.url("roster-item-save", f.key, command.key),
        {
            "edit-general_name": "Thorin",
            "edit-general_cv": 8,
            "edit-general_points": 0,
        },
    )
    assert response.status_code == 400
    assert "outside 1 to 6" in str(response.context["edit_form"].errors["general_cv"])
    individual_create(force=f, **WIZARD)
    response = client.post(
        world.url("roster-character-add", f.key),
        {
            "individual-kind": "hero",
            "individual-points": 0,
            "individual-magic_points": 0,
        },
    )
    assert response.status_code == 400
    assert "outnumber" in str(response.context["new_individual"].errors["kind"])
    response = client.post(world.url("roster-item-delete", f.key, command.units.get().key))
    assert response.status_code == 400 and "has no unit" in response.content.decode()


def test_a_player_cannot_edit_another_players_force(world):
    f = force_create(
        player=world.blue, name="Claw", x=7, y=4, status="probe", general=GENERAL, unit=UNIT
    )
    url = world.url("roster-force", f.key)
    client = world.client("red")
    # 404, as for a missing force: under fog the other army's forces must not be probed
    assert client.get(url).status_code == 404
    assert client.post(world.url("roster-force-delete", f.key)).status_code == 404
    assert Force.objects.filter(pk=f.pk).exists()
    assert world.client("observer").get(url).status_code == 403
    assert world.client("outsider").get(url).status_code == 404
    anonymous = world.client("anonymous").get(url)
    assert anonymous.status_code == 302 and anonymous["Location"].startswith(reverse("login"))
    assert world.client("gm").get(url).status_code == 200


def test_the_owner_deletes_his_force(world):
    f = _force(world)
    response = world.client("red").post(world.url("roster-force-delete", f.key))
    assert response.status_code == 302 and response["Location"] == world.url("roster")
    assert not Force.objects.exists() and not Command.objects.exists()
