"""GET /appointments: who sees which visits, each filter, and the order (interface, D7, D8)."""

import datetime

import pytest

from appointments.models import AppointmentStatus
from tests.appointments.support import (
    APPOINTMENTS_URL,
    FUTURE,
    assert_field_problem,
    assert_problem,
    at,
    ids,
    iso,
)
from tests.factories import AppointmentFactory, ListingFactory

pytestmark = pytest.mark.django_db

DAY = datetime.timedelta(days=1)


@pytest.fixture
def other_listing(other_owner_record):
    """An AVAILABLE listing of the other owner."""
    return ListingFactory(owner=other_owner_record, title="Loft by the river")


@pytest.fixture
def visits(listing, other_listing, customer, other_customer):
    """Four visits: each customer on each listing, a day apart, in a known order."""
    return {
        "customer_on_listing": AppointmentFactory(property=listing, user=customer, date=FUTURE),
        "other_customer_on_listing": AppointmentFactory(
            property=listing, user=other_customer, date=FUTURE + DAY
        ),
        "customer_on_other_listing": AppointmentFactory(
            property=other_listing, user=customer, date=FUTURE + 2 * DAY
        ),
        "other_customer_on_other_listing": AppointmentFactory(
            property=other_listing, user=other_customer, date=FUTURE + 3 * DAY
        ),
    }


def test_customer_sees_by_default_only_their_own_visits(customer_client, visits):
    # when
    response = customer_client.get(APPOINTMENTS_URL)

    # then
    assert response.status_code == 200
    assert ids(response) == [
        visits["customer_on_listing"].id,
        visits["customer_on_other_listing"].id,
    ]


def test_owner_sees_by_default_the_visits_of_their_listings_and_their_own_bookings(
    owner_client, owner, other_listing, visits
):
    # given the owner also booked a visit of another owner's listing, as a customer
    own_booking = AppointmentFactory(property=other_listing, user=owner, date=FUTURE + 4 * DAY)

    # when
    response = owner_client.get(APPOINTMENTS_URL)

    # then
    assert response.status_code == 200
    assert ids(response) == [
        visits["customer_on_listing"].id,
        visits["other_customer_on_listing"].id,
        own_booking.id,
    ]


def test_admin_sees_every_visit(admin_client, visits):
    # when
    response = admin_client.get(APPOINTMENTS_URL)

    # then
    assert response.status_code == 200
    assert ids(response) == [visit.id for visit in visits.values()]


def test_a_user_without_visits_gets_an_empty_array(other_owner_client, visits, other_owner_record):
    # given the other owner's listing has no visits any more
    for name in ("customer_on_other_listing", "other_customer_on_other_listing"):
        visits[name].delete()

    # when
    response = other_owner_client.get(APPOINTMENTS_URL)

    # then
    assert response.status_code == 200
    assert response.json() == []


def test_anonymous_list_is_401(anonymous_client, visits):
    # when
    response = anonymous_client.get(APPOINTMENTS_URL)

    # then
    assert_problem(response, status=401, code="not_authenticated")
    assert response["WWW-Authenticate"] == "Bearer"


def test_user_id_filter_of_oneself(customer_client, customer, visits):
    # when
    response = customer_client.get(APPOINTMENTS_URL, {"userId": customer.id})

    # then
    assert response.status_code == 200
    assert ids(response) == [
        visits["customer_on_listing"].id,
        visits["customer_on_other_listing"].id,
    ]


def test_owner_filtering_on_their_own_user_id_gets_only_their_bookings(
    owner_client, owner, other_listing, visits
):
    # given
    own_booking = AppointmentFactory(property=other_listing, user=owner, date=FUTURE + 4 * DAY)

    # when
    response = owner_client.get(APPOINTMENTS_URL, {"userId": owner.id})

    # then
    assert response.status_code == 200
    assert ids(response) == [own_booking.id]


def test_admin_filters_on_any_user_id(admin_client, other_customer, visits):
    # when
    response = admin_client.get(APPOINTMENTS_URL, {"userId": other_customer.id})

    # then
    assert response.status_code == 200
    assert ids(response) == [
        visits["other_customer_on_listing"].id,
        visits["other_customer_on_other_listing"].id,
    ]


def test_owner_id_filter_of_ones_own_owner_record(
    owner_client, owner_record, owner, other_listing, visits
):
    # given a booking of the owner as a customer, which is not a visit of their listings
    AppointmentFactory(property=other_listing, user=owner, date=FUTURE + 4 * DAY)

    # when
    response = owner_client.get(APPOINTMENTS_URL, {"ownerId": owner_record.id})

    # then
    assert response.status_code == 200
    assert ids(response) == [
        visits["customer_on_listing"].id,
        visits["other_customer_on_listing"].id,
    ]


def test_admin_filters_on_any_owner_id(admin_client, other_owner_record, visits):
    # when
    response = admin_client.get(APPOINTMENTS_URL, {"ownerId": other_owner_record.id})

    # then
    assert response.status_code == 200
    assert ids(response) == [
        visits["customer_on_other_listing"].id,
        visits["other_customer_on_other_listing"].id,
    ]


