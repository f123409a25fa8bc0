"""/saved-searches: a user saves, reads, changes and deletes their own searches; admins
read everyone's; criteria are GET /properties' parameters, checked by the same rules."""

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from notifications.models import AlertFrequency, SavedSearch
from tests.api.support import assert_problem
from tests.factories import SavedSearchFactory

pytestmark = pytest.mark.django_db

SAVED_SEARCHES_URL = "/api/v1/saved-searches"
KEYS = {"id", "userId", "name", "criteria", "frequency", "createdAt", "updatedAt"}
TRIANGLE = "-3.71,40.41,-3.66,40.41,-3.68,40.43,-3.71,40.41"


def saved_search_url(saved_search_id: str) -> str:
    return f"{SAVED_SEARCHES_URL}/{saved_search_id}"


def iso(moment: datetime.datetime) -> str:
    return moment.astimezone(datetime.UTC).isoformat().replace("+00:00", "Z")


def body_of(saved_search: SavedSearch) -> dict:
    """A saved search as the API shows it."""
    return {
        "id": saved_search.id,
        "userId": saved_search.user_id,
        "name": saved_search.name,
        "criteria": saved_search.criteria,
        "frequency": saved_search.frequency,
        "createdAt": iso(saved_search.created_at),
        "updatedAt": iso(saved_search.updated_at),
    }


def rows() -> list[tuple]:
    """Every saved search as stored, to show that a refused request changed nothing."""
    return list(
        SavedSearch.objects.order_by("id").values_list(
            "id", "user_id", "name", "criteria", "frequency", "updated_at"
        )
    )


# --- Create -------------------------------------------------------------------------------


@pytest.mark.parametrize("path_end", ["", "/"])
def test_a_customer_saves_a_search(customer_client, customer, path_end):
    # when
    response = customer_client.post(
        f"{SAVED_SEARCHES_URL}{path_end}",
        {
            "name": "  Flats in Madrid  ",
            "criteria": {
                "municipality": " Madrid ",
                "type": "apartment",
                "maxPrice": 300000,
                "minBedrooms": "2",
                "polygon": TRIANGLE,
            },
            "frequency": "INSTANT",
        },
        format="json",
    )

    # then the criteria are kept as GET /properties reads them, in their canonical order
    assert response.status_code == 201, response.content
    saved_search = SavedSearch.objects.get()
    assert response.json() == body_of(saved_search)
    assert set(response.json()) == KEYS
    assert saved_search.user_id == customer.id
    assert saved_search.name == "Flats in Madrid"
    assert saved_search.criteria == {
        "type": "apartment",
        "municipality": "Madrid",
        "maxPrice": "300000",
        "minBedrooms": "2",
        "polygon": TRIANGLE,
    }
    assert saved_search.frequency == AlertFrequency.INSTANT


def test_a_saved_search_is_sent_daily_unless_told(owner_client):
    # when
    response = owner_client.post(
        SAVED_SEARCHES_URL,
        {"name": "Land", "criteria": {"type": "land", "bbox": "-4,40,-3,41"}},
        format="json",
    )

    # then
    assert response.status_code == 201, response.content
    assert response.json()["frequency"] == "DAILY"
    assert response.json()["criteria"] == {"type": "land", "bbox": "-4.0,40.0,-3.0,41.0"}


def test_refused_criteria_are_named_each_and_nothing_is_saved(customer_client):
    # when
    response = customer_client.post(
        SAVED_SEARCHES_URL,
        {
            "name": "Bad",
            "criteria": {
                "sort": "price",
                "colour": "blue",
                "minPrice": "cheap",
                "minArea": True,
                "type": "castle",
                "lat": 40,
            },
        },
        format="json",
    )

    # then
    body = assert_problem(response, 400, "validation_error", errors=response.json()["errors"])
    assert {error["field"] for error in body["errors"]} == {
        "criteria.sort",
        "criteria.colour",
        "criteria.minPrice",
        "criteria.minArea",
        "criteria.type",
        "criteria.lng",
        "criteria.radiusKm",
    }
    assert SavedSearch.objects.count() == 0


