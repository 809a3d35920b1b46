"""Files that outlive their rows otherwise: a battle photo's file goes with its row, whether
the photo, its battle or the whole campaign is deleted (the cascade sends `post_delete` for
each photo). Connected when the app is ready (`battles.apps`)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver

from battles.models import BattlePhoto


@receiver(post_delete, sender=BattlePhoto, dispatch_uid="battles-photo-file")
def _photo_file_delete(sender: Any, *, instance: BattlePhoto, **kwargs: Any) -> None:
    storage, name = instance.file.storage, instance.file.name
    if not name:
        return
    # once the delete has committed: a rolled-back delete keeps its file
    transaction.on_commit(lambda: storage.delete(name))
