"""Emails of visits (topic visits) and of moderation (topic listings), through the API and a
real SMTP server: who gets each, its subject, both parts, its link and its unsubscribe
header; and none to an unconfirmed address, for a topic switched off, or for a change that
was refused or rolled back (docs/email.md)."""

import urllib.parse

import pytest
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from accounts.models import User
from appointments.models import Appointment, AppointmentStatus
from listings.models import Property, PropertyStatus
from notifications.models import EmailPreferences, EmailTopic, Notification
from notifications.services import email_unsubscribe_topic
from tests.admin.support import LISTINGS_URL, action_data
from tests.appointments.support import (
    APPOINTMENTS_URL,
    appointment_url,
    assert_field_problem,
    at,
    iso,
)
from tests.factories import AppointmentFactory, ListingFactory
from tests.properties.support import property_url
from tests.webhooks.support import run_ready_tasks

pytestmark = pytest.mark.django_db

TITLE = "Sunny flat near the park"
# How the English emails write at(0) and at(60): the day and the time in the language's way.
WHEN = "Wednesday, May 14, 2031, 10:00\u202fAM UTC"
LATER = "Wednesday, May 14, 2031, 11:00\u202fAM UTC"
REASON = "The photos show another building."


def confirm_address(*users: User) -> None:
    """Mark the users' addresses confirmed, as opening the confirmation link does."""
    User.objects.filter(pk__in=[user.pk for user in users]).update(email_verified=timezone.now())


def queued_emails() -> int:
    """How many email tasks are queued, sent or not."""
    return DBTaskResult.objects.filter(task_path="notifications.tasks.email_send").count()


def site_url(settings, path: str) -> str:
    return f"{settings.SITE_URL}{path}"


def assert_one_email(mailbox, *, to: User, subject: str, topic: str, says: list[str]) -> None:
    """The mailbox holds one message, to `to`, with this subject, both parts saying each of
    `says`, and the one-click unsubscribe link of `topic` for that user."""
    assert mailbox.recipients == [[to.email]]
    [message] = mailbox.messages
    assert message["To"] == to.email
    assert message["Subject"] == subject
    text = message.get_body(preferencelist=("plain",)).get_content()
    html = message.get_body(preferencelist=("html",)).get_content()
    assert f"Hello {to.name}," in text and f"Hello {to.name}," in html
    for words in says:
        assert words in text, (words, text)
        assert words in html, (words, html)
    unsubscribe_url = message["List-Unsubscribe"].removeprefix("<").removesuffix(">")
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    token = urllib.parse.urlsplit(unsubscribe_url).path.split("/")[-2]
    assert email_unsubscribe_topic(token=token) == (to, topic)
    assert f'href="{unsubscribe_url}"' in html


@pytest.fixture
def make_visit(listing, customer):
    """A visit of `listing` by `customer` at at(0), in a given status."""

    def make(status: str = AppointmentStatus.PENDING) -> Appointment:
        return AppointmentFactory(property=listing, user=customer, date=at(0), status=status)

    return make


@pytest.fixture
def pending_listing(owner_record) -> Property:
    """A PENDING listing of `owner`, waiting for moderation."""
    return ListingFactory(owner=owner_record, title=TITLE, status=PropertyStatus.PENDING)


# --- Visits (topic visits) ------------------------------------------------------------------


def test_a_visit_request_emails_the_listings_owner(
    customer_client, customer, owner, listing, smtp_server, settings
):
    # given both addresses confirmed
    confirm_address(customer, owner)

    # when the customer asks for a visit
    response = customer_client.post(
        APPOINTMENTS_URL, {"date": iso(at(0)), "propertyId": listing.id}, format="json"
    )
    run_ready_tasks()

    # then the owner alone is emailed, with a link to the visit requests of their listings
    assert response.status_code == 201, response.content
    assert_one_email(
        smtp_server,
        to=owner,
        subject=f"Estate: New visit request: {TITLE}",
        topic=EmailTopic.VISITS,
        says=[TITLE, WHEN, customer.name, site_url(settings, "/en/owner/visits/")],
    )


def test_a_confirmed_visit_emails_the_customer(
    owner_client, customer, owner, make_visit, smtp_server, settings
):
    # given
    confirm_address(customer, owner)
    visit = make_visit()

    # when the owner confirms it
    response = owner_client.patch(
        appointment_url(visit.id), {"status": AppointmentStatus.CONFIRMED}, format="json"
    )
    run_ready_tasks()

    # then the customer is emailed, with a link to their visits
    assert response.status_code == 200, response.content
    assert_one_email(
        smtp_server,
        to=customer,
        subject=f"Estate: Visit confirmed: {TITLE}",
        topic=EmailTopic.VISITS,
        says=[TITLE, WHEN, site_url(settings, "/en/me/visits/")],
    )