@pytest.mark.parametrize(
    ("criteria", "fields"),
    [
        ({}, ["criteria"]),
        ({"q": "  ", "municipality": ""}, ["criteria.q", "criteria.municipality"]),
        (["municipality", "Madrid"], ["criteria"]),
        ("municipality=Madrid", ["criteria"]),
        ({"minPrice": 500, "maxPrice": 100}, ["criteria.minPrice"]),
        ({"polygon": "-3.7,40.4,-3.6,40.4,-3.7,40.4"}, ["criteria.polygon"]),
        ({"minBedrooms": {"at least": 2}}, ["criteria.minBedrooms"]),
    ],
)
def test_criteria_that_filter_nothing_or_are_refused_are_400(customer_client, criteria, fields):
    # when
    response = customer_client.post(
        SAVED_SEARCHES_URL, {"name": "Anything", "criteria": criteria}, format="json"
    )

    # then
    body = assert_problem(response, 400, "validation_error", errors=response.json()["errors"])
    assert [error["field"] for error in body["errors"]] == fields
    assert SavedSearch.objects.count() == 0


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"criteria": {"type": "house"}}, "name"),
        ({"name": "   ", "criteria": {"type": "house"}}, "name"),
        ({"name": "x" * 101, "criteria": {"type": "house"}}, "name"),
        ({"name": "Houses"}, "criteria"),
        ({"name": "Houses", "criteria": {"type": "house"}, "frequency": "HOURLY"}, "frequency"),
    ],
)
def test_a_missing_or_bad_field_is_400(customer_client, body, field):
    # when
    response = customer_client.post(SAVED_SEARCHES_URL, body, format="json")

    # then
    body = assert_problem(response, 400, "validation_error", errors=response.json()["errors"])
    assert [error["field"] for error in body["errors"]] == [field]
    assert SavedSearch.objects.count() == 0


def test_a_user_saves_at_most_the_limit(customer_client, customer, settings):
    # given
    settings.SAVED_SEARCHES_MAX_PER_USER = 2
    SavedSearchFactory.create_batch(2, user=customer)
    before = rows()

    # when
    response = customer_client.post(
        SAVED_SEARCHES_URL, {"name": "Third", "criteria": {"type": "house"}}, format="json"
    )

    # then
    assert_problem(response, 409, "conflict")
    assert rows() == before


def test_saving_needs_a_signed_in_user(anonymous_client):
    # when
    response = anonymous_client.post(
        SAVED_SEARCHES_URL, {"name": "Houses", "criteria": {"type": "house"}}, format="json"
    )

    # then
    assert_problem(response, 401, "not_authenticated")
    assert SavedSearch.objects.count() == 0


# --- Read ---------------------------------------------------------------------------------


def test_a_user_lists_their_own_newest_first(customer_client, customer, other_customer):
    # given
    older = SavedSearchFactory(user=customer)
    newer = SavedSearchFactory(user=customer)
    SavedSearch.objects.filter(pk=older.pk).update(
        created_at=newer.created_at - datetime.timedelta(minutes=1)
    )
    older.refresh_from_db()
    SavedSearchFactory(user=other_customer)

    # when
    response = customer_client.get(SAVED_SEARCHES_URL, {"limit": 1, "page": 2})

    # then
    assert response.status_code == 200
    assert response.json() == {
        "data": [body_of(older)],
        "pagination": {"total": 2, "page": 2, "limit": 1, "pages": 2},
    }


def test_an_admin_lists_everyones(admin_client, customer, other_customer):
    # given
    saved = [SavedSearchFactory(user=customer), SavedSearchFactory(user=other_customer)]

    # when
    response = admin_client.get(SAVED_SEARCHES_URL)

    # then
    assert response.status_code == 200
    assert {item["id"] for item in response.json()["data"]} == {item.id for item in saved}


def test_a_list_costs_the_same_queries_for_1_and_for_20(
    customer_client, customer, django_assert_num_queries
):
    # given one saved search, and the query count of its list
    SavedSearchFactory(user=customer)
    with CaptureQueriesContext(connection) as for_one:
        assert customer_client.get(SAVED_SEARCHES_URL).status_code == 200
    SavedSearchFactory.create_batch(19, user=customer)

    # when
    with django_assert_num_queries(len(for_one)):
        response = customer_client.get(SAVED_SEARCHES_URL)

    # then
    assert len(response.json()["data"]) == 20


def test_a_user_reads_their_own_and_an_admin_anyones(clients, customer):
    # given
    saved_search = SavedSearchFactory(user=customer)

    # when
    own = clients["customer"].get(saved_search_url(saved_search.id))
    by_admin = clients["admin"].get(saved_search_url(saved_search.id))

    # then
    assert (own.status_code, by_admin.status_code) == (200, 200)
    assert own.json() == by_admin.json() == body_of(saved_search)


@pytest.mark.parametrize("viewer", ["other_customer", "owner", "anonymous"])
def test_someone_elses_saved_search_is_hidden(clients, customer, viewer):
    # given
    saved_search = SavedSearchFactory(user=customer)

    # when
    response = clients[viewer].get(saved_search_url(saved_search.id))

    # then
    if viewer == "anonymous":
        assert_problem(response, 401, "not_authenticated")
    else:
        assert_problem(response, 404, "not_found")


# --- Change and delete --------------------------------------------------------------------


