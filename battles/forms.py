"""The battle result form and the small forms around it (confirm, dispute, override, resolver,
photo). The form only reads what was typed; `battles.entry.battle_result_check` decides
whether it is a result the rules allow, and its errors come back here, field by field (the
fields are named as the entry's: `battles.entry.unit_field` …)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy

from battles.entry import (
    NEGATIVE,
    OUTCOME_FIELD,
    STORM_FIELD,
    person_field,
    points_field,
    unit_field,
    works_field,
)
from battles.models import Battle
from battles.roster import COUNTS, SIDE_KEYS, Roster
from campaign.text_input import TextField

COUNT_LABELS = {
    "killed": gettext_lazy("Killed"),
    "fled": gettext_lazy("Fled"),
    "left_oppose": gettext_lazy("Left under Oppose"),
    "left_retreat": gettext_lazy("Left under General Retreat"),
}
FATE_CHOICES = [
    ("", gettext_lazy("Neither killed nor fled")),
    ("killed", gettext_lazy("Killed")),
    ("fled", gettext_lazy("Fled")),
]


def works_number(force: str, left: int) -> forms.IntegerField:
    """R7.8.4/R7.8.6: the points of field works a force on Defend built for this battle."""
    return forms.IntegerField(
        label=gettext_lazy("Field works built by %(force)s (points, at most %(left)s, R7.8.6)")
        % {"force": force, "left": left},
        required=False,
        min_value=0,
        max_value=left,
        initial=0,
        error_messages={
            "min_value": gettext_lazy("Field works cannot be a negative number of points."),
            "max_value": gettext_lazy(
                "%(force)s may build at most %(left)s points of field works here: what is left "
                "of its quota (R7.8.4, R7.8.6)."
            )
            % {"force": force, "left": left},
            "invalid": gettext_lazy("Enter a whole number of points."),
        },
        widget=forms.NumberInput(attrs={"min": 0, "max": left, "inputmode": "numeric"}),
    )


class BattleResultForm(forms.Form):
    """Per unit the four counts of R7.1.1, per general and character a fate, then the outcome
    (or, under the Italian method, the points each side lost), an optional report, and the
    GM's note for an override."""

    report_text = TextField(
        label=gettext_lazy("Battle report (optional)"),
        required=False,
        max_length=20000,
        widget=forms.Textarea(attrs={"rows": 4}),
    )
    note = TextField(
        label=gettext_lazy("Note for the audit log (required to override)"),
        required=False,
        max_length=5000,
        widget=forms.Textarea(attrs={"rows": 2}),
    )

    def __init__(self, *args: Any, roster: Roster, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.roster = roster
        self.row_errors: dict[str, list[str]] = {}  # unit id → errors about the row
        for side in roster.sides:
            for unit in side.units:
                for what in COUNTS:
                    self.fields[unit_field(unit.id, what)] = forms.IntegerField(
                        label=COUNT_LABELS[what],
                        required=False,
                        min_value=0,
                        max_value=unit.figures,
                        initial=0,
                        error_messages={
                            "min_value": NEGATIVE[what] % {"unit": unit.label},
                            "max_value": gettext_lazy(
                                "%(unit)s had %(had)s figures when the battle began (R7.1.1)."
                            )
                            % {"unit": unit.label, "had": unit.figures},
                            "invalid": gettext_lazy("Enter a whole number of figures."),
                        },
                        widget=forms.NumberInput(
                            attrs={"min": 0, "max": unit.figures, "inputmode": "numeric"}
                        ),
                    )
            for person in side.people:
                self.fields[person_field(person.id)] = forms.ChoiceField(
                    label=person.label, choices=FATE_CHOICES, required=False
                )
        if roster.method == "italian":
            for side in roster.sides:
                self.fields[points_field(side.key)] = forms.IntegerField(
                    label=gettext_lazy("Army points lost by %(side)s") % {"side": side.name},
                    required=False,
                    min_value=0,
                    error_messages={
                        "min_value": gettext_lazy("The points lost cannot be a negative number."),
                        "invalid": gettext_lazy("Enter a whole number of points."),
                    },
                    widget=forms.NumberInput(attrs={"min": 0, "inputmode": "numeric"}),
                )
        else:
            a, b = roster.sides
            self.fields[OUTCOME_FIELD] = forms.ChoiceField(
                label=gettext_lazy("Outcome"),
                required=False,
                widget=forms.RadioSelect,
                choices=[
                    ("a", gettext_lazy("%(side)s won") % {"side": a.name}),
                    ("stalemate", gettext_lazy("Stalemate: neither side won")),
                    ("b", gettext_lazy("%(side)s won") % {"side": b.name}),
                ],
            )
        for side in roster.sides:
            for force in side.forces:
                if force.works_left:
                    self.fields[works_field(force.id)] = works_number(force.name, force.works_left)
        if roster.storm_allowed:
            self.fields[STORM_FIELD] = forms.BooleanField(
                label=gettext_lazy("A storm ended the battle (R4.2): a stalemate"),
                required=False,
            )

    # --- reading and writing the data of a result ---

    @classmethod
    def initial_from(cls, result: Mapping[str, Any] | None) -> dict[str, Any]:
        """The form's initial values from a stored result (to edit it or override it)."""
        if not result:
            return {}
        initial: dict[str, Any] = {}
        for loss in result.get("units", []):
            for what in COUNTS:
                initial[unit_field(loss["unit_id"], what)] = loss.get(what, 0)
        for fate in result.get("individuals", []):
            initial[person_field(fate["individual_id"])] = fate["fate"]
        outcomes = result.get("outcomes") or {}
        if outcomes:
            winner = next((k for k in SIDE_KEYS if outcomes.get(k) == "won"), None)
            initial[OUTCOME_FIELD] = winner or "stalemate"
        for key, points in (result.get("points_lost") or {}).items():
            initial[points_field(key)] = points
        if result.get("ended_by_storm"):
            initial[STORM_FIELD] = True
        for fid, points in (result.get("works_built") or {}).items():
            initial[works_field(fid)] = points
        return initial

    def result_data(self) -> dict[str, Any]:
        """What was typed, as a `BattleResult` (data): only from fields that parsed, so it
        can be checked live while the form is still being filled in."""
        clean = getattr(self, "cleaned_data", {}) or {}

        def number(name: str) -> int:
            value = clean.get(name)
            return value if isinstance(value, int) else 0

        units = []
        for side in self.roster.sides:
            for unit in side.units:
                counts = {w: number(unit_field(unit.id, w)) for w in COUNTS}
                if any(counts.values()):
                    units.append({"unit_id": unit.id, **counts})
        individuals = [
            {"individual_id": p.id, "fate": clean[person_field(p.id)]}
            for side in self.roster.sides
            for p in side.people
            if clean.get(person_field(p.id))
        ]
        data: dict[str, Any] = {"units": units, "individuals": individuals}
        if self.roster.method == "italian":
            data["points_lost"] = {
                k: clean[points_field(k)]
                for k in SIDE_KEYS
                if isinstance(clean.get(points_field(k)), int)
            }
        else:
            choice = clean.get(OUTCOME_FIELD)
            if choice == "stalemate":
                data["outcomes"] = {"a": "stalemate", "b": "stalemate"}
            elif choice in SIDE_KEYS:
                data["outcomes"] = {k: "won" if k == choice else "lost" for k in SIDE_KEYS}
        if clean.get(STORM_FIELD):
            data["ended_by_storm"] = True
        works = {
            f.id: number(works_field(f.id))
            for s in self.roster.sides
            for f in s.forces
            if number(works_field(f.id))
        }
        if works:
            data["works_built"] = works
        return data

    def add_service_errors(self, errors: Mapping[str, list[str]]) -> None:
        """Put the service's errors where they belong: on a field, on a unit's row, or on the
        form as a whole. A message already shown for the field is not repeated."""
        rows = {unit_field(u.id): u.id for s in self.roster.sides for u in s.units}
        for key, messages in errors.items():
            for message in messages:
                if key in rows:
                    self.row_errors.setdefault(rows[key], []).append(message)
                elif key in self.fields:
                    if message not in self.errors.get(key, []):
                        self.add_error(key, message)
                else:
                    self.add_error(None, message)


class DisputeForm(forms.Form):
    note = TextField(
        label=gettext_lazy("What is wrong with this result?"),
        max_length=5000,
        widget=forms.Textarea(attrs={"rows": 3}),
        error_messages={
            "required": gettext_lazy("Say what is wrong with the result: the game master reads it.")
        },
    )


class ResolverForm(forms.Form):
    """The GM's choice of resolver: the tabletop, or the tactical engine now; and whether the
    engine fights the battle at the turn's battles deadline if no result is entered by then."""

    resolver = forms.ChoiceField(
        label=gettext_lazy("How is this battle resolved?"),
        choices=Battle.Resolver.choices,
        widget=forms.RadioSelect,
    )
    auto_at_deadline = forms.BooleanField(
        label=gettext_lazy("Auto-resolve it at the deadline if no result is entered"),
        required=False,
    )


class PhotoForm(forms.Form):
    photo = forms.FileField(
        label=gettext_lazy("Photo (JPEG, PNG, GIF or WebP; at most 10 MB)"),
        widget=forms.ClearableFileInput(attrs={"accept": "image/*"}),
    )
    caption = TextField(label=gettext_lazy("Caption (optional)"), required=False, max_length=200)
