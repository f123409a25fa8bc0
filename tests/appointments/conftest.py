"""Fixtures of the Appointments API tests: the parties of a visit by role name.

The users, their signed-in clients and `listing` come from tests/fixtures.py.
"""

import pytest


@pytest.fixture
def users(customer, other_customer, owner, other_owner, admin):
    """Every signed-in caller's user by role name."""
    return {
        "customer": customer,
        "other_customer": other_customer,
        "owner": owner,
        "other_owner": other_owner,
        "admin": admin,
    }