def test_a_visit_cancelled_by_the_owner_emails_the_customer(
    owner_client, customer, owner, make_visit, smtp_server, settings
):
    # given
    confirm_address(customer, owner)
    visit = make_visit(AppointmentStatus.CONFIRMED)

    # when the owner cancels it
    response = owner_client.delete(appointment_url(visit.id))
    run_ready_tasks()

    # then
    assert response.status_code == 200, response.content
    assert_one_email(
        smtp_server,
        to=customer,
        subject=f"Estate: Visit cancelled: {TITLE}",
        topic=EmailTopic.VISITS,
        says=[TITLE, WHEN, site_url(settings, "/en/me/visits/")],
    )


def test_a_visit_cancelled_by_the_customer_emails_the_owner_instead(
    customer_client, customer, owner, make_visit, smtp_server, settings
):
    # given
    confirm_address(customer, owner)
    visit = make_visit()

    # when the customer cancels it themselves
    response = customer_client.delete(appointment_url(visit.id))
    run_ready_tasks()

    # then the owner is emailed, as they are notified in the app, and the customer is not
    assert response.status_code == 200, response.content
    assert_one_email(
        smtp_server,
        to=owner,
        subject=f"Estate: Visit cancelled: {TITLE}",
        topic=EmailTopic.VISITS,
        says=[TITLE, WHEN, site_url(settings, "/en/owner/visits/")],
    )


def test_a_visit_rescheduled_by_the_owner_emails_the_customer_its_new_time(
    owner_client, customer, owner, make_visit, smtp_server, settings
):
    # given
    confirm_address(customer, owner)
    visit = make_visit(AppointmentStatus.CONFIRMED)

    # when the owner moves it an hour later
    response = owner_client.patch(appointment_url(visit.id), {"date": iso(at(60))}, format="json")
    run_ready_tasks()

    # then
    assert response.status_code == 200, response.content
    assert_one_email(
        smtp_server,
        to=customer,
        subject=f"Estate: Visit rescheduled: {TITLE}",
        topic=EmailTopic.VISITS,
        says=[TITLE, LATER, site_url(settings, "/en/me/visits/")],
    )


def test_a_visit_rescheduled_by_the_customer_emails_the_owner_instead(
    customer_client, customer, owner, make_visit, smtp_server, settings
):
    # given
    confirm_address(customer, owner)
    visit = make_visit()

    # when the customer moves it an hour later
    response = customer_client.patch(
        appointment_url(visit.id), {"date": iso(at(60))}, format="json"
    )
    run_ready_tasks()

    # then
    assert response.status_code == 200, response.content
    assert_one_email(
        smtp_server,
        to=owner,
        subject=f"Estate: Visit rescheduled: {TITLE}",
        topic=EmailTopic.VISITS,
        says=[TITLE, LATER, site_url(settings, "/en/owner/visits/")],
    )


def test_a_visit_an_administrator_confirms_emails_both_parties(
    admin_client, customer, owner, make_visit, smtp_server, settings
):
    # given
    confirm_address(customer, owner)
    visit = make_visit()

    # when an administrator, who is no party, confirms it
    response = admin_client.patch(
        appointment_url(visit.id), {"status": AppointmentStatus.CONFIRMED}, format="json"
    )
    run_ready_tasks()

    # then both are emailed, as both are notified in the app, each with their visits page
    assert response.status_code == 200, response.content
    assert sorted(smtp_server.recipients) == [[customer.email], [owner.email]]
    links = {
        message["To"]: message.get_body(preferencelist=("plain",)).get_content()
        for message in smtp_server.messages
    }
    assert site_url(settings, "/en/me/visits/") in links[customer.email]
    assert site_url(settings, "/en/owner/visits/") in links[owner.email]
    assert {message["Subject"] for message in smtp_server.messages} == {
        f"Estate: Visit confirmed: {TITLE}"
    }


def test_a_completed_visit_is_notified_in_the_app_and_not_emailed(
    owner_client, customer, owner, make_visit, smtp_server
):
    # given
    confirm_address(customer, owner)
    visit = make_visit(AppointmentStatus.CONFIRMED)

    # when the owner marks it done
    response = owner_client.patch(
        appointment_url(visit.id), {"status": AppointmentStatus.COMPLETED}, format="json"
    )
    run_ready_tasks()

    # then
    assert response.status_code == 200, response.content
    assert Notification.objects.filter(user=customer, title="Visit completed").count() == 1
    assert smtp_server.messages == []


