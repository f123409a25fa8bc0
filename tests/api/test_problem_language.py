"""Problem documents speak the language of Accept-Language; their codes and field names
stay the same stable English in every language (D5)."""

import pytest

from tests.factories import AppointmentFactory

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


@pytest.mark.parametrize(
    ("accept_language", "title", "message"),
    [
        ("es", "Permiso denegado", "No puedes reservar una visita a tu propio anuncio."),
        ("en", "Permission denied", "You cannot book a visit of your own listing."),
    ],
)
def test_a_services_refusal_follows_accept_language(
    owner_client, listing, accept_language, title, message
):
    response = owner_client.post(
        "/api/v1/appointments",
        {"date": "2999-01-01T10:00:00Z", "propertyId": listing.pk},
        format="json",
        headers={"accept-language": accept_language},
    )

    assert response.status_code == 403
    assert response.json() == {
        "type": "about:blank",
        "title": title,
        "status": 403,
        "detail": message,
        "code": "permission_denied",
        "errors": [{"field": "propertyId", "message": message, "code": "permission_denied"}],
    }


def test_a_services_refusal_with_values_follows_accept_language(owner_client, listing, customer):
    visit = AppointmentFactory(property=listing, user=customer, status="COMPLETED")

    response = owner_client.patch(
        f"/api/v1/appointments/{visit.pk}",
        {"status": "CONFIRMED"},
        format="json",
        headers={"accept-language": "es"},
    )

    assert response.status_code == 409
    body = response.json()
    assert (body["title"], body["detail"], body["code"]) == (
        "Cambio de estado no permitido",
        "Una visita no puede pasar de COMPLETED a CONFIRMED. Estados siguientes permitidos: "
        "ninguno (es definitivo).",
        "invalid_transition",
    )


def test_a_services_conflict_follows_accept_language(customer_client, listing):
    customer_client.post("/api/v1/favorites", {"propertyId": listing.pk}, format="json")

    response = customer_client.post(
        "/api/v1/favorites",
        {"propertyId": listing.pk},
        format="json",
        headers={"accept-language": "es"},
    )

    assert response.status_code == 409
    body = response.json()
    assert (body["title"], body["detail"], body["code"]) == (
        "Conflicto",
        "Este anuncio ya está entre los favoritos del usuario.",
        "conflict",
    )


@pytest.mark.parametrize(
    ("parameters", "accept_language", "detail", "message"),
    [
        (
            {"bbox": "-4,41,-3,40"},
            "es",
            "Valor no válido en: bbox.",
            "En bbox, minLat no debe ser mayor que maxLat.",
        ),
        (
            {"bbox": "-4,41,-3,40"},
            "en",
            "Invalid value for: bbox.",
            "bbox minLat must not be greater than maxLat.",
        ),
        (
            {"polygon": "-40,10,10,10,10,20,-40,10"},
            "es",
            "Valor no válido en: polygon.",
            "polygon puede abarcar como máximo 45 grados en cada sentido: dibuja un área más"
            " pequeña.",
        ),
        (
            {"polygon": "-40,10,10,10,10,20,-40,10"},
            "en",
            "Invalid value for: polygon.",
            "polygon may span at most 45 degrees each way: draw a smaller area.",
        ),
        (
            {"polygon": "-4,40,-3,40,-3,41"},
            "es",
            "Valor no válido en: polygon.",
            "polygon debe estar cerrado: su último punto repite el primero.",
        ),
    ],
)
def test_a_search_parameters_refusal_follows_accept_language(
    anonymous_client, parameters, accept_language, detail, message
):
    response = anonymous_client.get(
        "/api/v1/properties", parameters, headers={"accept-language": accept_language}
    )

    assert response.status_code == 400
    body = response.json()
    assert (body["detail"], body["code"]) == (detail, "validation_error")
    [field] = parameters
    assert body["errors"] == [{"field": field, "message": message, "code": "invalid"}]


def test_a_page_past_the_result_window_is_refused_in_spanish(anonymous_client):
    response = anonymous_client.get(
        "/api/v1/properties", {"page": "1000", "limit": "100"}, headers={"accept-language": "es"}
    )

    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "field": "page",
            "message": "page * limit puede ser como máximo 10000: acota la búsqueda o cambia su"
            " orden para llegar a más resultados.",
            "code": "max_value",
        }
    ]


@pytest.mark.parametrize(
    ("accept_language", "message"),
    [
        (
            "es",
            "el zoom 6 divide esta zona en 33153 celdas, más de 10000: aleja el mapa o envía su"
            " bbox.",
        ),
        (
            "en",
            "zoom 6 cuts this area into 33153 cells, more than 10000: zoom out, or send the"
            " map's bbox.",
        ),
    ],
)
def test_a_clusters_grid_refusal_follows_accept_language(
    anonymous_client, accept_language, message
):
    response = anonymous_client.get(
        "/api/v1/properties/clusters", {"zoom": "6"}, headers={"accept-language": accept_language}
    )

    assert response.status_code == 400
    body = response.json()
    assert [(error["field"], error["code"], error["message"]) for error in body["errors"]] == [
        ("zoom", "max_value", message)
    ]


@pytest.mark.parametrize(
    ("accept_language", "empty", "not_a_value"),
    [
        ("es", "Un valor vacío no filtra nada: omítelo.", "El valor es una cadena o un número."),
        (
            "en",
            "An empty value filters nothing: leave it out.",
            "The value is a string or a number.",
        ),
    ],
)
def test_a_saved_search_criterion_refusal_follows_accept_language(
    customer_client, accept_language, empty, not_a_value
):
    response = customer_client.post(
        "/api/v1/saved-searches",
        {"name": "Anything", "criteria": {"municipality": "", "minBedrooms": {"at least": 2}}},
        format="json",
        headers={"accept-language": accept_language},
    )

    assert response.status_code == 400
    body = response.json()
    assert [(error["field"], error["code"], error["message"]) for error in body["errors"]] == [
        ("criteria.municipality", "blank", empty),
        ("criteria.minBedrooms", "invalid", not_a_value),
    ]
