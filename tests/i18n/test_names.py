"""The names the member walk asked for (issue 29): a unit's kind in the reader's word order,
a general without a name named by his force, never by his id."""

from __future__ import annotations

from django.utils import translation

from campaign.text.names import general_label, individual_label
from campaign.text.units import unit_kind
from rules.types import Command, Force, General, Individual, IndividualKind, Status


def test_a_unit_kind_reads_quality_then_speciality_in_english():
    with translation.override("en"):
        assert unit_kind("Veteran", "Infantry") == "Veteran infantry"
        assert unit_kind("", "Cavalry") == "Cavalry"
        assert unit_kind("Levy", "") == "Levy"


def test_a_unit_kind_reads_speciality_then_quality_in_italian():
    with translation.override("it"):
        assert unit_kind("Veterana", "Fanteria") == "Fanteria veterana"


def _force(general_name: str) -> Force:
    general = General("f7g1", 4, name=general_name)
    return Force(
        "f7",
        "p1",
        (0, 0),
        Status.PROBE,
        (Command("f7c1", general, ()),),
        individuals=(Individual("f7i1", IndividualKind.ORDER_BEARER),),
        name="Force 7",
    )


def test_a_general_without_a_name_is_named_by_his_force():
    with translation.override("en"):
        force = _force("")
        assert general_label(force.commands[0].general, force) == "the general of Force 7"
        named = _force("Jarl Ulfrik")
        assert general_label(named.commands[0].general, named) == "Jarl Ulfrik"
        assert individual_label(force.individuals[0]) == "Order-bearer"
