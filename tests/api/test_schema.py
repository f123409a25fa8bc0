"""The OpenAPI schema is generated and valid; the interactive docs work offline (D1)."""

import re

import pytest
import yaml
from django.contrib.staticfiles import finders
from django.core.management import call_command

USERS_AND_CATEGORIES_PATHS = {
    "/api/v1/users/",
    "/api/v1/users/{id}/",
    "/api/v1/users/register/",
    "/api/v1/users/login/",
    "/api/v1/users/logout/",
    "/api/v1/categories/",
    "/api/v1/categories/{id}/",
}


def test_the_schema_generates_and_validates_without_warnings(tmp_path):
    # given
    target = tmp_path / "schema.yaml"

    # when
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(target))

    # then
    document = yaml.safe_load(target.read_text())
    assert document["openapi"].startswith("3.")
    assert set(document["paths"]) >= USERS_AND_CATEGORIES_PATHS


@pytest.mark.parametrize("path", ["/api/v1/schema/", "/api/v1/schema"])
def test_the_schema_is_served_as_openapi_3(client, path):
    # when
    response = client.get(path, {"format": "json"})

    # then
    assert response.status_code == 200
    document = response.json()
    assert document["openapi"].startswith("3.")
    assert document["info"]["title"] == "Property Listing Platform API"
    assert set(document["paths"]) >= USERS_AND_CATEGORIES_PATHS
    assert document["components"]["securitySchemes"]["bearerAuth"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "An opaque token from POST /users/login or /users/register.",
    }


def test_the_schema_documents_problem_documents_for_errors(client):
    # when
    document = client.get("/api/v1/schema/", {"format": "json"}).json()

    # then the login operation lists its error answers as problem documents
    responses = document["paths"]["/api/v1/users/login/"]["post"]["responses"]
    assert {"200", "400", "401", "429"} <= set(responses)
    assert set(responses["401"]["content"]) == {"application/problem+json"}


def test_the_interactive_docs_are_served_from_local_files(client):
    # when
    response = client.get("/api/docs/")

    # then an HTML page is served
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    html = response.content.decode()
    assert "SwaggerUIBundle" in html
    # and every script and stylesheet it loads is a local path, none on another host
    references = re.findall(r'<script[^>]*\bsrc="([^"]*)"', html) + re.findall(
        r'<link[^>]*\bhref="([^"]*)"', html
    )
    assert len(references) >= 3
    assert all(reference.startswith("/") for reference in references), references
    assert not any(reference.startswith("//") for reference in references), references
    assert not re.search(r"https?://", html)
    # and the static files exist in the installed sidecar package
    for reference in references:
        assert reference.startswith("/static/"), reference
        assert finders.find(reference.removeprefix("/static/")) is not None, reference
