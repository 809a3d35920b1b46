"""The orders form: one force's standing orders (`rules.ForceOrders`) as a form, squares
written as "x,y", and the rules' order errors in words for people, beside their fields."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from campaign.orders.selectors import ForceCard, OrdersPage, square_label
from campaign.text.labels import STATUS
from rules import Coord, CountermarchWhen, ForceOrders, OrderError, Status, ZocPolicy

_PAIR = re.compile(r"([0-9]{1,4})\s*,\s*([0-9]{1,4})")  # no map is wider than 4 digits
SQUARES_MAX_LENGTH = 200  # some twenty squares: more than any path or retreat preference
_SEPARATORS = re.compile(r"[\s;()\[\],]*")


def squares_parse(text: str) -> tuple[Coord, ...]:
    """Squares written as "x,y" pairs, in order, e.g. "3,5; 2,5" or "(3, 5) (2, 5)"."""
    squares = tuple((int(a), int(b)) for a, b in _PAIR.findall(text))
    if not _SEPARATORS.fullmatch(_PAIR.sub("", text)):
        raise forms.ValidationError(
            gettext_lazy("Write squares as x,y separated by semicolons, for example 3,5; 2,5."),
            code="squares",
        )
    return squares


def squares_format(squares: Iterable[Coord]) -> str:
    return "; ".join(f"{x},{y}" for x, y in squares)


CHANGE_CHOICES = [
    ("", gettext_lazy("No change: keep the current status (no force test)")),
    (Status.FULL_SPEED.value, STATUS[Status.FULL_SPEED]),
    (Status.PROBE.value, STATUS[Status.PROBE]),
    (Status.DEFEND.value, STATUS[Status.DEFEND]),
]


ZOC_CHOICES = [
    (ZocPolicy.STOP.value, gettext_lazy("Stop at once (it may then countermarch)")),
    (ZocPolicy.ENGAGE.value, gettext_lazy("Move into contact with the enemy force, if it can")),
]


COUNTERMARCH_CHOICES = [
    (CountermarchWhen.NEVER.value, gettext_lazy("Never")),
    (CountermarchWhen.IF_STOPPED_IN_ZOC.value, gettext_lazy("Only if stopped in an enemy zone")),
    (CountermarchWhen.ALWAYS.value, gettext_lazy("Always, after moving")),
]


INITIATIVE_CHOICES = [
    ("early", gettext_lazy("Early")),
    ("late", gettext_lazy("Late")),
]


WEATHER_SHIFT_CHOICES = [
    ("0", gettext_lazy("No spell")),
    ("-1", gettext_lazy("One row better (toward fine weather)")),
    ("1", gettext_lazy("One row worse (toward the storm)")),
]


class ForceOrdersForm(forms.Form):
    """One force's standing orders (rules.orders.ForceOrders) as a form."""

    change_to = forms.ChoiceField(
        label=gettext_lazy("Requested order (R5.1)"), choices=CHANGE_CHOICES, required=False
    )
    path = forms.CharField(required=False, max_length=SQUARES_MAX_LENGTH, widget=forms.HiddenInput)
    zoc = forms.ChoiceField(
        label=gettext_lazy("On entering an enemy zone of control (R6.6.3)"),
        choices=ZOC_CHOICES,
        widget=forms.RadioSelect,
        initial=ZocPolicy.STOP.value,
    )
    countermarch = forms.ChoiceField(
        label=gettext_lazy("Countermarch after moving (R6.5)"),
        choices=COUNTERMARCH_CHOICES,
        initial=CountermarchWhen.NEVER.value,
    )
    countermarch_square = forms.CharField(
        label=gettext_lazy("Countermarch to square (optional)"),
        required=False,
        max_length=SQUARES_MAX_LENGTH,
        help_text=gettext_lazy("x,y — left empty, the safest square is chosen for you."),
    )
    retreat_squares = forms.CharField(
        label=gettext_lazy("Retreat preference after a battle (§8.4)"),
        required=False,
        max_length=SQUARES_MAX_LENGTH,
        help_text=gettext_lazy(
            "Squares in order of preference, for example 3,5; 2,5. Illegal or unlisted "
            "squares are skipped and the rules choose."
        ),
    )
    initiative = forms.ChoiceField(
        label=gettext_lazy("Initiative preference (R6.1.5)"),
        choices=INITIATIVE_CHOICES,
        widget=forms.RadioSelect,
        initial="early",
    )
    sack = forms.BooleanField(
        label=gettext_lazy("Sack the captured holding it stands on (§11.6)"), required=False
    )
    flank_attack = forms.BooleanField(
        label=gettext_lazy("Attack an enemy countermarching out of its zone (§7.10.4)"),
        required=False,
    )
    ambush = forms.BooleanField(
        label=gettext_lazy("Ambush a Full Speed force entering its zone (Defend only, §7.10.5)"),
        required=False,
    )
    by_river = forms.BooleanField(
        label=gettext_lazy("Follow the path by boat along the navigable river (§6.11)"),
        required=False,
    )
    weather_shift = forms.ChoiceField(
        label=gettext_lazy("Its Wizard's weather spell, for its own movement (R4.4.3)"),
        choices=WEATHER_SHIFT_CHOICES,
        required=False,
        initial="0",
    )

    def __init__(self, *args: Any, force_key: str = "", **kwargs: Any) -> None:
        # several forces' editors can be open on one page: their ids must differ
        kwargs.setdefault("auto_id", f"id_{force_key}_%s" if force_key else "id_%s")
        super().__init__(*args, **kwargs)

    def clean_path(self) -> tuple[Coord, ...]:
        return squares_parse(self.cleaned_data.get("path") or "")

    def clean_retreat_squares(self) -> tuple[Coord, ...]:
        return squares_parse(self.cleaned_data.get("retreat_squares") or "")

    def clean_countermarch_square(self) -> Coord | None:
        squares = squares_parse(self.cleaned_data.get("countermarch_square") or "")
        if len(squares) > 1:
            raise forms.ValidationError(
                gettext_lazy("Give one square, or leave the field empty."), code="one-square"
            )
        return squares[0] if squares else None

    def force_orders(self, force_id: str) -> ForceOrders:
        d = self.cleaned_data
        return ForceOrders(
            force_id=force_id,
            change_to=Status(d["change_to"]) if d.get("change_to") else None,
            path=d["path"],
            zoc=ZocPolicy(d["zoc"]),
            countermarch=CountermarchWhen(d["countermarch"]),
            countermarch_square=d["countermarch_square"],
            retreat_squares=d["retreat_squares"],
            sack=d["sack"],
            flank_attack=d["flank_attack"],
            ambush=d["ambush"],
            initiative=d["initiative"],
            weather_shift=int(d.get("weather_shift") or 0),
            by_river=d["by_river"],
        )

    @staticmethod
    def initial_for(fo: ForceOrders | None) -> dict[str, Any]:
        if fo is None:
            return {}
        cm = fo.countermarch_square
        return {
            "change_to": fo.change_to.value if fo.change_to else "",
            "path": squares_format(fo.path),
            "zoc": fo.zoc.value,
            "countermarch": fo.countermarch.value,
            "countermarch_square": f"{cm[0]},{cm[1]}" if cm else "",
            "retreat_squares": squares_format(fo.retreat_squares),
            "initiative": fo.initiative,
            "sack": fo.sack,
            "flank_attack": fo.flank_attack,
            "ambush": fo.ambush,
            "weather_shift": str(fo.weather_shift),
            "by_river": fo.by_river,
        }

    @staticmethod
    def original_encode(fo: ForceOrders | None) -> str:
        """The orders as the editor opened on them, kept in the form ("original") so that
        "Close without saving" can put them back: each map click saves on its own."""
        return json.dumps(ForceOrdersForm.initial_for(fo), sort_keys=True)

    @staticmethod
    def original_decode(raw: str, force_id: str) -> ForceOrders | None:
        """The orders kept by `original_encode` (None: the force had none); ValueError when
        the text is not such orders."""
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError) as e:  # not JSON, nested too deep, endless digits
            raise ValueError(raw) from e
        if data == {}:
            return None
        if not isinstance(data, dict):
            raise ValueError(raw)
        form = ForceOrdersForm(data, force_key=force_id)
        if not form.is_valid():
            raise ValueError(raw)
        return form.force_orders(force_id)

    def current_path(self, fallback: tuple[Coord, ...]) -> tuple[Coord, ...]:
        """The path the form holds now, valid or not (kept in the form on errors)."""
        raw = self.data.get("path", "") if self.is_bound else self.initial.get("path", "")
        if len(raw or "") > SQUARES_MAX_LENGTH:
            return fallback
        try:
            return squares_parse(raw or "")
        except forms.ValidationError:
            return fallback


