"""Campaign data: the map, players and their armies, holdings, forces, turns and orders.

The rules engine's state (`rules.types.CampaignState`) is built from these rows and written
back by `campaign.adapters`. Rules ids (force "f3", unit "f3u2" …) are stored as `key`, unique
per campaign, so that a state, an export and the ledger all speak of the same things.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone as djtz
from django.utils.translation import gettext_lazy as _

from campaign.text import labels


class Campaign(models.Model):
    slug = models.SlugField(_("slug"), unique=True)
    name = models.CharField(_("name"), max_length=200)
    description = models.TextField(_("description"), blank=True)
    scenario = models.CharField(_("scenario"), max_length=50, blank=True)
    options = models.JSONField(_("options"), default=dict, blank=True)
    fog_of_war = models.BooleanField(_("fog of war"), default=False)
    setup_open = models.BooleanField(
        _("set-up open"),
        default=False,
        help_text=_("While set-up is open the GM edits the map and players their rosters."),
    )
    missing_orders_policy = models.CharField(
        _("missing orders"),
        max_length=10,
        choices=[("hold", _("The force holds its status and does not move"))],
        default="hold",
    )
    auto_close = models.BooleanField(
        _("close automatically when everyone has confirmed"),
        default=False,
        help_text=_(
            "When every active player has confirmed his orders, the turn closes and is "
            "resolved at once, before its deadline."
        ),
    )
    width = models.PositiveSmallIntegerField(_("map width"))
    height = models.PositiveSmallIntegerField(_("map height"))
    # the rules state beyond the rows below (spec §4, §5.3, §9.2)
    turn_number = models.PositiveIntegerField(_("turn"), default=1)
    day = models.PositiveIntegerField(_("day"), default=0)
    weather = models.CharField(_("weather"), max_length=20, default="fine")
    force_weather = models.JSONField(default=dict, blank=True)
    heavy_ground_now = models.BooleanField(default=False)
    snow = models.JSONField(_("snow"), default=dict, blank=True)
    initiative_winner = models.CharField(max_length=50, blank=True)
    next_id = models.PositiveIntegerField(default=1)
    ended = models.CharField(_("ended"), max_length=100, blank=True)
    winner = models.CharField(_("winner"), max_length=50, blank=True)
    # what the published seed hashes are salted with (`Turn.hash_of`): the slug the campaign
    # was created under, kept when it is imported under another one, so that its turns'
    # hashes still check
    seed_salt = models.CharField(_("seed salt"), max_length=50, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("campaign")
        verbose_name_plural = _("campaigns")

    def __str__(self) -> str:
        return self.name

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self.seed_salt:
            self.seed_salt = self.slug
        super().save(*args, **kwargs)


class Side(models.Model):
    """An alliance: its players share squares and never fight (R6.6.2, R6.7.6)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="sides")
    key = models.CharField(max_length=50)
    name = models.CharField(_("name"), max_length=100)

    class Meta:
        ordering = ["campaign", "key"]
        constraints = [models.UniqueConstraint(fields=["campaign", "key"], name="side_key")]
        verbose_name = _("side")
        verbose_name_plural = _("sides")

    def __str__(self) -> str:
        return self.name


