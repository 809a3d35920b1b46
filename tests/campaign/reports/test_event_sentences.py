"""The turn report's sentences for the events issue 13 changed (R8.6 promotion)."""

from __future__ import annotations

from campaign.text.names import Names
from campaign.text.sentences import event_sentence
from rules import CampaignState
from tests.rules.casefile import load_state


def _names() -> Names:
    state: CampaignState = load_state(
        {
            "players": [{"id": "blue", "side": "blue"}],
            "map": {"width": 3, "height": 3},
            "forces": [
                {
                    "id": "b1",
                    "name": "The Blue Host",
                    "owner": "blue",
                    "square": [1, 1],
                    "status": "probe",
                    "units": [
                        {
                            "id": "b-archers",
                            "type": "Archers",
                            "speciality": "missile",
                            "quality": "average",
                            "figures": 8,
                        }
                    ],
                }
            ],
        }
    )
    return Names([state], sides={}, everything=True)


def test_a_leader_promoted_from_a_unit_names_the_unit():
    text = event_sentence(
        {
            "type": "LeaderPromoted",
            "force_id": "b1",
            "general_id": "g9",
            "source": "unit:b-archers",
        },
        _names(),
    )
    assert text == "A figure of Archers was promoted from the ranks to lead The Blue Host."
    assert "unit:" not in text


def test_a_promoted_character_reads_without_codes():
    text = event_sentence(
        {
            "type": "LeaderPromoted",
            "force_id": "b1",
            "general_id": "x",
            "source": "individual:hero",
        },
        _names(),
    )
    assert text == "X was promoted to lead The Blue Host."
