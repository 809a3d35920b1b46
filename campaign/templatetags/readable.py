"""`{% load readable %}`: ids as people read them.

{{ sheet.key|battle_number }}   →  "1 of turn 3" (after the word "battle")
"""

from __future__ import annotations

from django import template

from campaign.text.labels import battle_number

register = template.Library()

register.filter("battle_number", battle_number)
