"""Helpers shared by the whole suite: making users, and API clients signed in as them."""

import itertools

from rest_framework.test import APIClient

from accounts.models import User, UserType
from accounts.services import access_token_issue, user_create

# The password of every user the fixtures make; strong enough for Django's validators.
PASSWORD = "correct-horse-battery-staple"

_numbers = itertools.count(1)


def make_user(user_type: str = UserType.CUSTOMER, **fields) -> User:
    """A user of this type, with its role record, made by the accounts service.

    Fields override numbered defaults (email, name, phone); the password is PASSWORD.
    """
    number = next(_numbers)
    fields.setdefault("email", f"{user_type.lower()}{number}@example.com")
    fields.setdefault("name", f"{user_type.title()} Number {number}")
    fields.setdefault("phone", f"+3460000{number:04d}")
    fields.setdefault("password", PASSWORD)
    return user_create(user_type=user_type, **fields)


def signed_in_client[Client: APIClient](user: User, client: Client | None = None) -> Client:
    """An API client (a new APIClient unless one is given) sending a fresh bearer token of
    this user."""
    token, _access_token = access_token_issue(user=user)
    client = APIClient() if client is None else client
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client