class Player(models.Model):
    """A player and his army (§1.1: all his forces; `initial_points` is the agreed army
    value), with his reinforcement bank (R9.3.8) and battle record (§9.1)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="players")
    key = models.CharField(max_length=50)
    position = models.PositiveIntegerField(default=0)
    side = models.ForeignKey(Side, on_delete=models.RESTRICT, related_name="players")
    name = models.CharField(_("name"), max_length=100)
    race = models.CharField(_("race"), max_length=100, blank=True)
    role = models.CharField(_("scenario role"), max_length=50, blank=True)
    colour = models.CharField(_("colour"), max_length=7, default="#888888")
    initial_points = models.PositiveIntegerField(_("army points"), default=0)
    tribal = models.BooleanField(_("tribal or fanatic"), default=False)
    light = models.BooleanField(_("light side"), default=True)
    surrendered = models.BooleanField(_("surrendered"), default=False)
    bank = models.IntegerField(_("reinforcement bank"), default=0)
    battles_won = models.PositiveIntegerField(default=0)
    battles_lost = models.PositiveIntegerField(default=0)
    # set-up: the player says his roster is done (the GM sees who has not, before he starts)
    roster_ready = models.BooleanField(_("roster ready"), default=False)

    class Meta:
        ordering = ["campaign", "position", "key"]
        constraints = [models.UniqueConstraint(fields=["campaign", "key"], name="player_key")]
        verbose_name = _("player (army)")
        verbose_name_plural = _("players (armies)")

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    class Role(models.TextChoices):
        GM = "gm", _("Game master")
        PLAYER = "player", _("Player")
        OBSERVER = "observer", _("Observer")

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(_("role"), max_length=10, choices=Role.choices)
    player = models.ForeignKey(
        Player, on_delete=models.SET_NULL, null=True, blank=True, related_name="memberships"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user"], name="one_membership"),
        ]
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")

    def __str__(self) -> str:
        return f"{self.user} · {self.get_role_display()} · {self.campaign}"


class Square(models.Model):
    """A map square: its terrain features (§6.3) and whose friendly third it is (R2.2)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="squares")
    x = models.PositiveSmallIntegerField()
    y = models.PositiveSmallIntegerField()
    features = models.JSONField(_("features"), default=list, blank=True)
    zone = models.CharField(_("territory of"), max_length=50, blank=True)

    FEATURES = labels.choices(labels.FEATURE)

    class Meta:
        ordering = ["campaign", "y", "x"]
        constraints = [models.UniqueConstraint(fields=["campaign", "x", "y"], name="square_xy")]
        verbose_name = _("square")
        verbose_name_plural = _("squares")

    def __str__(self) -> str:
        return f"({self.x}, {self.y})"


class Holding(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="holdings")
    key = models.CharField(max_length=50)
    position = models.PositiveIntegerField(default=0)
    name = models.CharField(_("name"), max_length=100, blank=True)
    x = models.PositiveSmallIntegerField()
    y = models.PositiveSmallIntegerField()
    owner = models.ForeignKey(Player, on_delete=models.RESTRICT, related_name="holdings")
    original_owner = models.ForeignKey(
        Player, on_delete=models.RESTRICT, related_name="original_holdings"
    )
    capital = models.BooleanField(_("capital"), default=False)
    feature = models.CharField(_("feature"), max_length=50, blank=True)
    sacked = models.BooleanField(_("sacked"), default=False)
    carried_by = models.CharField(_("carried as loot by"), max_length=50, blank=True)
    destroyed = models.BooleanField(_("destroyed"), default=False)
    artefacts_holder = models.CharField(max_length=50, blank=True)
    port = models.BooleanField(_("port"), default=False)  # R6.11.1

    class Meta:
        ordering = ["campaign", "position", "key"]
        constraints = [models.UniqueConstraint(fields=["campaign", "key"], name="holding_key")]
        verbose_name = _("holding")
        verbose_name_plural = _("holdings")

    def __str__(self) -> str:
        return self.name or self.key


class Force(models.Model):
    STATUSES = labels.choices(labels.STATUS)

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="forces")
    key = models.CharField(max_length=50)
    position = models.PositiveIntegerField(default=0)
    owner = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="forces")
    name = models.CharField(_("name"), max_length=100, blank=True)
    x = models.PositiveSmallIntegerField()
    y = models.PositiveSmallIntegerField()
    status = models.CharField(_("status"), max_length=20, choices=STATUSES)
    leader_key = models.CharField(max_length=50, blank=True)
    loot = models.JSONField(_("loot"), default=list, blank=True)
    works_quota = models.PositiveIntegerField(null=True, blank=True)
    works_square = models.JSONField(null=True, blank=True)
    works_built = models.PositiveIntegerField(default=0)  # R7.8.6
    ships = models.PositiveIntegerField(_("ships"), default=0)  # R6.11.2
    sea_folk = models.BooleanField(_("pirate force"), default=False)  # R6.11.6
    boats = models.PositiveIntegerField(_("boats"), default=0)  # R6.11.4
    rafts = models.PositiveIntegerField(_("rafts"), default=0)
    afloat = models.BooleanField(_("afloat on a river"), default=False)  # §6.11
    figures_lost = models.PositiveIntegerField(default=0)
    tokens = models.JSONField(default=dict, blank=True)
    regroup_pool = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["campaign", "position", "key"]
        constraints = [models.UniqueConstraint(fields=["campaign", "key"], name="force_key")]
        verbose_name = _("force")
        verbose_name_plural = _("forces")

    def __str__(self) -> str:
        return self.name or self.key


