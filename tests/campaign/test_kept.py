"""`campaign.kept.Kept`: what a process keeps forgets the least recently used past its size."""

from __future__ import annotations

from campaign.kept import Kept


def test_the_least_recently_used_entry_goes_first():
    kept: Kept[str, int] = Kept(2)
    kept.put("a", 1)
    kept.put("b", 2)
    assert kept.get("a") == 1  # now the most recent
    kept.put("c", 3)
    assert (kept.get("a"), kept.get("b"), kept.get("c")) == (1, None, 3)
    kept.put("a", 4)  # put again: replaced, and the most recent
    kept.put("d", 5)
    assert (kept.get("a"), kept.get("c"), kept.get("d"), len(kept)) == (4, None, 5, 2)
    kept.clear()
    assert len(kept) == 0 and kept.get("a") is None
