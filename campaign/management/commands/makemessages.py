"""`manage.py makemessages`, with the project's own defaults: what is not the app's text
(the tests, a test run's artifacts, a virtualenv, collected static files) is never read, so
a plain `manage.py makemessages -l it` gives exactly the catalogue the i18n test expects.
(`./run messages` refreshes and compiles the Italian catalogue.)"""

from __future__ import annotations

from typing import Any

from django.core.management.commands import makemessages

IGNORE = [
    ".venv/*",
    ".venv-tools/*",
    "node_modules/*",
    "staticfiles/*",
    "test-artifacts/*",
    "tests/*",
]


class Command(makemessages.Command):
    def handle(self, *args: Any, **options: Any) -> None:
        options["ignore_patterns"] = [*(options.get("ignore_patterns") or []), *IGNORE]
        super().handle(*args, **options)
