"""The settings modules, each loaded in a fresh interpreter with a chosen environment
(settings are read once per process, so the test process's own settings cannot be reused)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management.utils import get_random_secret_key

from config.site import demo_addr, site_url

ROOT = Path(__file__).resolve().parents[2]
# Variables the settings read: every test starts from none of them.
SETTINGS_ENV = (
    "DJANGO_SETTINGS_MODULE",
    "SECRET_KEY",
    "DEBUG",
    "ALLOWED_HOSTS",
    "CELERY_BROKER_URL",
    "CELERY_TASK_EAGER_PROPAGATES",
    "CSRF_TRUSTED_ORIGINS",
    "SECURE_HSTS_SECONDS",
    "EMAIL_PORT",
    "EMAIL_USE_TLS",
    "DJANGO_ALLOW_ASYNC_UNSAFE",  # set by the browser tests; check --deploy warns about it
    "SITE_URL",
    "FW_DEMO_ADDR",
)


def run_python(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in SETTINGS_ENV}
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def load_settings(*names: str, **env: str) -> dict[str, object]:
    """The named settings (and the Celery app's `conf.<name>` for `celery:<name>`)."""
    code = (
        "import json, sys, django; django.setup()\n"
        "from django.conf import settings\n"
        "from config import celery_app\n"
        "out = {}\n"
        "for n in sys.argv[1:]:\n"
        "    out[n] = getattr(celery_app.conf, n[7:]) if n.startswith('celery:') "
        "else getattr(settings, n)\n"
        "print(json.dumps(out, default=str))\n"
    )
    env.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    result = run_python("-c", code, *names, **env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def production_env(**extra: str) -> dict[str, str]:
    return {
        "DJANGO_SETTINGS_MODULE": "config.settings_production",
        "SECRET_KEY": get_random_secret_key(),
        "ALLOWED_HOSTS": "example.org",
        **extra,
    }


def test_deploy_check_passes_for_production_settings():
    result = run_python(
        "manage.py", "check", "--deploy", "--fail-level", "WARNING", **production_env()
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout
    assert "WARNING" not in result.stderr


def test_production_forces_debug_off_and_https():
    loaded = load_settings(
        "DEBUG",
        "SECURE_SSL_REDIRECT",
        "SESSION_COOKIE_SECURE",
        "CSRF_COOKIE_SECURE",
        "SECURE_PROXY_SSL_HEADER",
        "ALLOWED_HOSTS",
        **production_env(DEBUG="1", ALLOWED_HOSTS="example.org, www.example.org"),
    )
    assert loaded == {
        "DEBUG": False,
        "SECURE_SSL_REDIRECT": True,
        "SESSION_COOKIE_SECURE": True,
        "CSRF_COOKIE_SECURE": True,
        "SECURE_PROXY_SSL_HEADER": ["HTTP_X_FORWARDED_PROTO", "https"],
        "ALLOWED_HOSTS": ["example.org", "www.example.org"],
    }


def test_production_without_secret_key_fails_clearly():
    env = production_env()
    del env["SECRET_KEY"]
    result = run_python("manage.py", "check", **env)
    assert result.returncode != 0
    assert "SECRET_KEY must be set in the environment" in result.stderr


def test_production_without_allowed_hosts_fails_clearly():
    env = production_env()
    del env["ALLOWED_HOSTS"]
    result = run_python("manage.py", "check", **env)
    assert result.returncode != 0
    assert "ALLOWED_HOSTS must be set in the environment" in result.stderr


def test_debug_off_without_secret_key_fails_clearly():
    result = run_python("manage.py", "check", DJANGO_SETTINGS_MODULE="config.settings", DEBUG="0")
    assert result.returncode != 0
    assert "SECRET_KEY must be set in the environment when DEBUG is off" in result.stderr


def test_debug_off_with_secret_key_loads():
    key = get_random_secret_key()
    loaded = load_settings("DEBUG", "SECRET_KEY", DEBUG="false", SECRET_KEY=key)
    assert loaded == {"DEBUG": False, "SECRET_KEY": key}


def test_local_defaults_are_debug_with_a_marked_insecure_key():
    loaded = load_settings("DEBUG", "SECRET_KEY", "ALLOWED_HOSTS")
    assert loaded["DEBUG"] is True
    assert str(loaded["SECRET_KEY"]).startswith("django-insecure-")
    assert loaded["ALLOWED_HOSTS"] == ["localhost", "127.0.0.1", "[::1]"]


def test_debug_must_be_a_boolean():
    result = run_python(
        "manage.py", "check", DJANGO_SETTINGS_MODULE="config.settings", DEBUG="maybe"
    )
    assert result.returncode != 0
    assert "DEBUG='maybe' is not a boolean" in result.stderr


def test_no_broker_means_tasks_run_eagerly():
    names = ("CELERY_TASK_ALWAYS_EAGER", "celery:task_always_eager", "celery:broker_url")
    for env in ({}, {"CELERY_BROKER_URL": ""}):
        loaded = load_settings(*names, "CELERY_TASK_EAGER_PROPAGATES", **env)
        assert loaded == {
            "CELERY_TASK_ALWAYS_EAGER": True,
            "celery:task_always_eager": True,
            "celery:broker_url": "memory://",
            "CELERY_TASK_EAGER_PROPAGATES": True,
        }


def test_a_broker_means_a_real_worker():
    url = "redis://127.0.0.1:6379/5"
    loaded = load_settings(
        "CELERY_TASK_ALWAYS_EAGER",
        "celery:task_always_eager",
        "celery:broker_url",
        "celery:result_backend",
        CELERY_BROKER_URL=url,
    )
    assert loaded == {
        "CELERY_TASK_ALWAYS_EAGER": False,
        "celery:task_always_eager": False,
        "celery:broker_url": url,
        "celery:result_backend": None,
    }


def test_tasks_queued_by_name_are_registered_in_a_web_process():
    # The turn's services queue their own tasks by name (`config.celery.enqueue_on_commit`);
    # a web process that never imported a tasks module must still know them, or closing a
    # turn on the demo leaves it "waiting for a worker" for ever.
    from campaign.turns import services

    names = (
        services.RESOLVE_TASK,
        services.RESOLVE_AFTER_TASK,
        services.CLOSE_IF_READY_TASK,
        services.DEADLINES_TASK,
    )
    code = (
        "import sys, django; django.setup(); from config.celery import app; "
        "print(' '.join(n for n in sys.argv[1:] if n not in app.tasks))"
    )
    result = run_python("-c", code, *names, DJANGO_SETTINGS_MODULE="config.settings")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


# --- the site's address ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, "http://127.0.0.1:8000"),
        ({"FW_DEMO_ADDR": ""}, "http://127.0.0.1:8000"),
        ({"FW_DEMO_ADDR": "192.168.1.20:8080"}, "http://192.168.1.20:8080"),
        ({"FW_DEMO_ADDR": "9000"}, "http://127.0.0.1:9000"),  # runserver's bare port
        ({"FW_DEMO_ADDR": "[::1]:8000"}, "http://[::1]:8000"),
        ({"SITE_URL": "https://fw.example.org/"}, "https://fw.example.org"),
        (
            {"SITE_URL": "https://fw.example.org", "FW_DEMO_ADDR": "0.0.0.0:80"},
            "https://fw.example.org",
        ),
        ({"SITE_URL": " ", "FW_DEMO_ADDR": "10.0.0.5:8000"}, "http://10.0.0.5:8000"),
    ],
)
def test_site_url_is_set_or_the_demos_own_address(env, expected):
    assert site_url(env) == expected


def test_the_demo_address_defaults_to_the_local_one():
    assert demo_addr({}) == "127.0.0.1:8000"
    assert demo_addr({"FW_DEMO_ADDR": "demo.lan:8001"}) == "demo.lan:8001"


def test_the_settings_take_the_site_url_from_the_environment():
    assert load_settings("SITE_URL") == {"SITE_URL": "http://127.0.0.1:8000"}
    assert load_settings("SITE_URL", FW_DEMO_ADDR="10.1.2.3:8123") == {
        "SITE_URL": "http://10.1.2.3:8123"
    }
    assert load_settings("SITE_URL", SITE_URL="https://example.org/", FW_DEMO_ADDR="x:1") == {
        "SITE_URL": "https://example.org"
    }
