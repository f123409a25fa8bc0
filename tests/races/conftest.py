"""Fixtures of the race tests: users of each role, rates no racer reaches, a clean cache."""

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from accounts.models import User, UserType
from accounts.services import access_token_issue, user_create


def signed_in_client(user: User) -> APIClient:
    """A client of its own, sending a fresh bearer token of the user, as a racer needs."""
    token, _access_token = access_token_issue(user=user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


@pytest.fixture(autouse=True)
def race_ready(monkeypatch):
    """Rates well beyond the racers' number, and throttle counters of the test's own."""
    monkeypatch.setattr(
        SimpleRateThrottle,
        "THROTTLE_RATES",
        {**SimpleRateThrottle.THROTTLE_RATES, "anonymous": "1000/min", "signed_in": "1000/min"},
    )
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def owner_user(transactional_db) -> User:
    return user_create(
        email="oscar.owner@example.com", password=None, name="Oscar Owner", user_type=UserType.OWNER
    )


@pytest.fixture
def admin_user(transactional_db) -> User:
    return user_create(
        email="ada.admin@example.com", password=None, name="Ada Admin", user_type=UserType.ADMIN
    )