def test_no_visit_email_to_an_unconfirmed_address(customer_client, owner, listing, smtp_server):
    # given the owner never confirmed their address
    assert owner.email_verified is None

    # when a visit of their listing is requested
    response = customer_client.post(
        APPOINTMENTS_URL, {"date": iso(at(0)), "propertyId": listing.id}, format="json"
    )
    run_ready_tasks()

    # then they are told in the app only
    assert response.status_code == 201, response.content
    assert Notification.objects.filter(user=owner, title="New visit request").count() == 1
    assert queued_emails() == 0
    assert smtp_server.messages == []


def test_no_visit_email_when_the_visits_topic_is_off(
    owner_client, customer, owner, make_visit, smtp_server
):
    # given a customer who switched visit emails off
    confirm_address(customer, owner)
    EmailPreferences.objects.create(user=customer, visits=False)
    visit = make_visit()

    # when the owner confirms their visit
    response = owner_client.patch(
        appointment_url(visit.id), {"status": AppointmentStatus.CONFIRMED}, format="json"
    )
    run_ready_tasks()

    # then they are told in the app only
    assert response.status_code == 200, response.content
    assert Notification.objects.filter(user=customer, title="Visit confirmed").count() == 1
    assert queued_emails() == 0
    assert smtp_server.messages == []


def test_no_visit_email_for_a_move_the_state_machine_refuses(
    owner_client, customer, owner, make_visit, smtp_server
):
    # given a cancelled visit
    confirm_address(customer, owner)
    visit = make_visit(AppointmentStatus.CANCELLED)

    # when the owner confirms it
    response = owner_client.patch(
        appointment_url(visit.id), {"status": AppointmentStatus.CONFIRMED}, format="json"
    )
    run_ready_tasks()

    # then
    assert_field_problem(response, status=409, code="invalid_transition", field="status")
    assert queued_emails() == 0
    assert smtp_server.messages == []


def test_no_visit_email_when_the_rest_of_the_change_is_refused(
    customer_client, customer, owner, make_visit, smtp_server
):
    # given a pending visit
    confirm_address(customer, owner)
    visit = make_visit()

    # when the customer reschedules it and, in the same request, confirms it, which only
    # the owner may: the reschedule's email was queued before the refusal
    response = customer_client.patch(
        appointment_url(visit.id),
        {"date": iso(at(60)), "status": AppointmentStatus.CONFIRMED},
        format="json",
    )
    run_ready_tasks()

    # then the whole change is rolled back, its email with it
    assert_field_problem(response, status=403, code="permission_denied", field="status")
    visit.refresh_from_db()
    assert (visit.date, visit.status) == (at(0), AppointmentStatus.PENDING)
    assert Notification.objects.count() == 0
    assert queued_emails() == 0
    assert smtp_server.messages == []


# --- Moderation (topic listings) ------------------------------------------------------------


def test_an_approved_listing_emails_its_owner(
    admin_client, owner, pending_listing, smtp_server, settings
):
    # given
    confirm_address(owner)

    # when an administrator approves it
    response = admin_client.patch(
        property_url(pending_listing.id), {"status": PropertyStatus.AVAILABLE}, format="json"
    )
    run_ready_tasks()

    # then the owner is emailed, with a link to the listing's page
    assert response.status_code == 200, response.content
    assert_one_email(
        smtp_server,
        to=owner,
        subject=f"Estate: Listing approved: {TITLE}",
        topic=EmailTopic.LISTINGS,
        says=[TITLE, site_url(settings, pending_listing.get_absolute_url())],
    )


def test_a_listing_suspended_through_the_api_emails_its_owner_that_no_reason_was_given(
    admin_client, owner, listing, smtp_server, settings
):
    # given an available listing
    confirm_address(owner)

    # when an administrator suspends it through the API, which takes no reason
    response = admin_client.patch(
        property_url(listing.id), {"status": PropertyStatus.SUSPENDED}, format="json"
    )
    run_ready_tasks()

    # then
    assert response.status_code == 200, response.content
    assert_one_email(
        smtp_server,
        to=owner,
        subject=f"Estate: Listing suspended: {TITLE}",
        topic=EmailTopic.LISTINGS,
        says=[
            TITLE,
            "No reason was given.",
            site_url(settings, listing.get_absolute_url()),
        ],
    )


