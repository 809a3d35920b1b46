"""Fog of war: what each viewer may see, decided on the server, in one package.

`sight` holds the map's rules, `lens` a stored resolution's, `readers` those of battles and
amendments; this module is their public face (import from `campaign.fog`).

**The map.** A side sees its own and allied forces, enemy forces inside the zones of control
of its forces (and in their squares), and enemy forces in the squares of its holdings. Every
other enemy is shown only as a ghost where the side last saw it ("last seen N turns ago"),
from `Sighting` rows recorded after each resolution. The GM, and everyone when fog of war is
off or the campaign has ended (`Viewer.sees_everything`), sees everything.

**A stored resolution** (one stage: Phases 0–2 or Phases 4–8), through a `Lens`. A side sees,
for that stage:

- its own forces (owned by a player of the side before or after the stage), and the enemy
  forces visible to it (`visible_force_keys`) in the state the stage started from or in the
  state it left;
- the battles its side fought, the holdings its players owned or watched, its own players;
- squares it watched before or after the stage (`watched_squares`): an enemy force's path is
  shown only through those squares.

Which events a side sees is decided by the events themselves: each event class of
`rules.events` declares who may see it and what its fields name (`fog = Fog(Seen…,
field=Named…)`, rules.seen), and the lens reads those declarations, nothing else:

- `Seen.PUBLIC`: everyone (map-wide: snow, the day, a surrender, the end of the campaign);
  `Seen.SUBJECTS_OR_PUBLIC`: everyone when it names no subject (the map's weather), else as
  SUBJECTS;
- `Seen.SUBJECTS`: the sides that see one of its subjects (the forces, units, generals,
  characters, players, battles and holdings its fields name, `Named.subject`);
- `Seen.OWN_SIDE`: what a force does in its own camp (its force test, movement roll,
  leader's CV, tokens, regrouping, reinforcements) is its side's business, shown only to the
  side whose own one of its subjects is (`Lens.mine`), never to another side even when the
  force itself is in sight: a visible enemy force is known as the
  map shows it (name, square, status, figures), never by its roster;
- `Seen.GM`: the game master only; so is an event whose class declares nothing, or whose
  type is unknown (tests/campaign/test_fog_declarations.py fails on such a class).

Inside a shown event every hidden force, unit, battle or square its class declares is
removed (`Named`: a hidden force, member or battle becomes None, leaves a list of forces;
a square or path of an enemy force keeps only what the side watched), and free text naming a
hidden id goes, so its id, name, square or path never reaches the page.

A roll of the ledger is shown when its purpose (`"movement:initiative-f3"`,
`"after:t1-b1:wounded-u5"` …) names no hidden force, unit or battle and names something of
the side's own (a force or player of its side, a battle it fought, a holding it owns or
watches); a purpose that names nothing (`"weather:map"`, the snow days) is public. The
enemy's own rolls (a visible enemy force's initiative with its leader's CV, will to fight,
random events) are not shown. An initiative tie re-roll (R6.1.5) is shown only when every
force that tied at that total is the side's own: otherwise it would tell that some enemy
force, perhaps a hidden one, rolled that total. The turn report, the battle report, the
digest e-mail and a player's export all read through the same lens.

**A battle** (`battle_visible`): the GM always, and everyone when fog of war is off or the
campaign has ended; under fog of war, the players of the two sides that fight it (a side is
one army at the table, so an ally whose own forces are not in the battle sees it too); an
observer who follows a player sees what that player's side sees, one who follows no one sees
no battle. For anyone else the battle does not exist.

**An amendment** (`amendment_readers`): what it corrects and why (its title, the GM's reason,
its notice) is read as far as the reader's side saw what it amends: a battle's result by
whoever may see the battle, a player's orders by his side; the options in force and a
rollback by everyone. The others read only that the game master amended an earlier turn
(the turns replayed are no secret: every report of them says so).
"""

from __future__ import annotations

from campaign.fog.lens import (
    Lens,
    event_scrub,
    event_visible,
    id_tokens,
    initiative_ties,
    ledger_for,
    lens_for,
    roll_scrub,
    roll_visible,
)
from campaign.fog.readers import (
    AmendmentReaders,
    amendment_readers,
    battle_sides,
    battle_sides_get,
    battle_visible,
    sees_sides,
)
from campaign.fog.sight import (
    Ghost,
    MapView,
    map_view_for,
    sightings_record,
    visible_force_keys,
    watched_squares,
)

__all__ = [
    "AmendmentReaders",
    "Ghost",
    "Lens",
    "MapView",
    "amendment_readers",
    "battle_sides",
    "battle_sides_get",
    "battle_visible",
    "event_scrub",
    "event_visible",
    "id_tokens",
    "initiative_ties",
    "ledger_for",
    "lens_for",
    "map_view_for",
    "roll_scrub",
    "roll_visible",
    "sees_sides",
    "sightings_record",
    "visible_force_keys",
    "watched_squares",
]