# The answer of every userId naming someone else (docs/api.md), and of an ownerId.
NOT_YOUR_VISITS = [
    {
        "field": "userId",
        "message": "You may list only your own visits.",
        "code": "permission_denied",
    }
]
NOT_YOUR_LISTINGS = [
    {
        "field": "ownerId",
        "message": "You may list only the visits of your own listings.",
        "code": "permission_denied",
    }
]


@pytest.mark.parametrize(
    ("caller", "named_user"),
    [
        ("customer", "other_customer"),
        ("customer", "owner"),
        ("owner", "customer"),
        ("other_owner", "owner"),
        ("other_customer", "customer"),
    ],
)
def test_non_admin_naming_another_users_id_is_403(clients, users, visits, caller, named_user):
    # when
    response = clients[caller].get(APPOINTMENTS_URL, {"userId": users[named_user].id})

    # then
    assert_problem(response, status=403, code="permission_denied", errors=NOT_YOUR_VISITS)


def test_non_admin_naming_an_unknown_user_id_is_403(customer_client, visits):
    # when
    response = customer_client.get(APPOINTMENTS_URL, {"userId": "zzzzzzzzzzzzzzzzzzzzzzzzz"})

    # then
    assert_problem(response, status=403, code="permission_denied", errors=NOT_YOUR_VISITS)


@pytest.mark.parametrize(
    ("caller", "named_owner"),
    [("customer", "owner"), ("other_owner", "owner"), ("owner", "other_owner")],
)
def test_non_admin_naming_an_owner_id_not_theirs_is_403(
    clients, users, visits, caller, named_owner
):
    # when
    response = clients[caller].get(APPOINTMENTS_URL, {"ownerId": users[named_owner].owner.id})

    # then
    assert_problem(response, status=403, code="permission_denied", errors=NOT_YOUR_LISTINGS)


def test_property_id_filter(owner_client, listing, visits):
    # when
    response = owner_client.get(APPOINTMENTS_URL, {"propertyId": listing.id})

    # then
    assert response.status_code == 200
    assert ids(response) == [
        visits["customer_on_listing"].id,
        visits["other_customer_on_listing"].id,
    ]


def test_property_id_filter_stays_within_what_the_caller_may_see(
    customer_client, other_listing, visits
):
    # when the customer filters on a listing where another customer also has a visit
    response = customer_client.get(APPOINTMENTS_URL, {"propertyId": other_listing.id})

    # then only their own visit shows
    assert response.status_code == 200
    assert ids(response) == [visits["customer_on_other_listing"].id]


@pytest.mark.parametrize("status", AppointmentStatus.values)
def test_status_filter(admin_client, listing, customer, status):
    # given one visit in each status
    by_status = {
        value: AppointmentFactory(
            property=listing, user=customer, date=at(60 * number), status=value
        )
        for number, value in enumerate(AppointmentStatus.values)
    }

    # when
    response = admin_client.get(APPOINTMENTS_URL, {"status": status})

    # then
    assert response.status_code == 200
    assert ids(response) == [by_status[status].id]
    assert response.json()[0]["status"] == status


@pytest.mark.parametrize("status", ["confirmed", "DONE", "PENDING,CONFIRMED"])
def test_invalid_status_filter_is_400_naming_status(customer_client, visits, status):
    # when
    response = customer_client.get(APPOINTMENTS_URL, {"status": status})

    # then
    assert_field_problem(response, status=400, code="validation_error", field="status")


def test_date_filter_matches_the_utc_day_on_its_boundaries(admin_client, owner_record, customer):
    # given visits at both edges of 2031-05-14 (UTC) and just outside it, each on its own
    # listing so that none overlaps another
    day_start = datetime.datetime(2031, 5, 14, tzinfo=datetime.UTC)
    second = datetime.timedelta(seconds=1)
    starts = {
        "last second before": day_start - second,
        "first moment": day_start,
        "last second": day_start + DAY - second,
        "first moment after": day_start + DAY,
    }
    visits = {
        name: AppointmentFactory(
            property=ListingFactory(owner=owner_record), user=customer, date=start
        )
        for name, start in starts.items()
    }

    # when
    response = admin_client.get(APPOINTMENTS_URL, {"date": "2031-05-14"})

    # then
    assert response.status_code == 200
    assert ids(response) == [visits["first moment"].id, visits["last second"].id]
    assert [item["date"] for item in response.json()] == [
        "2031-05-14T00:00:00Z",
        "2031-05-14T23:59:59Z",
    ]


def test_date_filter_of_a_day_without_visits_is_empty(customer_client, visits):
    # when
    response = customer_client.get(APPOINTMENTS_URL, {"date": "2031-05-15"})

    # then the 15th holds only the other customer's visit, which the customer does not see
    assert response.status_code == 200
    assert response.json() == []


