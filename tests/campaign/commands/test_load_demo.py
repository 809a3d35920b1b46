"""`load_demo`: the demo campaign, its users with fresh passwords, and turn-1 orders."""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.auth import authenticate
from django.core.management.base import CommandError

from campaign.models import Campaign, Membership, Orders, Turn

pytestmark = pytest.mark.django_db


def _passwords(out: str) -> dict[str, str]:
    return dict(re.findall(r"^\s+(\w+)\s+password (\S+)", out, re.MULTILINE))


def test_creates_the_campaign_users_and_orders(run, monkeypatch):
    monkeypatch.delenv("SITE_URL", raising=False)
    monkeypatch.delenv("FW_DEMO_ADDR", raising=False)
    out = run("load_demo").out
    campaign = Campaign.objects.get(slug="incursion")
    assert campaign.name == "Incursion" and campaign.scenario == "incursion"
    assert campaign.description
    assert {p.key: p.colour for p in campaign.players.all()} == {
        "raiders": "#a8322d",
        "defenders": "#2d5b8c",
    }
    members = {
        m.user.username: (m.role, m.player.key if m.player else None)
        for m in campaign.memberships.select_related("user", "player")
    }
    assert members == {
        "gm": (Membership.Role.GM, None),
        "raider": (Membership.Role.PLAYER, "raiders"),
        "defender": (Membership.Role.PLAYER, "defenders"),
    }
    turn = campaign.turns.get()
    assert (turn.number, turn.status) == (1, Turn.Status.OPEN)
    orders = {o.player.key: o for o in Orders.objects.filter(turn=turn).select_related("player")}
    assert set(orders) == {"raiders", "defenders"}
    assert {o.status for o in orders.values()} == {Orders.Status.SAVED}
    assert set(orders["raiders"].data["forces"]) == {"r1", "r2", "r3"}
    assert orders["raiders"].submitted_by.username == "raider"
    # the welcome: the URL and each user's working password
    assert "http://127.0.0.1:8000/" in out
    passwords = _passwords(out)
    assert set(passwords) == {"gm", "raider", "defender"}
    for username, password in passwords.items():
        assert len(password) >= 12
        assert authenticate(username=username, password=password) is not None
    assert "Ulfrik of Wolfstead" in out


@pytest.mark.parametrize(
    ("env", "address"),
    [
        ({"FW_DEMO_ADDR": "192.168.1.20:8080"}, "http://192.168.1.20:8080/"),
        ({"FW_DEMO_ADDR": "9000"}, "http://127.0.0.1:9000/"),
        (
            {"FW_DEMO_ADDR": "0.0.0.0:8000", "SITE_URL": "https://fw.example.org"},
            "https://fw.example.org/",
        ),
    ],
)
def test_the_welcome_gives_the_address_the_demo_is_served_on(run, monkeypatch, env, address):
    monkeypatch.delenv("SITE_URL", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    out = run("load_demo").out
    assert f"Open {address} and log in" in out
    assert "127.0.0.1:8000" not in out  # the old fixed address


def test_run_twice_keeps_the_campaign_and_gives_new_passwords(run):
    first = _passwords(run("load_demo").out)
    campaign = Campaign.objects.get(slug="incursion")
    run("resolve_turn", "incursion", "--seed", "7")  # some play that must survive
    out = run("load_demo").out
    assert "exists already" in out
    second = _passwords(out)
    assert set(second) == set(first) and all(second[u] != first[u] for u in first)
    assert authenticate(username="gm", password=first["gm"]) is None
    assert authenticate(username="gm", password=second["gm"]) is not None
    assert Campaign.objects.get(slug="incursion").pk == campaign.pk
    assert campaign.turns.count() == 2
    assert Membership.objects.filter(campaign=campaign).count() == 3


def test_reset_recreates_the_campaign(run):
    run("load_demo")
    old = Campaign.objects.get(slug="incursion")
    run("resolve_turn", "incursion", "--seed", "7")
    out = run("load_demo", "--reset").out
    assert "Deleted the campaign 'incursion'" in out
    new = Campaign.objects.get(slug="incursion")
    assert new.pk != old.pk
    assert list(new.turns.values_list("number", "status")) == [(1, Turn.Status.OPEN)]
    assert Orders.objects.filter(turn__campaign=new).count() == 2
    assert Membership.objects.filter(campaign=new).count() == 3
    passwords = _passwords(out)
    assert authenticate(username="raider", password=passwords["raider"]) is not None


def test_missing_fixture_folder_is_a_clear_error(run, tmp_path):
    with pytest.raises(CommandError, match=r"Cannot read the demo file .*demo\.json"):
        run("load_demo", "--fixtures", str(tmp_path))
    assert not Campaign.objects.exists()


def test_malformed_demo_file_is_a_clear_error(run, tmp_path):
    (tmp_path / "demo.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(CommandError, match="is not valid JSON"):
        run("load_demo", "--fixtures", str(tmp_path))
    (tmp_path / "demo.json").write_text(json.dumps({"users": []}), encoding="utf-8")
    with pytest.raises(CommandError, match="malformed: it needs campaign.slug"):
        run("load_demo", "--fixtures", str(tmp_path))
    assert not Campaign.objects.exists()
