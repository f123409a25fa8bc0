"""The server refuses what the schema says is not an id (D2, D5).

Every query parameter and body property the schema gives the id pattern is sent values
that miss it by a little; each is a 400 validation_error naming it, with one message. The
places are read from the schema, so a new one is checked as soon as it is declared.
"""

from urllib.parse import urlencode

import pytest

from accounts.models import UserType
from appointments.models import Appointment
from config.ids import ID_MESSAGE, ID_PATTERN
from favorites.models import Favorite
from listings.models import Property, TypeSpecificRecord
from media_app.models import Image, Video
from notifications.models import Notification
from tests.api.support import assert_problem
from tests.factories import FavoriteFactory, NotificationFactory, PropertyFactory, UserFactory
from tests.support import make_user

SCHEMA_PATH = "/api/v1/schema/"
# Values an id pattern refuses, each by one rule: too short, too long, a digit first, a
# capital, a space around it, a line break after it.
NOT_IDS = [
    "a" * 24,
    "a" * 26,
    "1" + "a" * 24,
    "a" * 24 + "A",
    " " + "a" * 24,
    "a" * 25 + "\n",
]
# The one operation with an `{id}` in its path that reads ids from its body.
PATH_OPERATIONS_WITH_IDS = {("patch", "/api/v1/properties/{id}/")}


def _is_id(schema: dict) -> bool:
    return schema.get("pattern") == ID_PATTERN


def id_places(document: dict) -> list[tuple[str, str, str, str]]:
    """(method, path, where, name) of every id a request may carry, `where` being "query",
    "json" or "multipart"; an array of ids is named with `[]` after it."""
    components = document["components"]["schemas"]
    places = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "query" and _is_id(parameter["schema"]):
                    places.append((method, path, "query", parameter["name"]))
            for media_type, content in operation.get("requestBody", {}).get("content", {}).items():
                where = "multipart" if media_type == "multipart/form-data" else "json"
                component = components[content["schema"]["$ref"].rsplit("/", 1)[1]]
                for name, schema in component["properties"].items():
                    if _is_id(schema):
                        places.append((method, path, where, name))
                    elif schema.get("type") == "array" and _is_id(schema["items"]):
                        places.append((method, path, where, f"{name}[]"))
    return places


@pytest.fixture
def document(client) -> dict:
    return client.get(SCHEMA_PATH, {"format": "json"}).json()


def _rows() -> dict[str, int]:
    """How many rows the requests of a test could have made."""
    models = (Property, TypeSpecificRecord, Appointment, Favorite, Notification, Image, Video)
    return {model.__name__: model.objects.count() for model in models}


@pytest.mark.django_db
def test_every_id_the_schema_declares_is_refused_when_it_is_not_one(document, sign_in):
    # given an administrator (who may make every request), a listing, and every place of a
    # request the schema says holds an id
    client = sign_in(make_user(UserType.ADMIN))
    listing = PropertyFactory()
    places = id_places(document)
    assert len(places) > 25
    assert {(method, path) for method, path, _where, _name in places if "{" in path} == (
        PATH_OPERATIONS_WITH_IDS
    )
    rows = _rows()

    for method, path, where, name in places:
        for value in NOT_IDS:
            # when a request carries a value that is not an id there
            url = path.replace("{id}", listing.id)
            field = name.removesuffix("[]")
            sent = [value] if name.endswith("[]") else value
            if where == "query":
                response = client.generic(method.upper(), f"{url}?{urlencode({field: value})}")
            else:
                response = getattr(client, method)(
                    url, {field: sent}, format="multipart" if where == "multipart" else "json"
                )

            # then it is a 400 naming the field, with the one message of a wrong id
            case = (method, path, name, value)
            assert response.status_code == 400, (case, response.content)
            assert response["Content-Type"] == "application/problem+json", case
            problem = response.json()
            assert problem["code"] == "validation_error", case
            named = f"{field}.0" if name.endswith("[]") else field
            assert [error for error in problem["errors"] if error["field"] == named] == [
                {"field": named, "message": ID_MESSAGE, "code": "invalid"}
            ], (case, problem)

    # and nothing was made or changed
    assert _rows() == rows
    listing_now = Property.objects.get(pk=listing.pk)
    assert (listing_now.category_id, listing_now.owner_id) == (
        listing.category_id,
        listing.owner_id,
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/api/v1/favorites/", "userId"),
        ("/api/v1/notifications/", "userId"),
        ("/api/v1/appointments/", "userId"),
        ("/api/v1/appointments/", "ownerId"),
    ],
)
def test_a_user_who_may_name_only_themselves_gets_400_not_403_for_a_wrong_id(
    customer_api, path, name
):
    # when a customer names, in a list's query, something that is not an id
    response = customer_api.get(path, {name: "someone-else"})

    # then it is refused as what it is, not as someone else's records
    assert_problem(
        response,
        400,
        "validation_error",
        errors=[{"field": name, "message": ID_MESSAGE, "code": "invalid"}],
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "make"),
    [
        ("/api/v1/favorites/", lambda user: FavoriteFactory(user=user)),
        ("/api/v1/notifications/", lambda user: NotificationFactory(user=user)),
    ],
)
def test_an_empty_user_id_lists_the_callers_own(customer, customer_api, path, make):
    # given a record of the caller and one of someone else
    own = make(customer)
    make(UserFactory())

    # when the caller sends userId empty (the schema says it may be)
    response = customer_api.get(f"{path}?userId=")

    # then it is the same as no userId: the caller's own
    assert response.status_code == 200
    body = response.json()
    items = body["data"] if isinstance(body, dict) else body
    assert [item["id"] for item in items] == [own.id]
