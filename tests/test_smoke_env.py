import sys


def test_python_is_at_least_312():
    assert sys.version_info >= (3, 12)