DEFAULTS = {"zoc": ZocPolicy.STOP.value, "countermarch": "never", "initiative": "early"}


FORM_FIELDS = set(ForceOrdersForm.base_fields)


def _boats(n: int) -> str:
    return ngettext("%(n)s boat", "%(n)s boats", n) % {"n": n}


def _rafts(n: int) -> str:
    return ngettext("%(n)s raft", "%(n)s rafts", n) % {"n": n}


def _water_and_pool_messages(step: int, sq: str, card: ForceCard) -> dict[str, str]:
    """The words of the naval, river (§6.11) and regrouping (R8.3) refusals."""
    return {
        "naval-no-ships": _(
            "Step %(step)s %(square)s is water: a force sails only with naval movement in use "
            "and ships enough to carry it all, or boats and rafts enough on a lake or by the "
            "shore (§6.11, R6.11.3–4)."
        )
        % {"step": step, "square": sq},
        "regroup-over-pool": _("The pool of that speciality does not hold enough points (R8.3.2)."),
        "regroup-bad-unit": _(
            "A regrouping buys at least one figure for one of the force's units."
        ),
        "regroup-off": _("This campaign does not use regrouping (R8.3)."),
        "craft-open-sea": _(
            "Step %(step)s %(square)s is open sea: boats and rafts sail only lakes and the sea "
            "beside the shore (R6.11.4)."
        )
        % {"step": step, "square": sq},
        "river-off": _("This campaign does not use naval movement: no voyage by river (§6.11)."),
        "river-not-navigable": _(
            "A voyage by river goes only along squares of a navigable river, its start too "
            "(R6.11.7): untick the voyage or change the path."
        ),
        "river-no-craft": _(
            "The force has %(boats)s and %(rafts)s; to carry it all it needs %(need_boats)s "
            "and %(need_rafts)s (R6.11.4), or ships enough on a river navigable by ships."
        )
        % {
            "boats": _boats(card.force.boats),
            "rafts": _rafts(card.force.rafts),
            "need_boats": _boats(card.craft_needed[0]),
            "need_rafts": _rafts(card.craft_needed[1]),
        },
        "river-too-long": _(
            "A voyage by river has at most 4 squares, the naval table's best (§6.11)."
        ),
        "regroup-no-minimum": _(
            "The roster gives no minimum size for this unit type: the pool cannot form a new "
            "unit of it (R8.3.3)."
        ),
        "regroup-under-minimum": _(
            "A new unit needs at least the minimum size its roster gives (R8.3.3)."
        ),
    }