@pytest.mark.parametrize(
    "date",
    [
        "2031-13-01",
        "2031-02-30",
        "tomorrow",
        "14/05/2031",
        # other formats than YYYY-MM-DD (D8), some of them ambiguous (May 6 or June 5?)
        "05/14/2031",
        "05/06/2031",
        "May 14 2031",
        "2031-05-14T00:00:00Z",
    ],
)
def test_invalid_date_filter_is_400_naming_date(customer_client, visits, date):
    # when
    response = customer_client.get(APPOINTMENTS_URL, {"date": date})

    # then
    assert_problem(
        response,
        status=400,
        code="validation_error",
        errors=[{"field": "date", "message": "Enter a valid date.", "code": "invalid"}],
    )


@pytest.mark.parametrize("date", ["9999-12-31", "0001-01-01"])
def test_date_filter_on_the_first_and_last_representable_days(admin_client, visits, date):
    # when
    response = admin_client.get(APPOINTMENTS_URL, {"date": date})

    # then
    assert response.status_code == 200, response.content
    assert response.json() == []


def test_last_representable_day_holds_its_visits(admin_client, listing, customer):
    # given a visit on 9999-12-31
    last_day = AppointmentFactory(
        property=listing,
        user=customer,
        date=datetime.datetime(9999, 12, 31, 23, 0, tzinfo=datetime.UTC),
    )

    # when
    response = admin_client.get(APPOINTMENTS_URL, {"date": "9999-12-31"})

    # then
    assert response.status_code == 200, response.content
    assert ids(response) == [last_day.id]


@pytest.mark.parametrize("name", ["userId", "ownerId"])
def test_an_empty_user_or_owner_filter_is_no_filter(customer_client, visits, name):
    # when
    response = customer_client.get(APPOINTMENTS_URL, {name: ""})

    # then the customer's own visits, as without the parameter
    assert response.status_code == 200, response.content
    assert ids(response) == [
        visits["customer_on_listing"].id,
        visits["customer_on_other_listing"].id,
    ]


def test_from_and_to_bound_the_start_inclusively(admin_client, visits):
    # when
    response = admin_client.get(
        APPOINTMENTS_URL, {"from": iso(FUTURE + DAY), "to": iso(FUTURE + 2 * DAY)}
    )

    # then both visits starting exactly on a bound are in
    assert response.status_code == 200
    assert ids(response) == [
        visits["other_customer_on_listing"].id,
        visits["customer_on_other_listing"].id,
    ]


def test_from_alone_and_to_alone(admin_client, visits):
    # when
    after = admin_client.get(
        APPOINTMENTS_URL, {"from": iso(FUTURE + DAY + datetime.timedelta(seconds=1))}
    )
    before = admin_client.get(APPOINTMENTS_URL, {"to": iso(FUTURE + DAY)})

    # then
    assert after.status_code == 200
    assert ids(after) == [
        visits["customer_on_other_listing"].id,
        visits["other_customer_on_other_listing"].id,
    ]
    assert before.status_code == 200
    assert ids(before) == [
        visits["customer_on_listing"].id,
        visits["other_customer_on_listing"].id,
    ]


def test_from_later_than_to_is_400_naming_from(customer_client, visits):
    # when
    response = customer_client.get(APPOINTMENTS_URL, {"from": iso(FUTURE + DAY), "to": iso(FUTURE)})

    # then
    assert_field_problem(response, status=400, code="validation_error", field="from")


@pytest.mark.parametrize("name", ["from", "to"])
def test_invalid_range_bound_is_400_naming_it(customer_client, visits, name):
    # when
    response = customer_client.get(APPOINTMENTS_URL, {name: "next week"})

    # then
    assert_field_problem(response, status=400, code="validation_error", field=name)


def test_filters_combine(owner_client, listing, customer, other_customer):
    # given
    wanted = AppointmentFactory(
        property=listing, user=customer, date=FUTURE, status=AppointmentStatus.CONFIRMED
    )
    AppointmentFactory(property=listing, user=customer, date=at(60))
    also_wanted = AppointmentFactory(
        property=listing,
        user=other_customer,
        date=at(120),
        status=AppointmentStatus.CONFIRMED,
    )
    AppointmentFactory(
        property=ListingFactory(owner=listing.owner),
        user=customer,
        date=at(180),
        status=AppointmentStatus.CONFIRMED,
    )
    AppointmentFactory(
        property=listing, user=customer, date=FUTURE + DAY, status=AppointmentStatus.CONFIRMED
    )

    # when
    response = owner_client.get(
        APPOINTMENTS_URL,
        {"propertyId": listing.id, "status": "CONFIRMED", "date": "2031-05-14"},
    )

    # then
    assert response.status_code == 200
    assert ids(response) == [wanted.id, also_wanted.id]


def test_list_is_ordered_by_date_then_id(admin_client, customer):
    # given three visits at one moment on three listings, and one earlier
    simultaneous = [
        AppointmentFactory(property=ListingFactory(), user=customer, date=at(60)) for _ in range(3)
    ]
    earlier = AppointmentFactory(property=ListingFactory(), user=customer, date=at(0))
    later = AppointmentFactory(property=ListingFactory(), user=customer, date=at(61))

    # when
    response = admin_client.get(APPOINTMENTS_URL)

    # then
    assert response.status_code == 200
    assert ids(response) == [
        earlier.id,
        *sorted(visit.id for visit in simultaneous),
        later.id,
    ]
