"""The language of a user's emails through the API: set at sign-up (from Accept-Language
unless given), read and changed on the user's own resource, and only LANGUAGES' codes."""

import pytest

from accounts.models import User

pytestmark = pytest.mark.django_db

REGISTER_URL = "/api/v1/users/register"


def user_url(user: User) -> str:
    return f"/api/v1/users/{user.pk}"


def registration(**fields) -> dict:
    return {"email": "lucia@example.com", "password": "a long passphrase", **fields}


@pytest.mark.parametrize(("accept_language", "language"), [("es-ES,es;q=0.9", "es"), ("en", "en")])
def test_sign_up_takes_the_language_of_the_request(anonymous_client, accept_language, language):
    response = anonymous_client.post(
        REGISTER_URL, registration(), format="json", headers={"accept-language": accept_language}
    )

    assert response.status_code == 201, response.content
    assert response.json()["user"]["language"] == language
    assert User.objects.get(email="lucia@example.com").language == language


def test_sign_up_may_name_its_language(anonymous_client):
    response = anonymous_client.post(
        REGISTER_URL, registration(language="es"), format="json", headers={"accept-language": "en"}
    )

    assert response.status_code == 201, response.content
    assert User.objects.get(email="lucia@example.com").language == "es"


def test_a_user_changes_the_language_of_their_emails(customer_client, customer):
    response = customer_client.patch(user_url(customer), {"language": "es"}, format="json")

    assert response.status_code == 200, response.content
    assert response.json()["language"] == "es"
    customer.refresh_from_db()
    assert customer.language == "es"


@pytest.mark.parametrize("language", ["fr", "ES", "", "spanish"])
def test_an_unknown_language_is_a_validation_problem(customer_client, customer, language):
    response = customer_client.patch(user_url(customer), {"language": language}, format="json")

    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert body["code"] == "validation_error"
    assert [(error["field"], error["code"]) for error in body["errors"]] == [
        ("language", "invalid_choice")
    ]
    customer.refresh_from_db()
    assert customer.language == "en"