def order_error_message(err: OrderError, fo: ForceOrders, card: ForceCard, scenario: str) -> str:
    """`validate_orders` speaks English to programs; this is the same error for people."""
    step = (err.index or 0) + 1
    square = fo.path[err.index] if err.index is not None and err.index < len(fo.path) else None
    previous = (
        (fo.path[err.index - 1] if err.index else card.square) if err.index is not None else None
    )
    sq = square_label(square) if square else ""
    prev = square_label(previous) if previous else ""
    messages = {
        "bad-order": _("An order change must request Full Speed, Probe or Defend (R5.1.1)."),
        "probe-composition": _(
            "Only cavalry, chariots and flyers may receive Probe (R2.7, Naran option)."
        ),
        "loot-full-speed": _(
            "A force carrying loot may not receive the Full Speed order (§11.6 rule 3)."
        ),
        "sack-full-speed": _("A force under Full Speed may not declare a sack (§11.6 rule 3)."),
        "defend-path": _(
            "A force on Defend never moves (R6.4.4): clear its path or request another order."
        ),
        "path-too-long": _("A path has at most 3 squares, the best movement allowance (R6.2)."),
        "not-adjacent": _(
            "Step %(step)s %(square)s is not next to %(previous)s (R6.4.2): each step goes to "
            "one of the 8 squares around the last one."
        )
        % {"step": step, "square": sq, "previous": prev},
        "river-crossing": _(
            "Step %(step)s %(square)s crosses a river away from a bridge (R2.1.3 option)."
        )
        % {"step": step, "square": sq},
        "no-countermarch": _("Forces on Defend or Shattered cannot countermarch (R6.5.2)."),
        "sack-raiders-only": _("Only the Raiders carry off loot (§11.6)."),
        "bad-army-initiative": _(
            "With initiative by army the winner moves all his forces first or last (R6.1.2)."
        ),
        "ambush-needs-defend": _("Only a force on Defend can lay an ambush (§7.10.5)."),
        "bad-initiative": _("The initiative preference must be early or late (R6.1.5)."),
        "bad-weather-shift": _("A Wizard moves the weather one row, better or worse (R4.4.1)."),
        "weather-shift-no-wizard": _(
            "Only a force with a Wizard may change its weather, in a campaign with the weather "
            "phase (R4.4.1)."
        ),
        "not-your-force": _("This force is not yours."),
        "unknown-force": _("There is no such force."),
        "player-out": _("You have surrendered: you can no longer give orders."),
        **_water_and_pool_messages(step, sq, card),
    }
    if err.code == "no-sack":
        if scenario != "incursion":
            return _("Sacking exists only in the Incursion scenario (§11.6).")
        return _("The force must stand on an enemy holding it captured to sack it (§11.6 L-a).")
    if err.code == "off-map":
        if err.field == "path":
            return _("Step %(step)s %(square)s leaves the map (R6.4.7).") % {
                "step": step,
                "square": sq,
            }
        if err.field == "countermarch_square":
            return _("The countermarch square is off the map.")
        return _("A retreat square is off the map.")
    return messages.get(err.code, err.message)


def errors_into_form(
    form: ForceOrdersForm, errors: list[OrderError], fo: ForceOrders, page: OrdersPage
) -> int | None:
    """Put each rules error beside the field it concerns; return the refused path step."""
    error_index = None
    for err in errors:
        if err.force_id == fo.force_id:
            card = page.card(fo.force_id)
            assert card is not None
            msg = order_error_message(err, fo, card, page.state.scenario or "")
            form.add_error(err.field if err.field in FORM_FIELDS else None, msg)
            if err.field == "path" and err.index is not None and error_index is None:
                error_index = err.index
        else:
            # another force's saved orders (or the player as a whole) no longer pass
            form.add_error(None, status_error(page, err))
    return error_index


def status_error(page: OrdersPage, err: OrderError) -> str:
    card = page.card(err.force_id or "")
    if card is None:
        return err.message
    msg = order_error_message(
        err, card.orders or ForceOrders(card.key), card, page.state.scenario or ""
    )
    return _("%(force)s: %(message)s") % {"force": card.name, "message": msg}
