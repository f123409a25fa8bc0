"""Fixtures of the Properties API tests: the cache of public reads switched on.

The users, their signed-in clients and `category` come from tests/fixtures.py.
"""

import pytest


@pytest.fixture
def cache_on(settings):
    """The cache of public reads on (the test settings keep it off)."""
    settings.PUBLIC_READ_CACHE_SECONDS = 60
