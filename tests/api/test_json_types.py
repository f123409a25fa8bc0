"""JSON bodies are read by their JSON types; forms keep their string conversions (D3, D5).

Found by the Schemathesis run (tests/fuzz): a number sent for a string, or 0 for a boolean,
was converted and stored instead of being refused.
"""

from decimal import Decimal

import pytest

from listings.models import Property, PropertyStatus
from tests.api.support import assert_problem
from tests.factories import PropertyFactory, TypeSpecificRecordFactory

CATEGORIES_PATH = "/api/v1/categories"


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"name": 12}, "name", "Must be a JSON string."),
        ({"name": True}, "name", "Must be a JSON string."),
        ({"name": "Lofts", "description": 0}, "description", "Must be a JSON string."),
    ],
)
def test_a_json_value_of_the_wrong_type_is_a_validation_error(admin_api, body, field, message):
    # when an admin sends a category whose field holds another JSON type than the schema's
    response = admin_api.post(CATEGORIES_PATH, body, format="json")

    # then it is refused, naming the field
    assert_problem(
        response,
        400,
        "validation_error",
        errors=[{"field": field, "message": message, "code": "invalid"}],
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("value", "accepted"), [(True, True), (0, False), ("true", False), (None, False)]
)
def test_a_record_boolean_takes_only_true_or_false(owner_api, owner, value, accepted):
    # given a house record of the owner's listing
    listing = PropertyFactory(owner=owner.owner, status=PropertyStatus.AVAILABLE)
    record = TypeSpecificRecordFactory(property=listing, kind="house", swimming_pool=False)

    # when its owner sets swimmingPool to a JSON value
    response = owner_api.patch(
        f"/api/v1/houses/{record.id}", {"swimmingPool": value}, format="json"
    )

    # then only a JSON boolean is taken
    assert response.status_code == (200 if accepted else 400), response.content
    record.refresh_from_db()
    assert record.swimming_pool is accepted


@pytest.mark.parametrize(("value", "accepted"), [(4, True), ("4", False), (4.5, False)])
def test_a_record_count_takes_only_a_json_integer(owner_api, owner, value, accepted):
    # given a house record of the owner's listing
    listing = PropertyFactory(owner=owner.owner, status=PropertyStatus.AVAILABLE)
    record = TypeSpecificRecordFactory(property=listing, kind="house")

    # when its owner sets the number of rooms to a JSON value
    response = owner_api.patch(f"/api/v1/houses/{record.id}", {"rooms": value}, format="json")

    # then only a JSON integer is taken
    assert response.status_code == (200 if accepted else 400), response.content


def test_a_form_body_keeps_its_string_conversions(admin_api):
    # when an admin sends a category as a form, whose values are all strings
    response = admin_api.post(CATEGORIES_PATH, {"name": "12", "description": "Lofts"})

    # then the form is read as before
    assert response.status_code == 201, response.content
    assert response.json()["name"] == "12"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("area", "accepted"),
    [(9999999999.99, True), (9999999999.999, False), (0.01, True), (0.005, False)],
)
def test_decimal_bounds_hold_for_the_value_as_sent(owner_api, owner, area, accepted):
    # given a listing of the owner
    listing = PropertyFactory(owner=owner.owner, area=Decimal("80.00"))

    # when its owner sets an area at the edge of the schema's minimum and maximum
    response = owner_api.patch(f"/api/v1/properties/{listing.id}", {"area": area}, format="json")

    # then a value past a bound is refused even if rounding would bring it back inside
    assert response.status_code == (200 if accepted else 400), response.content
    if not accepted:
        body = response.json()
        assert [error["field"] for error in body["errors"]] == ["area"]
        assert Property.objects.get(pk=listing.id).area == Decimal("80.00")
