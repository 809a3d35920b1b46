"""What the battles' services refuse because of the battle's state or the user's part in it
(`BattleRefused`, saying why), checked on the battle the service holds locked
(`battles.services`). Whether the form was built on the result stored now:
`battles.stale`."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.utils.translation import gettext as _

from battles.models import Battle
from battles.rights import BattleRights, battle_rights_for_viewer
from campaign.access import viewer_for
from campaign.errors import ServiceError
from campaign.models import Campaign


class BattleRefused(ServiceError):
    """What the battle's state, or the user's part in it, does not allow; says why."""


def rights_asking(campaign: Campaign, battle: Battle, user: User) -> BattleRights:
    """What `user` may do with `battle`, asked through `campaign`: a battle of another
    campaign, or a user who is no member of it, is refused."""
    if battle.campaign_id != campaign.pk:
        raise BattleRefused(
            _("Battle %(battle)s belongs to another campaign: it cannot be changed from this one.")
            % {"battle": battle.label}
        )
    viewer = viewer_for(user=user, campaign=campaign)
    if viewer is None:
        raise BattleRefused(_("Only members of the campaign can act on its battles."))
    return battle_rights_for_viewer(battle=battle, viewer=viewer)


def require_waiting(battle: Battle) -> None:
    """The battle's turn still waits for battle results."""
    if not battle.turn.waiting_for_battles:
        raise BattleRefused(
            _(
                "Battle %(battle)s belongs to turn %(turn)s, which no longer waits for battle "
                "results: its result can no longer change."
            )
            % {"battle": battle.label, "turn": battle.turn.number}
        )


def refuse_settled(battle: Battle, rights: BattleRights) -> None:
    """A player may not change a result once confirmed, disputed or settled; the GM then
    overrides it (with a note) rather than entering it again."""
    values = {"battle": battle.label}
    if battle.entry == Battle.Entry.CONFIRMED:
        if rights.is_gm:
            raise BattleRefused(
                _(
                    "Both sides have confirmed the result of battle %(battle)s: to change it, "
                    "override it with a note."
                )
                % values
            )
        raise BattleRefused(
            _(
                "Both sides have confirmed the result of battle %(battle)s: only the game "
                "master can change it now."
            )
            % values
        )
    if battle.entry == Battle.Entry.DISPUTED:
        raise BattleRefused(
            _("The result of battle %(battle)s is disputed: the game master settles it.") % values
        )
    if battle.entry == Battle.Entry.OVERRIDDEN:
        raise BattleRefused(
            _("The game master has settled the result of battle %(battle)s: only he can change it.")
            % values
        )


def require_other_side(battle: Battle, rights: BattleRights) -> None:
    """Confirming and disputing: a player of the battle, of the side that did not enter it."""
    values = {"battle": battle.label}
    if battle.entry != Battle.Entry.ENTERED:
        if battle.entry == Battle.Entry.NONE:
            raise BattleRefused(_("No result of battle %(battle)s has been entered yet.") % values)
        refuse_settled(battle, rights)
    if rights.side is None:
        if rights.is_gm:
            raise BattleRefused(
                _(
                    "The players of the battle confirm or dispute its result; as game master "
                    "you settle it with an override."
                )
            )
        raise BattleRefused(
            _("Only a player who fought battle %(battle)s confirms or disputes its result.")
            % values
        )
    if rights.side == rights.entered_side:
        raise BattleRefused(
            _("Your side entered this result: a player of the other side confirms or disputes it.")
        )