class Command(models.Model):
    """A general and the units under him (§1.1). The general is stored on the command."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    force = models.ForeignKey(Force, on_delete=models.CASCADE, related_name="commands")
    key = models.CharField(max_length=50)
    position = models.PositiveIntegerField(default=0)
    general_key = models.CharField(max_length=50, blank=True)
    general_name = models.CharField(_("general"), max_length=100, blank=True)
    general_cv = models.PositiveSmallIntegerField(_("command value"), null=True, blank=True)
    general_points = models.PositiveIntegerField(default=0)
    general_mounted = models.BooleanField(default=False)

    class Meta:
        ordering = ["force", "position"]
        constraints = [models.UniqueConstraint(fields=["campaign", "key"], name="command_key")]
        verbose_name = _("command")
        verbose_name_plural = _("commands")

    def __str__(self) -> str:
        return self.general_name or self.key


class Unit(models.Model):
    SPECIALITIES = labels.choices(labels.SPECIALITY)
    QUALITIES = labels.choices(labels.QUALITY)

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    command = models.ForeignKey(Command, on_delete=models.CASCADE, related_name="units")
    key = models.CharField(max_length=50)
    position = models.PositiveIntegerField(default=0)
    type = models.CharField(_("type"), max_length=100)
    speciality = models.CharField(_("speciality"), max_length=20, choices=SPECIALITIES)
    quality = models.CharField(_("quality"), max_length=10, choices=QUALITIES)
    figures = models.PositiveIntegerField(_("figures"))
    points_per_figure = models.PositiveIntegerField(_("points per figure"), default=0)
    mercenary = models.BooleanField(_("mercenary"), default=False)
    missile = models.BooleanField(_("missile weapons"), default=False)
    mounted = models.BooleanField(_("mounted"), default=False)
    min_figures = models.PositiveIntegerField(_("minimum size"), default=0)  # R8.3.3
    leader_points = models.PositiveIntegerField(_("Leader's points"), default=0)  # R8.3.3

    class Meta:
        ordering = ["command", "position"]
        constraints = [models.UniqueConstraint(fields=["campaign", "key"], name="unit_key")]
        verbose_name = _("unit")
        verbose_name_plural = _("units")

    def __str__(self) -> str:
        return f"{self.type} ×{self.figures}"


class Individual(models.Model):
    KINDS = labels.choices(labels.INDIVIDUAL_KIND)

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    force = models.ForeignKey(Force, on_delete=models.CASCADE, related_name="individuals")
    key = models.CharField(max_length=50)
    position = models.PositiveIntegerField(default=0)
    kind = models.CharField(_("kind"), max_length=20, choices=KINDS)
    name = models.CharField(_("name"), max_length=100, blank=True)
    points = models.PositiveIntegerField(default=0)
    mounted = models.BooleanField(default=False)
    magic_points = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["force", "position"]
        constraints = [models.UniqueConstraint(fields=["campaign", "key"], name="individual_key")]
        verbose_name = _("individual character")
        verbose_name_plural = _("individual characters")

    def __str__(self) -> str:
        return self.name or self.get_kind_display()


# Far beyond any campaign: near the calendar's end (year 9999) moving a deadline on (a pause,
# an extension, the next turn's) runs out of dates. The admin checks it here; forms, import too.
DEADLINE_AHEAD_MAX = timedelta(days=36525)


def deadline_reachable(value: datetime | None) -> None:
    if value is not None and value > djtz.now() + DEADLINE_AHEAD_MAX:
        raise ValidationError(_("A deadline can be at most 100 years ahead."), code="too-far")


class Turn(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", _("Orders open")
        CLOSED = "closed", _("Closed")
        RESOLVING = "resolving", _("Resolving phases 0–2")
        BATTLES = "battles", _("Battles pending")
        RESOLVING_AFTER = "resolving-after", _("Resolving phases 4–8")
        RESOLVED = "resolved", _("Resolved")

    class Interruption(models.TextChoices):
        """Why a resolution stopped before it finished (its run wrote nothing)."""

        LOST = "lost", _("the worker resolving it stopped answering (it was stopped or died)")
        DATABASE = "database", _("the database could not be reached")
        ERROR = "error", _("an error stopped it (the worker's log says which)")

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="turns")
    number = models.PositiveIntegerField(_("turn"))
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.OPEN
    )
    deadline = models.DateTimeField(
        _("deadline"), null=True, blank=True, validators=[deadline_reachable]
    )
    # while battles wait (status BATTLES): when their results are due; a battle the GM marked
    # "auto-resolve at the deadline" and still without a result is fought by the engine then
    battles_deadline = models.DateTimeField(
        _("battles deadline"), null=True, blank=True, validators=[deadline_reachable]
    )
    timezone = models.CharField(_("time zone"), max_length=50, default="UTC")
    extensions = models.PositiveSmallIntegerField(default=0)
    # while the open turn is paused: when the pause began (its deadline moves on by the pause)
    paused_at = models.DateTimeField(_("paused since"), null=True, blank=True)
    seed = models.BigIntegerField(_("seed"), null=True, blank=True)
    seed_hash = models.CharField(_("seed hash"), max_length=64, blank=True)
    # the rules state carried from Phases 0–2 to Phases 4–8 (phase, orders, triggers, moves)
    carry = models.JSONField(default=dict, blank=True)
    opened_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    # the claim of the run resolving the turn (while RESOLVING or RESOLVING_AFTER): when it
    # was taken and by whom; one that outlives its lease is released (campaign.turns.claims)
    claimed_at = models.DateTimeField(_("claimed at"), null=True, blank=True)
    claimed_by = models.CharField(_("claimed by"), max_length=200, blank=True)
    # why the last resolution was given back unfinished, until it is retried
    interrupted = models.CharField(
        _("interrupted"), max_length=20, choices=Interruption.choices, blank=True
    )
    interrupted_at = models.DateTimeField(_("interrupted at"), null=True, blank=True)

    class Meta:
        ordering = ["campaign", "number"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "number"], name="turn_number"),
        ]
        verbose_name = _("turn")
        verbose_name_plural = _("turns")

    def __str__(self) -> str:
        return f"{self.campaign} · {_('turn')} {self.number}"

    # --- where the turn stands (the state machine itself is campaign.turns.services) ---------

    @property
    def is_open(self) -> bool:
        """Orders may be written and confirmed."""
        return self.status == self.Status.OPEN

    @property
    def paused(self) -> bool:
        return self.paused_at is not None

    @property
    def is_closed(self) -> bool:
        """Orders are closed; Phases 0–2 wait for a worker to start them."""
        return self.status == self.Status.CLOSED

    @property
    def busy(self) -> bool:
        """Closed or being resolved: something is under way that needs no one's input."""
        return self.status in (
            self.Status.CLOSED,
            self.Status.RESOLVING,
            self.Status.RESOLVING_AFTER,
        )

    @property
    def resolving(self) -> bool:
        return self.status in (self.Status.RESOLVING, self.Status.RESOLVING_AFTER)

    @property
    def resolving_after_battles(self) -> bool:
        """Phases 4–8 are being resolved."""
        return self.status == self.Status.RESOLVING_AFTER

    @property
    def waiting_for_battles(self) -> bool:
        """Phases 0–2 are done and the turn waits for its battles' results."""
        return self.status == self.Status.BATTLES

    @property
    def resolved(self) -> bool:
        return self.status == self.Status.RESOLVED

    def claim(self, frm: str, to: str, by: str) -> bool:
        """Move the turn from `frm` to `to` with one conditional update, so that of several
        callers at once only one succeeds (a worker claims a turn before resolving it), and
        record the claim: when, and `by` whom (unique to this claim). On success this
        instance says so; a caller that lost the race gets False."""
        now = djtz.now()
        fields = {
            "status": to,
            "claimed_at": now,
            "claimed_by": by,
            "interrupted": "",
            "interrupted_at": None,
        }
        if Turn.objects.filter(pk=self.pk, status=frm).update(**fields) != 1:
            return False
        for name, value in fields.items():
            setattr(self, name, value)
        return True

    def hash_of(self, seed: int) -> str:
        """The seed's hash, published when the turn closes and checked once the seed is
        revealed after resolution (anyone can recompute it). Salted with the campaign's
        `seed_salt`, not its slug: a campaign imported under another slug still checks."""
        salt = self.campaign.seed_salt or self.campaign.slug
        text = f"fwcampaign:{salt}:{self.number}:{seed}"
        return hashlib.sha256(text.encode()).hexdigest()