def test_a_listing_suspended_in_the_back_office_emails_its_owner_the_reason(
    client, admin, owner, listing, smtp_server, settings
):
    # given an administrator signed in to the back office
    confirm_address(owner)
    client.force_login(admin)

    # when they suspend the listing with a reason
    response = client.post(
        LISTINGS_URL, {**action_data("suspend", listing.pk), "post": "yes", "reason": REASON}
    )
    run_ready_tasks()

    # then
    assert response.status_code == 302
    assert_one_email(
        smtp_server,
        to=owner,
        subject=f"Estate: Listing suspended: {TITLE}",
        topic=EmailTopic.LISTINGS,
        says=[TITLE, f"Reason: {REASON}", site_url(settings, listing.get_absolute_url())],
    )


def test_no_listing_email_to_an_unconfirmed_address(
    admin_client, owner, pending_listing, smtp_server
):
    # given the owner never confirmed their address
    assert owner.email_verified is None

    # when their listing is approved
    response = admin_client.patch(
        property_url(pending_listing.id), {"status": PropertyStatus.AVAILABLE}, format="json"
    )
    run_ready_tasks()

    # then they are told in the app only
    assert response.status_code == 200, response.content
    assert Notification.objects.filter(user=owner, title="Listing approved").count() == 1
    assert queued_emails() == 0
    assert smtp_server.messages == []


def test_no_listing_email_when_the_listings_topic_is_off(
    admin_client, owner, pending_listing, smtp_server
):
    # given an owner who switched listing emails off, and visit emails on
    confirm_address(owner)
    EmailPreferences.objects.create(user=owner, listings=False, visits=True)

    # when their listing is approved
    response = admin_client.patch(
        property_url(pending_listing.id), {"status": PropertyStatus.AVAILABLE}, format="json"
    )
    run_ready_tasks()

    # then they are told in the app only
    assert response.status_code == 200, response.content
    assert Notification.objects.filter(user=owner, title="Listing approved").count() == 1
    assert queued_emails() == 0
    assert smtp_server.messages == []


def test_turning_visit_emails_off_leaves_listing_emails_on(
    admin_client, owner, pending_listing, smtp_server
):
    # given an owner who switched visit emails off only
    confirm_address(owner)
    EmailPreferences.objects.create(user=owner, visits=False)

    # when their listing is approved
    response = admin_client.patch(
        property_url(pending_listing.id), {"status": PropertyStatus.AVAILABLE}, format="json"
    )
    run_ready_tasks()

    # then
    assert response.status_code == 200, response.content
    assert smtp_server.recipients == [[owner.email]]


def test_no_listing_email_for_a_move_the_state_machine_refuses(
    admin_client, owner, pending_listing, smtp_server
):
    # given
    confirm_address(owner)

    # when an administrator moves the pending listing to SOLD, which D10 does not list
    response = admin_client.patch(
        property_url(pending_listing.id), {"status": PropertyStatus.SOLD}, format="json"
    )
    run_ready_tasks()

    # then
    assert_field_problem(response, status=409, code="invalid_transition", field="status")
    pending_listing.refresh_from_db()
    assert pending_listing.status == PropertyStatus.PENDING
    assert queued_emails() == 0
    assert smtp_server.messages == []


def test_no_listing_email_when_the_owner_tries_to_approve_their_own_listing(
    owner_client, owner, pending_listing, smtp_server
):
    # given
    confirm_address(owner)

    # when the owner approves their own listing, which only administrators may
    response = owner_client.patch(
        property_url(pending_listing.id), {"status": PropertyStatus.AVAILABLE}, format="json"
    )
    run_ready_tasks()

    # then
    assert_field_problem(response, status=403, code="permission_denied", field="status")
    assert queued_emails() == 0
    assert smtp_server.messages == []


def test_a_title_with_a_line_break_still_makes_a_one_line_subject(
    admin_client, owner, owner_record, smtp_server
):
    # given a pending listing whose title holds a line break, which the API accepts
    confirm_address(owner)
    listing = ListingFactory(
        owner=owner_record, title="Loft\nwith terrace", status=PropertyStatus.PENDING
    )

    # when it is approved
    response = admin_client.patch(
        property_url(listing.id), {"status": PropertyStatus.AVAILABLE}, format="json"
    )
    run_ready_tasks()

    # then its email is sent, its subject on one line
    assert response.status_code == 200, response.content
    [message] = smtp_server.messages
    assert message["Subject"] == "Estate: Listing approved: Loft with terrace"
