"""What a branch changes, turn by turn: the consequences the GM reads before committing an
amendment, and each player's share of them (fog-of-war filtered) in his notice.

Each turn's changes compare the state the turn left in the old line and in the branch:
forces (where, status, figures; gone or new), holdings (owner, sacked, destroyed), battles
(fought or not, where, the outcome), and the campaign's end. JSON data only: the pages and
the notices name things through `campaign.text.labels` when they show it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from campaign.turns.branch import AFTER, TURN, Branch, Line
from rules import CampaignState, to_data


def _force_view(state: CampaignState | None) -> dict[str, dict[str, Any]]:
    if state is None:
        return {}
    return {
        f.id: {
            "name": f.name or f.id,
            "owner": f.owner,
            "square": list(f.square),
            "status": f.status.value,
            "figures": f.figures,
        }
        for f in state.forces
    }


def _holding_view(state: CampaignState | None) -> dict[str, dict[str, Any]]:
    if state is None:
        return {}
    return {
        h.id: {
            "name": h.name or h.id,
            "owner": h.owner,
            "sacked": h.sacked,
            "destroyed": h.destroyed,
        }
        for h in state.holdings
    }


def _pairs(
    old: Mapping[str, dict[str, Any]], new: Mapping[str, dict[str, Any]], key: str
) -> list[dict[str, Any]]:
    out = []
    for k in sorted(set(old) | set(new)):
        a, b = old.get(k), new.get(k)
        if a != b:
            out.append({key: k, "old": a, "new": b})
    return out


def _outcome(result: Any) -> dict[str, str]:
    if not isinstance(result, dict):
        return {}
    return {k: str(v) for k, v in (result.get("outcomes") or {}).items()}


def _battle_view(square: Sequence[int], pack: Any, result: Any, how: str = "") -> dict[str, Any]:
    sides = [s.get("side") for s in (pack or {}).get("sides", [])]
    players = [list(s.get("players", [])) for s in (pack or {}).get("sides", [])]
    return {
        "square": list(square),
        "sides": sides,
        "players": players,
        "outcome": _outcome(result),
        "how": how,
    }


def _states_after(
    line: Line, current: CampaignState, turns: Sequence[int]
) -> dict[int, CampaignState | None]:
    """The state each turn left in the old line: the next turn's start, or the current."""
    out: dict[int, CampaignState | None] = {}
    for t in turns:
        nxt = line.before(t + 1, TURN)
        out[t] = nxt if nxt is not None else (current if t == line.last_turn else None)
    return out


def branch_diff(
    *,
    line: Line,
    branch: Branch,
    current: CampaignState,
    old_battles: Mapping[str, dict[str, Any]],
) -> list[dict[str, Any]]:
    """The changes, turn by turn, from the amended turn to the last either line resolved.
    `old_battles`: the old line's battles by key ({"turn", "square", "pack", "result"}). A
    rollback's (no stage replayed) is one entry: the campaign now against the start of the
    turn it returns to, and every battle from that turn on undone."""
    if not branch.stages:
        return [_rollback_diff(branch, current, old_battles)]
    new_after: dict[int, CampaignState] = {}
    new_battles: dict[int, dict[str, dict[str, Any]]] = {}
    packs: dict[str, Any] = {}
    for s in branch.stages:
        if s.stage == AFTER:
            new_after[s.turn] = s.after
        else:
            for b in s.pending:
                packs[b.battle_id] = (b.square, b.pack)
    for s in branch.stages:
        if s.stage != AFTER:
            continue
        row = new_battles.setdefault(s.turn, {})
        for key, result in s.inputs.items():
            if key in packs:
                square, pack = packs[key]
                row[key] = _battle_view(square, to_data(pack), result, s.results_how.get(key, ""))
            else:  # the amended turn's own battles: Phases 0–2 were not replayed
                old = old_battles.get(key, {})
                row[key] = _battle_view(
                    old.get("square", []), old.get("pack"), result, s.results_how.get(key, "")
                )
    last = max(line.last_turn, branch.last_turn)
    turns = list(range(branch.start_turn, last + 1))
    old_after = _states_after(line, current, turns)
    out = []
    for t in turns:
        old_b = {
            k: _battle_view(v["square"], v["pack"], v["result"])
            for k, v in old_battles.items()
            if v["turn"] == t
        }
        new_b = new_battles.get(t, {})
        battles = [
            {"battle": k, "old": old_b.get(k), "new": new_b.get(k)}
            for k in sorted(set(old_b) | set(new_b))
            if _battle_differs(old_b.get(k), new_b.get(k))
        ]
        was, now = old_after.get(t), new_after.get(t)
        ending = None
        old_end = (was.ended, was.winner) if was is not None else (None, None)
        new_end = (now.ended, now.winner) if now is not None else (None, None)
        if old_end != new_end:
            ending = {"old": list(old_end), "new": list(new_end)}
        out.append(
            {
                "turn": t,
                "resolved": {"old": t <= line.last_turn, "new": t <= branch.last_turn},
                "forces": _pairs(_force_view(was), _force_view(now), "force"),
                "holdings": _pairs(_holding_view(was), _holding_view(now), "holding"),
                "battles": battles,
                "ending": ending,
            }
        )
    return out


def _rollback_diff(
    branch: Branch, current: CampaignState, old_battles: Mapping[str, dict[str, Any]]
) -> dict[str, Any]:
    undone = [
        {"battle": k, "old": _battle_view(v["square"], v["pack"], v["result"]), "new": None}
        for k, v in sorted(old_battles.items())
        if v["turn"] >= branch.start_turn
    ]
    a, b = current, branch.state
    ending = None
    if (a.ended, a.winner) != (b.ended, b.winner):
        ending = {"old": [a.ended, a.winner], "new": [b.ended, b.winner]}
    return {
        "turn": branch.start_turn,
        "resolved": {"old": True, "new": False},
        "forces": _pairs(_force_view(a), _force_view(b), "force"),
        "holdings": _pairs(_holding_view(a), _holding_view(b), "holding"),
        "battles": undone,
        "ending": ending,
    }


def _battle_differs(a: dict[str, Any] | None, b: dict[str, Any] | None) -> bool:
    if a is None or b is None:
        return a is not b
    return bool(a["square"] != b["square"] or a["outcome"] != b["outcome"] or b["how"] != "kept")
