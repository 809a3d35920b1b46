"""The orders editor's hidden `original` (the orders as the editor opened on them, JSON put
back by "Close without saving") never ends in a server error, whatever JSON or text it holds
(issue 28: a hypothesis test per form that takes JSON)."""

from __future__ import annotations

import pytest
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from tests.campaign.test_fuzz_forms import ORDERS_FIELDS, _orders, _post_checked
from tests.fuzzing import FUZZ, JSON_VALUES, json_text, or_junk

pytestmark = pytest.mark.django_db

# the editor's fields as `original_encode` writes them, each plausible or any JSON value
_ORIGINAL = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={name: or_junk(st.sampled_from(values)) for name, values in ORDERS_FIELDS.items()},
    ),
    JSON_VALUES,
)


@FUZZ
@given(original=json_text(_ORIGINAL), htmx=st.booleans())
def test_closing_without_saving_reads_any_original(cast, original, htmx):
    url = reverse("campaign:orders-force", args=["incursion", "r1"])
    data = {"restore": "1", "original": original}
    _post_checked(
        cast, "side_a", url, data, lambda: _orders(cast.campaign), htmx=htmx, success=_closed
    )


def _closed(response) -> bool:
    """Closing is no refusal: the orders page (a redirect) or the force's summary card."""
    return response.status_code in (200, 302)
