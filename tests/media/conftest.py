"""Fixtures of the media tests: a private media folder for every test, a pending listing.

The users, their signed-in clients and `listing` come from tests/fixtures.py.
"""

from pathlib import Path

import pytest

from listings.models import PropertyStatus
from tests.factories import PropertyFactory


def stored_files(root: Path) -> list[str]:
    """Every file under a local media root, as storage names, sorted."""
    return sorted(str(path.relative_to(root)) for path in root.rglob("*") if path.is_file())


@pytest.fixture(autouse=True)
def private_media(media_root) -> Path:
    """Each test stores its files in a folder of its own, so it sees only its own files."""
    return media_root


@pytest.fixture
def pending_listing(owner):
    """A PENDING listing of `owner`: only its owner and admins see it."""
    return PropertyFactory(owner=owner.owner, status=PropertyStatus.PENDING)
