"""The admin pages of every campaign and battle model open, for lists and single rows, with
a bounded number of queries (list_select_related)."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from battles.models import Battle, BattleAudit, BattlePhoto, WhatIfOdds
from campaign.models import (
    Amendment,
    AuditEntry,
    Campaign,
    ExportJob,
    Invitation,
    LineArchive,
    Membership,
    SetupRoll,
    Turn,
)

pytestmark = pytest.mark.django_db

APPS = ("campaign", "battles")


@pytest.fixture
def staff_client(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root", password="x"))
    return client


@pytest.fixture
def played(run, battle_campaign, results_file, django_user_model, settings, tmp_path):
    """A campaign with a row in every table: a fought battle, resolutions, a member."""
    run(
        "resolve_turn",
        "skirmish",
        "--battle-results",
        results_file(list(Battle.objects.filter(status="pending"))),
    )
    gm = django_user_model.objects.create_user("gm")
    Membership.objects.create(campaign=battle_campaign, user=gm, role=Membership.Role.GM)
    Invitation.objects.create(
        campaign=battle_campaign, token="t0ken", role=Membership.Role.OBSERVER, created_by=gm
    )
    amendment = Amendment.objects.create(
        campaign=battle_campaign,
        number=1,
        turn_number=1,
        kind="rollback",
        reason="x",
        created_by=gm,
    )
    LineArchive.objects.create(
        campaign=battle_campaign, amendment=amendment, from_turn=1, data={"turns": []}
    )
    ExportJob.objects.create(campaign=battle_campaign, user=gm, reader="gm::all")
    AuditEntry.log(battle_campaign, "rolled-back", user=gm, turn=1, amendment=amendment)
    SetupRoll.objects.create(
        campaign=battle_campaign, kind="climate", rule="R4.1.1", seed=1, result="cold", made_by=gm
    )
    settings.MEDIA_ROOT = tmp_path
    battle = Battle.objects.filter(campaign=battle_campaign).first()
    BattleAudit.objects.create(battle=battle, user=gm, action="override", note="settled")
    BattlePhoto.objects.create(
        battle=battle, file=SimpleUploadedFile("field.png", b"\x89PNG\r\n\x1a\n"), uploaded_by=gm
    )
    WhatIfOdds.objects.create(
        campaign=battle_campaign, turn=battle.turn, input_hash="0" * 64, odds={"runs": 1}
    )
    return battle_campaign


def _models():
    return [m for m in admin.site._registry if m._meta.app_label in APPS]


def test_every_model_is_registered():
    from django.apps import apps

    for label in APPS:
        for model in apps.get_app_config(label).get_models():
            assert model in admin.site._registry, model.__name__


@pytest.mark.parametrize("model", _models(), ids=lambda m: m.__name__)
def test_list_and_change_pages_open(staff_client, played, model, django_assert_max_num_queries):
    opts = model._meta
    url = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
    with django_assert_max_num_queries(12):
        response = staff_client.get(url)
    assert response.status_code == 200
    obj = model.objects.first()
    assert obj is not None, f"the fixture made no {opts.model_name}"
    response = staff_client.get(
        reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk])
    )
    assert response.status_code == 200


def test_the_seed_of_an_unresolved_turn_is_not_shown(staff_client, battle_campaign):
    turn = battle_campaign.turns.get(number=1)
    assert turn.status == Turn.Status.BATTLES
    html = staff_client.get(reverse("admin:campaign_turn_change", args=[turn.pk])).content
    assert b"(until resolved)" in html and turn.seed_hash.encode() in html


def test_a_campaign_can_be_deleted_from_the_admin(staff_client, played):
    url = reverse("admin:campaign_campaign_delete", args=[played.pk])
    response = staff_client.post(url, {"post": "yes"})
    assert response.status_code == 302
    assert not Campaign.objects.exists()


def _post_data(response) -> dict:
    """The change form of an admin page as the browser would post it back, unchanged."""

    def fields(form) -> dict:
        out = {}
        for name in form.fields:
            value = form[name].value()
            if value is None or value is False:
                continue
            out[form.add_prefix(name)] = "on" if value is True else value
        return out

    data = fields(response.context["adminform"].form)
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        data.update(fields(formset.management_form))
        for form in formset.forms:
            data.update(fields(form))
    return data


def test_inline_choices_are_limited_to_the_campaign(staff_client, played, run):
    run("generate_campaign", "--seed", "3", "--slug", "other")
    url = reverse("admin:campaign_campaign_change", args=[played.pk])
    form = staff_client.get(url).context["inline_admin_formsets"][1].formset.forms[0]
    assert {s.campaign_id for s in form.fields["side"].queryset} == {played.pk}


def test_a_command_added_in_the_force_page_gets_the_force_campaign(staff_client, played):
    force = played.forces.get(key="f1")
    url = reverse("admin:campaign_force_change", args=[force.pk])
    data = _post_data(staff_client.get(url))
    prefix = "commands"
    total = int(data[f"{prefix}-TOTAL_FORMS"])
    data[f"{prefix}-TOTAL_FORMS"] = str(total + 1)
    data.update(
        {
            f"{prefix}-{total}-key": "f1c9",
            f"{prefix}-{total}-position": "5",
            f"{prefix}-{total}-general_points": "0",
        }
    )
    response = staff_client.post(url, data)
    assert response.status_code == 302, response.context["errors"]
    command = force.commands.get(key="f1c9")
    assert command.campaign_id == played.pk
