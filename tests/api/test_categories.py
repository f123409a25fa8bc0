"""Property categories: everyone reads, admins write (decisions D14, D15)."""

import re

import pytest

from listings.models import PropertyCategory
from tests.api.support import assert_problem
from tests.factories import CategoryFactory, PropertyFactory

pytestmark = pytest.mark.django_db

CATEGORIES = "/api/v1/categories"
UNKNOWN_ID = "zzzzzzzzzzzzzzzzzzzzzzzzz"
CATEGORY_KEYS = {"id", "name", "description"}
NAME_TAKEN = {
    "field": "name",
    "message": "A category with this name already exists.",
    "code": "conflict",
}


def category_body(category: PropertyCategory) -> dict:
    """A category as the API shows it."""
    category.refresh_from_db()
    return {"id": category.pk, "name": category.name, "description": category.description}


def snapshot() -> list[tuple]:
    """Every category row, to show that a refused request changed nothing."""
    return list(PropertyCategory.objects.order_by("pk").values_list())


@pytest.fixture
def residential():
    """A category named Residential that no listing uses yet."""
    return CategoryFactory(name="Residential", description="Homes to live in.")


# --- Reads ------------------------------------------------------------------------------


@pytest.mark.parametrize("reader", ["api_client", "customer_api", "owner_api", "admin_api"])
def test_anyone_lists_the_categories_by_name(request, reader):
    # given categories created out of name order
    land = CategoryFactory(name="Land", description="Plots.")
    commercial = CategoryFactory(name="Commercial", description="")
    residential = CategoryFactory(name="Residential", description="Homes.")
    client = request.getfixturevalue(reader)

    # when
    response = client.get(CATEGORIES)

    # then
    assert response.status_code == 200
    assert response.json() == [
        category_body(commercial),
        category_body(land),
        category_body(residential),
    ]
    assert all(set(item) == CATEGORY_KEYS for item in response.json())


@pytest.mark.parametrize("reader", ["api_client", "customer_api"])
def test_anyone_reads_one_category(request, reader, residential):
    # when
    response = request.getfixturevalue(reader).get(f"{CATEGORIES}/{residential.pk}")

    # then
    assert response.status_code == 200
    assert response.json() == {
        "id": residential.pk,
        "name": "Residential",
        "description": "Homes to live in.",
    }


def test_an_unknown_category_is_404(api_client):
    # when
    response = api_client.get(f"{CATEGORIES}/{UNKNOWN_ID}")

    # then
    assert_problem(response, 404, "not_found")


# --- Admin writes -----------------------------------------------------------------------


def test_an_admin_creates_a_category(admin_api):
    # when a body also carries an id of its own choosing
    response = admin_api.post(
        CATEGORIES,
        {"id": "aaaaaaaaaaaaaaaaaaaaaaaaa", "name": "  Garage  ", "description": "Parking."},
        format="json",
    )

    # then
    assert response.status_code == 201
    category = PropertyCategory.objects.get()
    assert re.fullmatch(r"[a-z][a-z0-9]{24}", category.pk)
    assert category.pk != "aaaaaaaaaaaaaaaaaaaaaaaaa"
    assert (category.name, category.description) == ("Garage", "Parking.")
    assert response.json() == category_body(category)


def test_a_category_without_description_gets_an_empty_one(admin_api):
    # when
    response = admin_api.post(CATEGORIES, {"name": "Garage"}, format="json")

    # then
    assert response.status_code == 201
    assert response.json() == category_body(PropertyCategory.objects.get())
    assert response.json()["description"] == ""


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ({}, {"field": "name", "message": "This field is required.", "code": "required"}),
        (
            {"name": "   "},
            {"field": "name", "message": "This field may not be blank.", "code": "blank"},
        ),
        (
            {"name": "x" * 101},
            {
                "field": "name",
                "message": "Ensure this field has no more than 100 characters.",
                "code": "max_length",
            },
        ),
    ],
    ids=["missing", "blank", "too-long"],
)
def test_a_category_needs_a_valid_name(admin_api, body, error):
    # when
    response = admin_api.post(CATEGORIES, body, format="json")

    # then
    assert_problem(response, 400, "validation_error", errors=[error])
    assert PropertyCategory.objects.count() == 0


