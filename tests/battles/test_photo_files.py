"""A battle photo's file goes with its row: deleting the photo, or the whole campaign (the
cascade), removes the file from MEDIA_ROOT once the delete commits; a rolled-back delete
keeps it."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.urls import reverse

from battles.models import Battle, BattlePhoto
from campaign.selectors import turn_current
from campaign.setup.services import campaign_delete

pytestmark = pytest.mark.django_db


@pytest.fixture
def photo(cast, settings, tmp_path) -> BattlePhoto:
    settings.MEDIA_ROOT = tmp_path
    battle = Battle.objects.create(
        campaign=cast.campaign,
        turn=turn_current(campaign=cast.campaign),
        key="t1-b1",
        x=4,
        y=8,
        pack={"sides": []},
    )
    return BattlePhoto.objects.create(
        battle=battle,
        file=SimpleUploadedFile("table.jpg", b"\xff\xd8\xff\xd9", content_type="image/jpeg"),
    )


def _exists(photo: BattlePhoto) -> bool:
    return photo.file.storage.exists(photo.file.name)


def test_deleting_the_campaign_removes_its_photo_files(
    cast, photo, django_capture_on_commit_callbacks
):
    assert _exists(photo)
    with django_capture_on_commit_callbacks(execute=True):
        campaign_delete(campaign=cast.campaign)
    assert not _exists(photo)


def test_a_rolled_back_delete_keeps_the_file(photo, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        try:
            with transaction.atomic():
                BattlePhoto.objects.filter(pk=photo.pk).delete()
                raise RuntimeError("changed my mind")
        except RuntimeError:
            pass
    assert BattlePhoto.objects.filter(pk=photo.pk).exists() and _exists(photo)


def test_a_photo_is_never_served_from_its_media_path(cast, photo, settings):
    """Only `battles:result-photo` serves it, after the access check (config/urls.py): its
    path under MEDIA_URL is no page, not even with DEBUG on (the demo)."""
    settings.DEBUG = True
    media = f"{settings.MEDIA_URL}{photo.file.name}"
    assert cast.client("gm").get(media).status_code == 404
    assert cast.client("anonymous").get(media).status_code in (302, 404)  # the login, or none
    view = reverse("battles:result-photo", args=[cast.campaign.slug, "t1-b1", photo.pk])
    assert cast.client("gm").get(view).status_code == 200
