"""Problem documents speak the language of Accept-Language; their codes and field names
stay the same stable English in every language (D5)."""

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("accept_language", "title", "detail"),
    [
        ("es-ES,es;q=0.9", "Solicitud no válida", "Valor no válido en: page."),
        ("en-GB,en;q=0.9", "Invalid request", "Invalid value for: page."),
        ("de", "Invalid request", "Invalid value for: page."),
    ],
)
def test_a_validation_problem_follows_accept_language(
    anonymous_client, accept_language, title, detail
):
    response = anonymous_client.get(
        "/api/v1/properties", {"page": "0"}, headers={"accept-language": accept_language}
    )

    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert (body["title"], body["detail"], body["code"]) == (title, detail, "validation_error")
    assert [(error["field"], error["code"]) for error in body["errors"]] == [("page", "min_value")]
    assert "Accept-Language" in response["Vary"]


@pytest.mark.parametrize(
    ("accept_language", "title", "detail"),
    [
        ("es", "No encontrado", "Ninguna operación de la API corresponde a esta ruta."),
        ("en", "Not found", "No API endpoint matches this path."),
    ],
)
def test_an_unknown_api_path_follows_accept_language(
    anonymous_client, accept_language, title, detail
):
    response = anonymous_client.get(
        "/api/v1/no-such-thing", headers={"accept-language": accept_language}
    )

    assert response.status_code == 404
    body = response.json()
    assert (body["title"], body["detail"], body["code"]) == (title, detail, "not_found")
