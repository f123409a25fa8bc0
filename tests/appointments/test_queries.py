"""GET /appointments costs the same few queries whatever the number of visits it shows."""

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.appointments.support import APPOINTMENTS_URL, FUTURE
from tests.factories import AppointmentFactory, ListingFactory, UserFactory

pytestmark = pytest.mark.django_db

MAX_QUERIES = 4


def make_visits(count: int, *, owner_record, customer, start: int = 0) -> None:
    """`count` visits, each on a listing of its own; half by `customer` of listings of
    other owners, half by other customers of listings of `owner_record`."""
    for number in range(start, start + count):
        if number % 2:
            listing, user = ListingFactory(owner=owner_record), UserFactory(password=None)
        else:
            listing, user = ListingFactory(), customer
        AppointmentFactory(
            property=listing, user=user, date=FUTURE + datetime.timedelta(hours=number)
        )


def queries_of(client) -> tuple[int, int]:
    """(queries, items) of one GET /appointments."""
    with CaptureQueriesContext(connection) as context:
        response = client.get(APPOINTMENTS_URL)
    assert response.status_code == 200, response.content
    return len(context.captured_queries), len(response.json())


@pytest.mark.parametrize("viewer", ["customer", "owner", "admin"])
def test_list_costs_the_same_queries_for_1_and_for_30_visits(
    clients, owner_record, customer, django_assert_num_queries, viewer
):
    # given one visit the viewer sees, and the query count of the list that shows it
    make_visits(2, owner_record=owner_record, customer=customer)
    queries_for_one, items = queries_of(clients[viewer])
    assert items == (2 if viewer == "admin" else 1)
    make_visits(58, owner_record=owner_record, customer=customer, start=2)

    # when
    with django_assert_num_queries(queries_for_one):
        response = clients[viewer].get(APPOINTMENTS_URL)

    # then
    assert queries_for_one <= MAX_QUERIES
    assert len(response.json()) == (60 if viewer == "admin" else 30)


def test_filtered_list_costs_no_more_than_one_more_query(
    owner_client, owner_record, customer, django_assert_max_num_queries
):
    # given
    make_visits(30, owner_record=owner_record, customer=customer)
    plain, _items = queries_of(owner_client)

    # when
    with django_assert_max_num_queries(plain + 1):
        response = owner_client.get(
            APPOINTMENTS_URL,
            {"ownerId": owner_record.id, "status": "PENDING", "date": "2031-05-14"},
        )

    # then
    assert response.status_code == 200
    assert len(response.json()) == 7