class Orders(models.Model):
    """One player's standing orders for a turn (`rules.orders.PlayerOrders` as data)."""

    class Status(models.TextChoices):
        SAVED = "saved", _("Saved — not yet confirmed")
        CONFIRMED = "confirmed", _("Confirmed")

    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="orders")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="orders")
    data = models.JSONField(default=dict)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SAVED)
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    saved_at = models.DateTimeField(auto_now=True)
    confirmed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["turn", "player"], name="orders_per_turn"),
        ]
        verbose_name = _("orders")
        verbose_name_plural = _("orders")

    def __str__(self) -> str:
        return f"{self.player} · {self.turn}"


class Sighting(models.Model):
    """The last time a side saw an enemy force (fog of war: "last seen N turns ago")."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="sightings")
    side_key = models.CharField(max_length=50)
    force_key = models.CharField(max_length=50)
    x = models.PositiveSmallIntegerField()
    y = models.PositiveSmallIntegerField()
    turn_number = models.PositiveIntegerField()
    status = models.CharField(max_length=20, blank=True)
    figures = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "side_key", "force_key"], name="one_sighting"
            ),
        ]
        verbose_name = _("sighting")
        verbose_name_plural = _("sightings")

    def __str__(self) -> str:
        return f"{self.side_key} saw {self.force_key} on turn {self.turn_number}"


class Invitation(models.Model):
    """A link the GM shares; whoever follows it joins the campaign in the given role."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="invitations")
    token = models.CharField(max_length=64, unique=True)
    role = models.CharField(_("role"), max_length=10, choices=Membership.Role.choices)
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, null=True, blank=True, related_name="invitations"
    )
    side = models.ForeignKey(
        Side, on_delete=models.CASCADE, null=True, blank=True, related_name="invitations"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(_("expires"), null=True, blank=True)
    max_uses = models.PositiveIntegerField(_("uses allowed"), default=1)
    uses = models.PositiveIntegerField(default=0)
    revoked = models.BooleanField(default=False)

    class Meta:
        verbose_name = _("invitation")
        verbose_name_plural = _("invitations")

    def __str__(self) -> str:
        return f"{self.campaign} · {self.get_role_display()}"


class SetupRoll(models.Model):
    """A die of the set-up rolled on the web (the climate, the season, who chooses his
    territory, who places his holdings first), kept with its seed and ledger so that everyone
    sees it and it can be replayed."""

    class Kind(models.TextChoices):
        CLIMATE = "climate", _("Climate zone (R4.1.1)")
        SEASON = "season", _("Season (R4.1.2)")
        TERRITORY = "territory", _("Choice of territory (R2.2.3)")
        PLACEMENT = "placement", _("Order of holding placement (R2.3.1)")
        FEATURE = "feature", _("Feature of a holding (R2.4)")

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="setup_rolls")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    rule = models.CharField(max_length=20)
    seed = models.BigIntegerField()
    # the players rolling against each other (R2.2.3, R2.3.1), in the order they rolled
    players = models.JSONField(default=list)
    target = models.CharField(max_length=50, blank=True)  # the holding of a feature roll
    ledger = models.JSONField(default=list)
    result = models.CharField(max_length=100)
    detail = models.CharField(max_length=100, blank=True)  # a Burial Mound's relic (R2.4)
    made_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    made_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["made_at", "pk"]
        verbose_name = _("set-up roll")
        verbose_name_plural = _("set-up rolls")

    def __str__(self) -> str:
        return f"{self.campaign} · {self.get_kind_display()}: {self.result}"


# the rows a resolution leaves (below the rest: they point at them)
from campaign.records import (  # noqa: E402
    Amendment,
    AuditEntry,
    ExportJob,
    LineArchive,
    StateStamp,
    StoredMap,
    TurnResolution,
)

__all__ = [
    "Amendment",
    "AuditEntry",
    "ExportJob",
    "LineArchive",
    "StateStamp",
    "StoredMap",
    "TurnResolution",
]
