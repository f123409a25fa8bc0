"""What the database itself holds: the check constraints, and on PostgreSQL the overlap
exclusion constraint `appointments_no_overlap` (migrations 0002 and 0003)."""

import datetime

import pytest
from django.db import IntegrityError, transaction

from appointments import services
from appointments.models import Appointment, AppointmentStatus
from config.errors import Conflict
from tests.appointments.support import APPOINTMENTS_URL, at, iso
from tests.factories import AppointmentFactory, ListingFactory, UserFactory
from tests.support import signed_in_client

pytestmark = pytest.mark.django_db


def constraint_name(error: IntegrityError) -> str | None:
    """The name of the constraint PostgreSQL reports for an integrity error."""
    return error.__cause__.diag.constraint_name


def insert(**fields) -> Appointment:
    """Write one appointment through the ORM, in a savepoint of its own."""
    with transaction.atomic():
        return AppointmentFactory(**fields)


@pytest.mark.parametrize(
    "end_offset", [datetime.timedelta(0), -datetime.timedelta(minutes=30)], ids=["at", "before"]
)
def test_ends_after_start_check_refuses_a_visit_ending_at_or_before_its_start(
    listing, customer, end_offset
):
    # when
    with pytest.raises(IntegrityError) as refused:
        insert(property=listing, user=customer, date=at(0), ends_at=at(0) + end_offset)

    # then
    assert "appointments_ends_after_start" in str(refused.value)
    assert Appointment.objects.count() == 0


def test_ends_after_start_check_accepts_a_visit_ending_after_its_start(listing, customer):
    # when
    appointment = insert(property=listing, user=customer, date=at(0), ends_at=at(15))

    # then
    assert Appointment.objects.get() == appointment


def test_sequential_overlapping_bookings_leave_one(listing):
    # given twenty customers
    customers = UserFactory.create_batch(20, password=None)

    # when each in turn asks the booking service for a slot overlapping the first one
    outcomes = []
    for number, customer in enumerate(customers):
        try:
            services.appointment_book(by=customer, property=listing, date=at(number), duration=30)
            outcomes.append("booked")
        except Conflict:
            outcomes.append("refused")

    # then the first gets it, every other is refused
    assert outcomes == ["booked"] + ["refused"] * 19
    assert Appointment.objects.count() == 1


def test_sequential_overlapping_api_bookings_leave_one(throttle_rates, listing):
    # given
    throttle_rates(signed_in="1000/min")
    customers = UserFactory.create_batch(5, password=None)

    # when
    statuses = [
        signed_in_client(customer)
        .post(
            APPOINTMENTS_URL,
            {"date": iso(at(number * 5)), "propertyId": listing.id},
            format="json",
        )
        .status_code
        for number, customer in enumerate(customers)
    ]

    # then
    assert statuses == [201, 409, 409, 409, 409]
    assert Appointment.objects.count() == 1


@pytest.mark.postgres_only
class TestOverlapExclusionConstraint:
    """The database refuses overlapping rows that no service checked."""

    def test_refuses_an_overlapping_row_of_the_same_listing(self, listing, customer):
        # given
        AppointmentFactory(property=listing, user=customer, date=at(0))

        # when
        with pytest.raises(IntegrityError) as refused:
            insert(property=listing, user=UserFactory(password=None), date=at(15))

        # then
        assert constraint_name(refused.value) == "appointments_no_overlap"
        assert Appointment.objects.count() == 1

    @pytest.mark.parametrize(
        "status",
        [AppointmentStatus.PENDING, AppointmentStatus.CONFIRMED, AppointmentStatus.COMPLETED],
    )
    def test_refuses_whatever_the_non_cancelled_status(self, listing, customer, status):
        # given
        AppointmentFactory(property=listing, user=customer, date=at(0), status=status)

        # when
        with pytest.raises(IntegrityError) as refused:
            insert(property=listing, user=customer, date=at(0), status=status)

        # then
        assert constraint_name(refused.value) == "appointments_no_overlap"

    @pytest.mark.parametrize("cancelled", ["existing", "new"])
    def test_allows_overlap_when_one_is_cancelled(self, listing, customer, cancelled):
        # given
        existing_status = (
            AppointmentStatus.CANCELLED if cancelled == "existing" else AppointmentStatus.PENDING
        )
        new_status = (
            AppointmentStatus.CANCELLED if cancelled == "new" else AppointmentStatus.PENDING
        )
        AppointmentFactory(property=listing, user=customer, date=at(0), status=existing_status)

        # when
        insert(property=listing, user=customer, date=at(0), status=new_status)

        # then
        assert Appointment.objects.count() == 2

    def test_refuses_reviving_a_cancelled_row_onto_a_taken_slot(self, listing, customer):
        # given a cancelled visit and a new one in its slot
        cancelled = AppointmentFactory(
            property=listing, user=customer, date=at(0), status=AppointmentStatus.CANCELLED
        )
        AppointmentFactory(property=listing, user=customer, date=at(0))

        # when
        cancelled.status = AppointmentStatus.PENDING
        with pytest.raises(IntegrityError) as refused, transaction.atomic():
            cancelled.save()

        # then
        assert constraint_name(refused.value) == "appointments_no_overlap"
        cancelled.refresh_from_db()
        assert cancelled.status == AppointmentStatus.CANCELLED

    def test_allows_touching_rows_and_other_listings(self, listing, customer):
        # given
        AppointmentFactory(property=listing, user=customer, date=at(0))

        # when
        insert(property=listing, user=customer, date=at(30))
        insert(property=listing, user=customer, date=at(-30))
        insert(property=ListingFactory(), user=customer, date=at(0))

        # then
        assert Appointment.objects.count() == 4
