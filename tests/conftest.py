"""Fixtures shared by the whole suite."""

import pytest
from django.db import connection


def pytest_collection_modifyitems(config, items):
    """Tests marked postgres_only run in the PostgreSQL leg of CI, and only there."""
    if connection.vendor == "postgresql":
        return
    skip = pytest.mark.skip(reason="needs PostgreSQL; covered by the PostgreSQL leg of .ci/run")
    for item in items:
        if "postgres_only" in item.keywords:
            item.add_marker(skip)
