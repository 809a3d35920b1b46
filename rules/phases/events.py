"""Phase module under construction (replaced by its owner)."""

from __future__ import annotations


def resolve(state, *args):
    dice = args[-1]
    del dice
    return state, []
