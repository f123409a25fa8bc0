"""Errors are RFC 9457 problem documents; routes answer with and without a slash (D1, D5)."""

import json
import logging

import pytest
from rest_framework.test import APIClient

from accounts import selectors
from accounts.models import User
from tests.api.support import PASSWORD, assert_problem

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("password_material_check")]

REGISTER = "/api/v1/users/register"
BODY_LIMIT = 1024 * 1024


def registration_of_size(size: int) -> bytes:
    """A register body of exactly `size` bytes, padded in `name` (too long to be valid)."""
    body = {"email": "padded@example.com", "password": PASSWORD, "name": ""}
    padding = size - len(json.dumps(body).encode())
    body["name"] = "x" * padding
    encoded = json.dumps(body).encode()
    assert len(encoded) == size
    return encoded


# --- Bodies -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", [REGISTER, "/api/v1/users/login"], ids=["in-the-view", "in-the-email-throttle"]
)
def test_malformed_json_is_400_parse_error(api_client, path):
    # when
    response = api_client.post(
        path, '{"email": "ana@example.com", ', content_type="application/json"
    )

    # then
    body = assert_problem(response, 400, "parse_error")
    assert body["title"] == "Malformed request body"
    assert body["detail"].startswith("JSON parse error")
    assert User.objects.count() == 0


def test_a_malformed_multipart_body_is_400_parse_error(api_client):
    # when
    response = api_client.post(
        REGISTER, b"--not-the-boundary\r\n", content_type="multipart/form-data; boundary="
    )

    # then
    assert_problem(response, 400, "parse_error")
    assert User.objects.count() == 0


def test_a_json_body_over_one_megabyte_is_413(api_client):
    # when
    response = api_client.post(
        REGISTER, registration_of_size(BODY_LIMIT + 1), content_type="application/json"
    )

    # then
    body = assert_problem(response, 413, "payload_too_large")
    assert body["detail"] == "The request body is larger than the limit."
    assert User.objects.count() == 0


def test_a_json_body_of_exactly_one_megabyte_is_read(api_client):
    # when
    response = api_client.post(
        REGISTER, registration_of_size(BODY_LIMIT), content_type="application/json"
    )

    # then it is judged on its fields
    assert_problem(
        response,
        400,
        "validation_error",
        errors=[
            {
                "field": "name",
                "message": "Ensure this field has no more than 200 characters.",
                "code": "max_length",
            }
        ],
    )
    assert User.objects.count() == 0


def test_an_unsupported_content_type_is_415(api_client):
    # when
    response = api_client.post(REGISTER, "email=ana@example.com", content_type="text/plain")

    # then
    assert_problem(response, 415, "unsupported_media_type")
    assert User.objects.count() == 0


def test_an_unsatisfiable_accept_header_is_406(api_client):
    # when
    response = api_client.get("/api/v1/categories", HTTP_ACCEPT="application/xml")

    # then
    assert_problem(response, 406, "not_acceptable")


# --- Routes -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/api/",
        "/api/v1/",
        "/api/v1/nothing-here",
        "/api/v1/users/register/extra",
        "/api/v2/anything",
        "/api/v2/users/login/",
    ],
)
@pytest.mark.parametrize("method", ["get", "post", "delete"])
def test_an_unknown_route_under_api_is_a_404_problem(path, method):
    # given a client that, like a browser-less API client, sends no CSRF token
    client = APIClient(enforce_csrf_checks=True)

    # when
    response = getattr(client, method)(path)

    # then
    body = assert_problem(response, 404, "not_found")
    assert body["detail"] == "No API endpoint matches this path."


def test_a_method_the_users_endpoint_lacks_is_405(customer, customer_api):
    # given
    before = list(User.objects.values_list())

    # when
    response = customer_api.put(f"/api/v1/users/{customer.pk}", {"name": "X"}, format="json")

    # then
    body = assert_problem(response, 405, "method_not_allowed")
    assert body["detail"] == 'Method "PUT" not allowed.'
    assert list(User.objects.values_list()) == before


@pytest.mark.parametrize(
    ("method", "path"),
    [("delete", "/api/v1/users"), ("put", "/api/v1/categories"), ("get", "/api/v1/users/login")],
)
def test_other_missing_methods_are_405_for_whoever_may_call_the_route(admin_api, method, path):
    # when
    response = getattr(admin_api, method)(path)

    # then
    assert_problem(response, 405, "method_not_allowed")


@pytest.mark.parametrize("path", ["/api/v1/users/login", "/api/v1/users/login/"])
def test_login_answers_with_and_without_a_trailing_slash(api_client, customer, path):
    # when
    response = api_client.post(path, {"email": customer.email, "password": PASSWORD}, format="json")

    # then it is answered in place, with no redirect
    assert response.status_code == 200
    assert response.json()["user"]["id"] == customer.pk


@pytest.mark.parametrize("path", ["/api/v1/categories", "/api/v1/categories/"])
def test_categories_answer_with_and_without_a_trailing_slash(api_client, path):
    # when
    response = api_client.get(path)

    # then
    assert response.status_code == 200
    assert response.json() == []


@pytest.mark.parametrize("suffix", ["", "/"])
def test_a_detail_path_answers_with_and_without_a_trailing_slash(customer, customer_api, suffix):
    # when
    response = customer_api.get(f"/api/v1/users/{customer.pk}{suffix}")

    # then
    assert response.status_code == 200
    assert response.json()["id"] == customer.pk


# --- Unexpected failures ----------------------------------------------------------------


def test_an_unexpected_exception_is_a_500_problem_without_details(admin_api, monkeypatch, caplog):
    # given a selector that fails with a message holding data
    def fail(**kwargs):
        """Fail the way an unforeseen bug would."""
        raise RuntimeError("secret-detail")

    monkeypatch.setattr(selectors, "user_list", fail)
    caplog.set_level(logging.DEBUG)

    # when
    response = admin_api.get("/api/v1/users")

    # then the client gets a bare problem document
    body = assert_problem(response, 500, "server_error")
    assert body["title"] == "Internal server error"
    assert body["detail"] == "The server could not complete the request."
    text = response.content.decode()
    assert "secret-detail" not in text
    assert "Traceback" not in text
    assert "RuntimeError" not in text
    # and the log names the failure's kind and place, with no message or traceback
    errors = [record for record in caplog.records if record.levelno >= logging.ERROR]
    assert any(
        record.name == "config.api"
        and "Unhandled RuntimeError on GET /api/v1/users" in record.getMessage()
        for record in errors
    )
    assert all(record.exc_info is None for record in caplog.records)
    assert "secret-detail" not in caplog.text
    assert "Traceback" not in caplog.text


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    ["/api/v1/users/a%00b", "/api/v1/categories/UPPER", "/api/v1/properties/with.dot"],
    ids=["nul-byte", "upper-case", "dot"],
)
def test_a_path_id_that_cannot_be_a_cuid_is_404_on_every_database(api_client, path):
    # when an id position holds characters no id has
    response = api_client.get(path)

    # then the route does not match and the answer is the API's 404
    assert_problem(response, 404, "not_found")
