"""GET /appointments?from=&to= take any ISO 8601 offset Python reads (D8).

Found by the Schemathesis run (tests/fuzz): PostgreSQL takes offsets up to +/-15:59 only, so
`from=...+18:22` was a database error (answered 400 by the safety net) instead of a filter.
"""

import datetime

import pytest

from tests.appointments.support import APPOINTMENTS_URL, FUTURE, ids
from tests.factories import AppointmentFactory

pytestmark = pytest.mark.django_db

OFFSET = datetime.timezone(datetime.timedelta(hours=18, minutes=22))


@pytest.mark.parametrize("parameter", ["from", "to"])
def test_a_bound_with_a_large_offset_filters_in_utc(customer_client, customer, listing, parameter):
    # given a visit, and a bound equal to its start written with a +18:22 offset
    visit = AppointmentFactory(property=listing, user=customer, date=FUTURE)
    bound = FUTURE.astimezone(OFFSET).isoformat()

    # when the customer lists their visits from, or up to, that bound
    response = customer_client.get(APPOINTMENTS_URL, {parameter: bound})

    # then the bound is the same moment as the visit's start, so the visit is listed
    assert response.status_code == 200, response.content
    assert ids(response) == [visit.id]


def test_a_bound_past_the_visit_in_utc_excludes_it(customer_client, customer, listing):
    # given a visit, and a `from` one minute after its start, written with a +18:22 offset
    AppointmentFactory(property=listing, user=customer, date=FUTURE)
    bound = (FUTURE + datetime.timedelta(minutes=1)).astimezone(OFFSET).isoformat()

    # when the customer lists their visits from that bound
    response = customer_client.get(APPOINTMENTS_URL, {"from": bound})

    # then the visit is not listed
    assert response.status_code == 200, response.content
    assert ids(response) == []
