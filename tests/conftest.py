"""Fixtures shared by every test package. pytest-django reads its settings module from
pyproject.toml; the pure rules tests under tests/rules never touch the database."""
