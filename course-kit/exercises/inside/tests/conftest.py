"""Make sure the tests run on THIS copy of edujax (the one with your work in it)."""
import os

import edujax

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def pytest_configure(config):
    where = os.path.dirname(os.path.dirname(os.path.abspath(edujax.__file__)))
    if os.path.abspath(where) != HERE:
        raise RuntimeError(f"these tests imported edujax from {where}, not from this folder "
                           f"({HERE}): run `python -m pytest` from {HERE}")
