"""The path map's click targets (`campaign:orders-path`): the squares a click may add."""

from __future__ import annotations

from django.urls import reverse

from campaign.access import Viewer
from campaign.map.model import Clickable
from campaign.orders.selectors import ForceCard, OrdersPage

CLICK_REACH = 5  # the naval table's best move (4 squares), and one more to be refused


def path_clickable(viewer: Viewer, page: OrdersPage, card: ForceCard) -> Clickable:
    """Every square within a move's best reach (and one beyond) posts a click (Enter or Space
    too: static/js/site.js) to the path fragment, with the force's form; the rules then say
    whether the step is legal. Only those: on a big map, a click target per square made the
    editor a megabyte."""
    url = reverse("campaign:orders-path", args=(viewer.campaign.slug, card.key))
    (cx, cy), r = card.square, CLICK_REACH
    return Clickable(
        squares=tuple(
            (x, y)
            for y in range(cy - r, cy + r + 1)
            for x in range(cx - r, cx + r + 1)
            if page.state.map.on_map((x, y))
        ),
        attrs={
            "hx-post": url,
            "hx-target": f"#orders-force-{card.key}",
            "hx-swap": "outerHTML",
            "hx-include": f"#orders-form-{card.key}",
        },
    )
