"""The home page, the account pages it links to, and the language switch."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaign.models import Campaign, Membership, Turn

pytestmark = pytest.mark.django_db


@pytest.fixture
def users(django_user_model):
    """alice plays in two campaigns, bob runs a third, charlie is in none, staff is staff."""
    make = django_user_model.objects.create_user
    users = {
        "alice": make("alice", password="alice-pass"),
        "bob": make("bob", password="bob-pass"),
        "charlie": make("charlie", password="charlie-pass"),
        "staff": make("staff", password="staff-pass", is_staff=True),
    }
    campaigns = {
        slug: Campaign.objects.create(slug=slug, name=name, width=8, height=8, **extra)
        for slug, name, extra in [
            ("varnholt", "Siege of Varnholt", {"scenario": "incursion", "turn_number": 3}),
            ("marsh", "Marsh Raid", {"day": 12, "ended": "Naran surrendered"}),
            ("ashen", "Ashen Crown", {}),
        ]
    }
    Turn.objects.create(campaign=campaigns["varnholt"], number=3)
    for user, slug, role in [
        ("alice", "varnholt", Membership.Role.PLAYER),
        ("alice", "marsh", Membership.Role.OBSERVER),
        ("bob", "ashen", Membership.Role.GM),
    ]:
        Membership.objects.create(user=users[user], campaign=campaigns[slug], role=role)
    return users


def test_anonymous_sees_welcome_and_login_link(client):
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Welcome to the Fantasy Warriors Campaign manager" in html
    assert f'href="{reverse("login")}"' in html
    assert "Your campaigns" not in html
    # the shared layout: htmx from django-htmx, CSRF for htmx requests, the stylesheet
    assert "django_htmx/htmx-2.min.js" in html
    assert 'hx-headers=\'{"x-csrftoken": "' in html
    assert "css/site.css" in html


def test_member_sees_only_their_campaigns(client, users):
    client.force_login(users["alice"])
    html = client.get("/").content.decode()
    assert "Your campaigns" in html
    assert "Siege of Varnholt" in html
    assert "Marsh Raid" in html
    assert "Ashen Crown" not in html
    assert "Turn 3, day 0" in html
    assert "Scenario: Incursion" in html
    # each card is a link to the campaign's overview
    assert (
        f'<a href="{reverse("campaign:detail", args=["varnholt"])}">Siege of Varnholt</a>' in html
    )
    assert "Observer" in html and "Player" in html
    assert "Ended" in html and "In progress" in html
    assert "Welcome to the Fantasy Warriors" not in html


def test_game_master_sees_their_role(client, users):
    client.force_login(users["bob"])
    html = client.get("/").content.decode()
    assert "Ashen Crown" in html and "Game master" in html
    assert "Siege of Varnholt" not in html and "Marsh Raid" not in html


def test_user_without_campaigns_is_told_so(client, users):
    client.force_login(users["charlie"])
    html = client.get("/").content.decode()
    assert "You are not in any campaign yet." in html
    for name in ("Siege of Varnholt", "Marsh Raid", "Ashen Crown"):
        assert name not in html


def test_staff_see_only_their_own_campaigns_and_the_admin(client, users):
    """Issue 12 (8): being staff gives the admin, not a seat in every campaign."""
    client.force_login(users["staff"])
    html = client.get("/").content.decode()
    assert "You are not in any campaign yet." in html
    for name in ("Siege of Varnholt", "Marsh Raid", "Ashen Crown"):
        assert name not in html
    assert f'href="{reverse("admin:index")}"' in html


def test_login_page_renders_and_logs_in(client, users):
    response = client.get(reverse("login"))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'name="username"' in html and 'name="password"' in html

    response = client.post(reverse("login"), {"username": "alice", "password": "alice-pass"})
    assert response.status_code == 302
    assert response["Location"] == "/"
    assert "Siege of Varnholt" in client.get("/").content.decode()


def test_logout_is_a_post_form(client, users):
    client.force_login(users["alice"])
    html = client.get("/").content.decode()
    assert f'<form class="inline" method="post" action="{reverse("logout")}">' in html

    response = client.post(reverse("logout"))
    assert response.status_code == 200
    assert "You have been logged out." in response.content.decode()
    assert "Welcome to the Fantasy Warriors" in client.get("/").content.decode()


def test_password_change_pages_render(client, users):
    client.force_login(users["alice"])
    response = client.get(reverse("password_change"))
    assert response.status_code == 200
    assert 'name="new_password1"' in response.content.decode()
    response = client.get(reverse("password_change_done"))
    assert response.status_code == 200
    assert "Your password was changed." in response.content.decode()


def test_home_answers_in_italian(client):
    response = client.get("/", headers={"accept-language": "it"})
    assert response.status_code == 200
    assert '<html lang="it">' in response.content.decode()


def test_language_switch_sets_the_cookie(client):
    response = client.post(reverse("set_language"), {"language": "it", "next": "/"})
    assert response.status_code == 302
    assert response["Location"] == "/"
    assert response.cookies["django_language"].value == "it"
    assert '<html lang="it">' in client.get("/").content.decode()