@pytest.mark.parametrize("name", ["Residential", "residential", "RESIDENTIAL"])
def test_a_duplicate_category_name_is_409(admin_api, residential, name):
    # given
    before = snapshot()

    # when
    response = admin_api.post(CATEGORIES, {"name": name}, format="json")

    # then
    assert_problem(response, 409, "conflict", errors=[NAME_TAKEN])
    assert snapshot() == before


def test_an_admin_changes_a_category(admin_api, residential):
    # when
    response = admin_api.patch(
        f"{CATEGORIES}/{residential.pk}", {"description": "Houses and flats."}, format="json"
    )

    # then
    assert response.status_code == 200
    residential.refresh_from_db()
    assert (residential.name, residential.description) == ("Residential", "Houses and flats.")
    assert response.json() == category_body(residential)


def test_renaming_a_category_to_a_taken_name_is_409(admin_api, residential):
    # given
    land = CategoryFactory(name="Land")
    before = snapshot()

    # when
    response = admin_api.patch(f"{CATEGORIES}/{land.pk}", {"name": "RESIDENTIAL"}, format="json")

    # then
    assert_problem(response, 409, "conflict", errors=[NAME_TAKEN])
    assert snapshot() == before


def test_an_admin_deletes_an_unused_category(admin_api, residential):
    # when
    response = admin_api.delete(f"{CATEGORIES}/{residential.pk}")

    # then
    assert response.status_code == 204
    assert response.content == b""
    assert not PropertyCategory.objects.filter(pk=residential.pk).exists()


def test_deleting_a_category_in_use_is_409(admin_api, residential):
    # given a listing filed under the category
    PropertyFactory(category=residential)
    before = snapshot()

    # when
    response = admin_api.delete(f"{CATEGORIES}/{residential.pk}")

    # then
    body = assert_problem(response, 409, "conflict")
    assert body["detail"] == "The category is used by listings and cannot be deleted."
    assert snapshot() == before


@pytest.mark.parametrize("method", ["get", "patch", "delete"])
def test_an_admin_acting_on_an_unknown_category_gets_404(admin_api, residential, method):
    # given
    before = snapshot()

    # when
    response = getattr(admin_api, method)(
        f"{CATEGORIES}/{UNKNOWN_ID}", {"name": "Other"}, format="json"
    )

    # then
    assert_problem(response, 404, "not_found")
    assert snapshot() == before


# --- Refused writes ---------------------------------------------------------------------


def writes(category: PropertyCategory) -> list[tuple[str, str, dict]]:
    """Every kind of write on categories, as (method, path, body)."""
    return [
        ("post", CATEGORIES, {"name": "Garage"}),
        ("patch", f"{CATEGORIES}/{category.pk}", {"name": "Renamed"}),
        ("delete", f"{CATEGORIES}/{category.pk}", {}),
    ]


@pytest.mark.parametrize("writer", ["customer_api", "owner_api"])
def test_customers_and_owners_may_not_write_categories(request, residential, writer):
    # given
    client = request.getfixturevalue(writer)
    before = snapshot()

    for method, path, body in writes(residential):
        # when
        response = getattr(client, method)(path, body, format="json")

        # then
        problem = assert_problem(response, 403, "permission_denied")
        assert problem["detail"] == "Only administrators may change this."
    assert snapshot() == before


def test_anonymous_may_not_write_categories(api_client, residential):
    # given
    before = snapshot()

    for method, path, body in writes(residential):
        # when
        response = getattr(api_client, method)(path, body, format="json")

        # then
        assert_problem(response, 401, "not_authenticated")
        assert response["WWW-Authenticate"] == "Bearer"
    assert snapshot() == before