def test_a_user_renames_and_pauses_their_saved_search(customer_client, customer):
    # given
    saved_search = SavedSearchFactory(user=customer)
    SavedSearch.objects.filter(pk=saved_search.pk).update(
        updated_at=saved_search.updated_at - datetime.timedelta(minutes=5)
    )
    saved_search.refresh_from_db()
    before = saved_search.updated_at

    # when
    response = customer_client.patch(
        saved_search_url(saved_search.id),
        {"name": "Quiet flats", "frequency": "PAUSED"},
        format="json",
    )

    # then
    assert response.status_code == 200, response.content
    saved_search.refresh_from_db()
    assert response.json() == body_of(saved_search)
    assert (saved_search.name, saved_search.frequency) == ("Quiet flats", "PAUSED")
    assert saved_search.criteria == {"type": "apartment", "municipality": "Madrid"}
    assert saved_search.updated_at > before


def test_new_criteria_replace_the_old_ones(customer_client, customer):
    # given
    saved_search = SavedSearchFactory(user=customer)

    # when
    response = customer_client.patch(
        saved_search_url(saved_search.id),
        {"criteria": {"transactionType": "RENT", "q": "terrace"}},
        format="json",
    )

    # then
    assert response.status_code == 200, response.content
    assert response.json()["criteria"] == {"q": "terrace", "transactionType": "RENT"}


def test_a_change_to_the_same_values_leaves_updated_at(customer_client, customer):
    # given
    saved_search = SavedSearchFactory(user=customer)
    before = rows()

    # when
    response = customer_client.patch(
        saved_search_url(saved_search.id),
        {"name": saved_search.name, "criteria": {"municipality": "Madrid", "type": "apartment"}},
        format="json",
    )

    # then
    assert response.status_code == 200
    assert rows() == before


def test_refused_new_criteria_change_nothing(customer_client, customer):
    # given
    saved_search = SavedSearchFactory(user=customer)
    before = rows()

    # when
    response = customer_client.patch(
        saved_search_url(saved_search.id),
        {"name": "Renamed", "criteria": {"bbox": "1,2,3"}},
        format="json",
    )

    # then
    body = assert_problem(response, 400, "validation_error", errors=response.json()["errors"])
    assert [error["field"] for error in body["errors"]] == ["criteria.bbox"]
    assert rows() == before


@pytest.mark.parametrize(("viewer", "status"), [("other_customer", 404), ("admin", 403)])
def test_only_its_user_changes_or_deletes_a_saved_search(clients, customer, viewer, status):
    # given
    saved_search = SavedSearchFactory(user=customer)
    before = rows()
    code = "not_found" if status == 404 else "permission_denied"

    # when
    changed = clients[viewer].patch(
        saved_search_url(saved_search.id), {"frequency": "PAUSED"}, format="json"
    )
    deleted = clients[viewer].delete(saved_search_url(saved_search.id))

    # then
    assert_problem(changed, status, code)
    assert_problem(deleted, status, code)
    assert rows() == before


def test_a_user_deletes_their_saved_search(customer_client, customer):
    # given
    saved_search = SavedSearchFactory(user=customer)
    kept = SavedSearchFactory(user=customer)

    # when
    response = customer_client.delete(saved_search_url(saved_search.id))

    # then
    assert response.status_code == 204
    assert response.content == b""
    assert list(SavedSearch.objects.values_list("id", flat=True)) == [kept.id]


def test_the_matchings_columns_follow_the_criteria(customer_client, customer):
    # given a saved search of a town
    created = customer_client.post(
        SAVED_SEARCHES_URL,
        {"name": "Segovia", "criteria": {"municipality": "SEGOVIA", "maxPrice": 200000}},
        format="json",
    )
    saved_search = SavedSearch.objects.get(pk=created.json()["id"])
    before = (saved_search.town, saved_search.max_price, saved_search.area_west)

    # when its criteria become a map box with words
    customer_client.patch(
        saved_search_url(saved_search.pk),
        {"criteria": {"bbox": "-4,40,-3,41", "q": "pool", "minBedrooms": 2}},
        format="json",
    )

    # then the columns the matching reads say the same (notifications.matching)
    saved_search.refresh_from_db()
    assert before == ("segovia", 200000, None)
    assert (saved_search.town, saved_search.max_price, saved_search.min_bedrooms) == (None, None, 2)
    assert (
        saved_search.area_west,
        saved_search.area_south,
        saved_search.area_east,
        saved_search.area_north,
    ) == (-4.0, 40.0, -3.0, 41.0)
    assert (saved_search.words, saved_search.checked_on_listing) == ("pool", False)

    # when its words are not plain words (a phrase)
    customer_client.patch(
        saved_search_url(saved_search.pk), {"criteria": {"q": '"sea view"'}}, format="json"
    )

    # then they are checked on the listing
    saved_search.refresh_from_db()
    assert (saved_search.words, saved_search.checked_on_listing) == (None, True)
