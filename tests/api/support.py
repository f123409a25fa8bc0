"""Helpers shared by the API tests: problem documents, shapes, password material."""

import json
from dataclasses import dataclass, field

from rest_framework.test import APIClient

from tests.support import PASSWORD as PASSWORD

PROBLEM_CONTENT_TYPE = "application/problem+json"
PROBLEM_KEYS = {"type", "title", "status", "detail", "code"}

# The public shape of a user (D4), and the detail shape with `owner` (service interface).
USER_KEYS = {
    "id",
    "name",
    "email",
    "phone",
    "userType",
    "image",
    "language",
    "createdAt",
    "updatedAt",
}
USER_DETAIL_KEYS = USER_KEYS | {"owner"}
AUTH_RESULT_KEYS = {"token", "tokenType", "expiresAt", "user"}

# Words that would betray credential material in a response (D3).
PASSWORD_WORDS = ("password", "hash", "salt", "argon2")


def assert_problem(
    response, status: int, code: str, errors: list[dict[str, str]] | None = None
) -> dict:
    """The response is a problem document (D5) with this status and code; returns its body.

    With `errors`, the document's field errors must equal them exactly; without, the
    document must carry no `errors` key at all.
    """
    assert response.status_code == status, response.content
    assert response["Content-Type"] == PROBLEM_CONTENT_TYPE
    body = json.loads(response.content)
    expected_keys = PROBLEM_KEYS | ({"errors"} if errors is not None else set())
    assert set(body) == expected_keys
    assert body["status"] == status
    assert body["code"] == code
    assert body["type"] == "about:blank"
    assert isinstance(body["title"], str)
    assert body["title"]
    assert isinstance(body["detail"], str)
    assert body["detail"]
    if errors is not None:
        assert body["errors"] == errors
    return body


def field_errors(response) -> list[str]:
    """The `field` of each entry of a problem document's `errors`, in order."""
    return [error["field"] for error in json.loads(response.content)["errors"]]


@dataclass
class Exchange:
    """One request made by a test client and the response it got."""

    path: str
    sent: object
    response: object
    stored_hashes: set[str] = field(default_factory=set)


def _is_random_text(key: str | None) -> bool:
    """Whether a key's value is random text: the token and every id (`id`, `ownerId`, ...).

    A random base-36 id can spell "hash" or "salt" by chance, so the word check would fail
    on it now and then; ids and the token are still checked against passwords and hashes.
    """
    return key is not None and (key in {"token", "id"} or key.endswith("Id"))


def _texts(value, key: str | None = None):
    """Yield every key of a JSON document and every string value, except random text."""
    if isinstance(value, dict):
        for child_key, child in value.items():
            yield child_key
            yield from _texts(child, child_key)
    elif isinstance(value, list):
        for child in value:
            yield from _texts(child, key)
    elif isinstance(value, str) and not _is_random_text(key):
        yield value


def password_material_in(
    body_text: str, *, passwords: set[str], hashes: set[str], words: bool = True
) -> list[str]:
    """What in a response body betrays credential material; an empty list when nothing does.

    The clear passwords and the stored hashes must not appear anywhere in the text. With
    `words`, no key and no string value of the JSON body may contain one of PASSWORD_WORDS
    (the token and the ids are random text, checked only against passwords and hashes).
    """
    findings = [f"password {secret!r}" for secret in passwords if secret in body_text]
    findings += [f"stored hash {stored!r}" for stored in hashes if stored and stored in body_text]
    if not words or not body_text:
        return findings
    try:
        document = json.loads(body_text)
    except ValueError:
        return [*findings, "a body that is not JSON"]
    for text in _texts(document):
        findings += [f"{word!r} in {text!r}" for word in PASSWORD_WORDS if word in text.lower()]
    return findings


def sent_passwords(exchange: Exchange) -> set[str]:
    """The passwords a request carried (password and currentPassword of a JSON body)."""
    try:
        body = json.loads(exchange.sent) if exchange.sent else {}
    except (TypeError, ValueError):
        return set()
    if not isinstance(body, dict):
        return set()
    values = (body.get("password"), body.get("currentPassword"))
    # Very short test passwords ("abc") could match unrelated text by chance.
    return {value for value in values if isinstance(value, str) and len(value) >= 8}


def iso(moment) -> str:
    """A datetime as the API writes it: ISO 8601 in UTC with `Z` (D3)."""
    return moment.isoformat().replace("+00:00", "Z")


def user_body(user) -> dict:
    """The public shape of a user, as the API must show it."""
    return {
        "id": user.pk,
        "name": user.name,
        "email": user.email,
        "phone": user.phone,
        "userType": user.user_type,
        "image": user.image,
        "language": user.language,
        "createdAt": iso(user.created_at),
        "updatedAt": iso(user.updated_at),
    }


def bearer_client(token: str) -> APIClient:
    """An API client that sends this bearer token."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client
