"""Alerts end to end: saved searches and favorites alert their users in the app, by email
(through a real SMTP server) and by signed webhook deliveries, once per listing and search.

The tasks run in this process through the worker's own task runner (run_ready_tasks).
"""

import datetime
from decimal import Decimal
from urllib.parse import urlsplit

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django_tasks_db.models import DBTaskResult
from rest_framework.test import APIClient
from standardwebhooks.webhooks import Webhook

from favorites.models import Favorite
from listings.models import PriceChange, Property
from notifications.alerts import alert_digest_send, alerts_create, digest_due_at
from notifications.models import (
    Alert,
    AlertDigest,
    AlertFrequency,
    EmailPreferences,
    Event,
    Notification,
    SavedSearch,
)
from notifications.services import email_unsubscribe_url
from tests.concurrency import run_at_once
from tests.factories import CategoryFactory, ListingFactory
from tests.support import make_user, signed_in_client
from tests.webhooks.support import REGISTER_URL, SECRET, run_ready_tasks

pytestmark = pytest.mark.django_db

PROPERTIES_URL = "/api/v1/properties"
SAVED_SEARCHES_URL = "/api/v1/saved-searches"
ALERT_TITLE = "New listing for your saved search"


def confirmed(user):
    """The user with a confirmed address: alert emails may go to it."""
    user.email_verified = timezone.now()
    user.save(update_fields=["email_verified"])
    return user


def listing_body(**changes) -> dict:
    return {
        "title": "Patio house in Triana",
        "description": "Three bedrooms around a patio.",
        "price": 310000,
        "latitude": 37.38,
        "longitude": -6.0,
        "transactionType": "SALE",
        "municipality": "Sevilla",
        "address": "4 Calle Betis",
        "area": 140,
        "categoryId": CategoryFactory().id,
        **changes,
    }


def save_search(client, *, criteria: dict, frequency: str = "INSTANT", name: str = "Sevilla"):
    response = client.post(
        SAVED_SEARCHES_URL,
        {"name": name, "criteria": criteria, "frequency": frequency},
        format="json",
    )
    assert response.status_code == 201, response.content
    return response.json()


def create_and_approve(owner_client, admin_client, **changes) -> str:
    """A listing created by the owner and approved by an admin; returns its id."""
    created = owner_client.post(PROPERTIES_URL, listing_body(**changes), format="json")
    assert created.status_code == 201, created.content
    listing_id = created.json()["id"]
    approved = admin_client.patch(
        f"{PROPERTIES_URL}/{listing_id}", {"status": "AVAILABLE"}, format="json"
    )
    assert approved.status_code == 200, approved.content
    return listing_id


def bodies(message) -> tuple[str, str]:
    """The text and HTML parts of a message, with plain line ends."""
    return tuple(
        message.get_body(preferencelist=(kind,)).get_content().replace("\r\n", "\n")
        for kind in ("plain", "html")
    )


def test_an_approval_alerts_the_customer_in_app_by_email_and_by_webhook(
    smtp_server, settings, customer, customer_client, owner_client, admin_client, receiver
):
    # given a customer with a confirmed address who saved an INSTANT search of Sevilla, and
    # an admin's webhook for search.matched
    settings.SITE_URL = "https://estate.example"
    confirmed(customer)
    search = save_search(customer_client, criteria={"municipality": "sevilla"})
    registration = admin_client.post(
        REGISTER_URL,
        {"url": receiver.url(), "events": ["search.matched"], "secret": SECRET},
        format="json",
    )
    assert registration.status_code == 201, registration.content

    # when an owner's listing in Sevilla is approved and the worker runs
    listing_id = create_and_approve(owner_client, admin_client)
    assert smtp_server.messages == []
    run_ready_tasks()

    # then the customer has one in-app notification about the listing
    [notification] = Notification.objects.filter(user=customer)
    assert (notification.title, notification.property_id) == (ALERT_TITLE, listing_id)
    assert notification.message == "“Patio house in Triana” in Sevilla matches a search you saved."
    assert list(Alert.objects.values_list("saved_search_id", "property_id")) == [
        (search["id"], listing_id)
    ]

    # and one email, with both parts, the listing's link and the unsubscribe headers
    [message] = smtp_server.messages
    assert smtp_server.recipients == [["carla@example.com"]]
    assert message["Subject"] == "Estate: New listing: Patio house in Triana"
    link = f"https://estate.example{Property.objects.get(pk=listing_id).get_absolute_url()}"
    text, html = bodies(message)
    assert "Hello Carla Customer," in text and link in text and "€310,000" in text
    assert f'href="{link}"' in html and "Patio house in Triana" in html
    unsubscribe = message["List-Unsubscribe"].strip("<>")
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert f"Stop these emails: {unsubscribe}" in text

    # and one signed search.matched delivery naming the search and the listing
    [delivery] = receiver.received()
    body = Webhook(SECRET).verify(delivery.body, delivery.headers)
    assert body["type"] == "search.matched"
    assert body["data"]["savedSearch"] == {
        "id": search["id"],
        "name": "Sevilla",
        "userId": customer.id,
        "criteria": {"municipality": "sevilla"},
    }
    assert body["data"]["property"]["id"] == listing_id
    assert body["data"]["property"]["status"] == "AVAILABLE"

    # when the customer follows the one-click unsubscribe (as a mail provider posts it)
    response = APIClient().post(
        urlsplit(unsubscribe).path, "List-Unsubscribe=One-Click", content_type="text/plain"
    )

    # then their alert emails stop: the next match notifies in the app only
    assert response.status_code == 200
    assert EmailPreferences.objects.get(user=customer).alerts is False
    create_and_approve(owner_client, admin_client, title="Corner flat in Triana")
    run_ready_tasks()
    assert Notification.objects.filter(user=customer).count() == 2
    assert len(smtp_server.messages) == 1


def test_a_listing_that_returns_does_not_alert_twice(
    smtp_server, customer, customer_client, owner_client, admin_client
):
    # given a customer alerted of a listing
    confirmed(customer)
    save_search(customer_client, criteria={"municipality": "Sevilla"})
    listing_id = create_and_approve(owner_client, admin_client)
    run_ready_tasks()
    assert len(smtp_server.messages) == 1

    # when the listing is suspended and approved again
    url = f"{PROPERTIES_URL}/{listing_id}"
    assert admin_client.patch(url, {"status": "SUSPENDED"}, format="json").status_code == 200
    assert admin_client.patch(url, {"status": "AVAILABLE"}, format="json").status_code == 200
    run_ready_tasks()

    # then nothing more reached the customer
    assert Notification.objects.filter(user=customer).count() == 1
    assert Alert.objects.count() == 1
    assert len(smtp_server.messages) == 1


def test_no_alert_email_goes_to_an_unconfirmed_address(
    smtp_server, customer, customer_client, owner_client, admin_client
):
    # given a customer whose address is not confirmed
    save_search(customer_client, criteria={"municipality": "Sevilla"})

    # when a match is approved
    create_and_approve(owner_client, admin_client)
    run_ready_tasks()

    # then they are told in the app, not by email
    assert Notification.objects.filter(user=customer, title=ALERT_TITLE).count() == 1
    assert smtp_server.messages == []


def test_searches_that_do_not_match_a_paused_search_and_the_owners_own_alert_nobody(
    smtp_server, customer, customer_client, owner, owner_client, admin_client
):
    # given a search of another town, a paused search, and the owner's own search
    confirmed(customer)
    confirmed(owner)
    save_search(customer_client, criteria={"municipality": "Cádiz"}, name="Cádiz")
    save_search(customer_client, criteria={"municipality": "Sevilla"}, frequency="PAUSED")
    save_search(owner_client, criteria={"municipality": "Sevilla"})

    # when the owner's listing in Sevilla is approved
    create_and_approve(owner_client, admin_client)
    run_ready_tasks()

    # then no alert is made: the owner's only email is the approval's
    assert Alert.objects.count() == 0
    assert not Notification.objects.filter(title=ALERT_TITLE).exists()
    assert [message["Subject"] for message in smtp_server.messages] == [
        "Estate: Listing approved: Patio house in Triana"
    ]


def test_a_listing_still_in_moderation_alerts_nobody(customer, customer_client, owner_record):
    # given a search that a pending listing would match
    save_search(customer_client, criteria={"municipality": "Sevilla"})
    listing = ListingFactory(owner=owner_record, municipality="Sevilla", status="PENDING")

    # when its alerts are made anyway (a task queued before a suspension, say)
    made = alerts_create(listing_id=listing.id)

    # then there are none
    assert made == []
    assert Alert.objects.count() == 0


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_racing_alerts_of_one_listing_alert_once(customer, other_customer, owner_record):
    # given two customers' searches a listing matches
    for user in (customer, other_customer):
        save_search(signed_in_client(user), criteria={"municipality": "Sevilla"})
    listing = ListingFactory(owner=owner_record, municipality="Sevilla", status="AVAILABLE")

    # when four workers make its alerts at once
    made = run_at_once([lambda: alerts_create(listing_id=listing.id)] * 4)

    # then one of them made both alerts, and each customer was notified once
    assert sorted(len(alerts) for alerts in made) == [0, 0, 0, 2]
    assert Alert.objects.count() == 2
    assert Notification.objects.filter(title=ALERT_TITLE).count() == 2
    assert Event.objects.filter(type="search.matched").count() == 2


def test_a_price_drop_alerts_every_favoriter_once_and_keeps_the_history(
    smtp_server, settings, customer, other_customer, owner_record, owner_client, receiver
):
    # given an available listing two customers saved (both with confirmed addresses), and
    # the owner's webhook for price drops
    settings.SITE_URL = "https://estate.example"
    listing = ListingFactory(owner=owner_record, status="AVAILABLE", price=Decimal("300000"))
    for user in (customer, other_customer):
        confirmed(user)
        Favorite.objects.create(user=user, property=listing)
    registration = owner_client.post(
        REGISTER_URL,
        {"url": receiver.url(), "events": ["property.price_dropped"], "secret": SECRET},
        format="json",
    )
    assert registration.status_code == 201, registration.content

    # when the owner lowers the price and the worker runs
    response = owner_client.patch(
        f"{PROPERTIES_URL}/{listing.id}", {"price": 280000}, format="json"
    )
    assert response.status_code == 200, response.content
    run_ready_tasks()

    # then each favoriter is told once in the app and once by email
    for user in (customer, other_customer):
        [notification] = Notification.objects.filter(user=user)
        assert notification.title == "Price drop"
    assert sorted(smtp_server.recipients) == [["carla@example.com"], ["cole.customer@example.com"]]
    for message in smtp_server.messages:
        assert message["Subject"] == f"Estate: Price drop: {listing.title}"
        text, html = bodies(message)
        assert "€280,000 (was €300,000)" in text
        assert f'href="https://estate.example{listing.get_absolute_url()}"' in html
        assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"

    # and the owner's webhook hears property.price_dropped with the price before
    [delivery] = receiver.received()
    body = Webhook(SECRET).verify(delivery.body, delivery.headers)
    assert body["type"] == "property.price_dropped"
    assert (body["data"]["price"], body["data"]["previousPrice"]) == (280000, 300000)

    # and the detail shows the history
    detail = APIClient().get(f"{PROPERTIES_URL}/{listing.id}").json()
    [change] = PriceChange.objects.all()
    assert detail["priceHistory"] == [
        {
            "price": 280000,
            "previousPrice": 300000,
            "changedAt": change.changed_at.isoformat().replace("+00:00", "Z"),
        }
    ]


def test_a_price_rise_is_kept_in_the_history_and_alerts_nobody(
    smtp_server, customer, owner_record, owner_client
):
    # given an available listing a customer saved
    confirmed(customer)
    listing = ListingFactory(owner=owner_record, status="AVAILABLE", price=Decimal("300000"))
    Favorite.objects.create(user=customer, property=listing)

    # when its price goes up
    response = owner_client.patch(
        f"{PROPERTIES_URL}/{listing.id}", {"price": 320000}, format="json"
    )
    run_ready_tasks()

    # then the change is recorded, and nobody is told
    assert response.status_code == 200
    assert list(PriceChange.objects.values_list("previous_price", "price")) == [
        (Decimal("300000.00"), Decimal("320000.00"))
    ]
    assert not Notification.objects.exists()
    assert not Event.objects.filter(type="property.price_dropped").exists()
    assert smtp_server.messages == []


def test_a_refused_price_change_records_nothing(customer_client, owner_record):
    # given a listing of an owner
    listing = ListingFactory(owner=owner_record, status="AVAILABLE", price=Decimal("300000"))

    # when a customer tries to lower its price
    response = customer_client.patch(
        f"{PROPERTIES_URL}/{listing.id}", {"price": 1000}, format="json"
    )

    # then nothing changed
    assert response.status_code == 403
    assert Property.objects.get(pk=listing.pk).price == Decimal("300000.00")
    assert not PriceChange.objects.exists()


def test_a_price_drop_alerts_searches_the_listing_now_fits(
    smtp_server, customer, customer_client, owner_record, owner_client
):
    # given a search up to 290,000 and an available listing at 300,000
    confirmed(customer)
    save_search(customer_client, criteria={"municipality": "Sevilla", "maxPrice": "290000"})
    listing = ListingFactory(
        owner=owner_record, status="AVAILABLE", municipality="Sevilla", price=Decimal("300000")
    )

    # when the price drops below the search's limit
    response = owner_client.patch(
        f"{PROPERTIES_URL}/{listing.id}", {"price": 285000}, format="json"
    )
    run_ready_tasks()

    # then the customer is alerted of it
    assert response.status_code == 200
    assert Alert.objects.get().property_id == listing.id
    [message] = smtp_server.messages
    assert message["Subject"] == f"Estate: New listing: {listing.title}"


def test_digests_collect_each_match_once(
    smtp_server, settings, customer, customer_client, owner, owner_client, admin_client
):
    # given a customer's two daily searches, which one listing both matches
    confirmed(customer)
    save_search(customer_client, criteria={"municipality": "Sevilla"}, frequency="DAILY")
    save_search(
        customer_client,
        criteria={"municipality": "Sevilla", "transactionType": "SALE"},
        frequency="DAILY",
        name="Buying in Sevilla",
    )

    # when two listings in Sevilla are approved
    first = create_and_approve(owner_client, admin_client, title="Patio house")
    second = create_and_approve(owner_client, admin_client, title="Flat", transactionType="RENT")
    run_ready_tasks()

    # then nothing is emailed yet, and one daily digest waits for its time
    assert smtp_server.messages == []
    assert Notification.objects.filter(user=customer, title=ALERT_TITLE).count() == 2
    [digest] = AlertDigest.objects.all()
    assert digest.frequency == AlertFrequency.DAILY
    assert digest.due_at == digest_due_at(
        frequency="DAILY", after=digest.due_at - datetime.timedelta(days=1)
    )
    assert digest.due_at > timezone.now()
    [deferred] = DBTaskResult.objects.filter(task_path="notifications.alerts.alert_digest")
    assert (deferred.run_after, deferred.args_kwargs["args"]) == (digest.due_at, [digest.id])

    # when the digest is sent (its deferred task run)
    assert alert_digest_send(digest_id=digest.id) == 1
    run_ready_tasks()

    # then one email lists each listing once, with the searches it matched
    [message] = smtp_server.messages
    assert message["Subject"] == "Estate: 2 new listings for your saved searches"
    text, html = bodies(message)
    assert text.count(f"/en/listings/{first}/") == 1 and text.count(f"/en/listings/{second}/") == 1
    assert "for Sevilla, Buying in Sevilla" in text
    assert "for Sevilla\n" in text
    assert html.count(f"/en/listings/{first}/") == 1
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"

    # when the digest's task runs again, and a later digest finds nothing new
    assert alert_digest_send(digest_id=digest.id) == 0
    later = AlertDigest.objects.create(
        frequency="DAILY", due_at=digest.due_at + datetime.timedelta(days=1)
    )
    assert alert_digest_send(digest_id=later.id) == 0
    run_ready_tasks()

    # then nothing more is sent
    assert len(smtp_server.messages) == 1
    assert not Alert.objects.filter(digest_due=True).exists()


def test_an_alert_made_while_its_digest_was_sent_waits_for_the_next_one(customer, owner_record):
    # given a daily search, and the digest due next already sent
    save_search(signed_in_client(customer), criteria={"municipality": "Sevilla"}, frequency="DAILY")
    due_at = digest_due_at(frequency="DAILY", after=timezone.now())
    AlertDigest.objects.create(frequency="DAILY", due_at=due_at, sent_at=timezone.now())

    # when a match is alerted
    listing = ListingFactory(owner=owner_record, municipality="Sevilla", status="AVAILABLE")
    alerts_create(listing_id=listing.id)

    # then the alert waits for the digest after it
    assert Alert.objects.get().digest_due is True
    assert list(AlertDigest.objects.filter(sent_at=None).values_list("due_at", flat=True)) == [
        due_at + datetime.timedelta(days=1)
    ]


def test_an_instant_email_leaves_nothing_for_the_users_digest(customer, owner_record):
    # given an instant and a daily search of one user, which a listing both matches
    client = signed_in_client(customer)
    save_search(client, criteria={"municipality": "Sevilla"}, frequency="INSTANT")
    save_search(client, criteria={"municipality": "Sevilla"}, frequency="WEEKLY", name="Weekly")

    # when it is alerted
    listing = ListingFactory(owner=owner_record, municipality="Sevilla", status="AVAILABLE")
    alerts_create(listing_id=listing.id)

    # then neither alert waits for a digest, and no digest is scheduled
    assert list(Alert.objects.values_list("digest_due", flat=True)) == [False, False]
    assert not AlertDigest.objects.exists()


@pytest.mark.parametrize(
    ("frequency", "after", "due"),
    [
        ("DAILY", "2026-11-27T07:59:59+00:00", "2026-11-27T08:00:00+00:00"),
        ("DAILY", "2026-11-27T08:00:00+00:00", "2026-11-28T08:00:00+00:00"),
        ("WEEKLY", "2026-11-27T10:00:00+00:00", "2026-11-30T08:00:00+00:00"),
        ("WEEKLY", "2026-11-30T07:00:00+00:00", "2026-11-30T08:00:00+00:00"),
        ("WEEKLY", "2026-11-30T08:00:00+00:00", "2026-12-07T08:00:00+00:00"),
    ],
)
def test_digests_are_due_at_the_set_hour_and_weekday(frequency, after, due):
    # 2026-11-30 is a Monday; the digests go at 8 o'clock UTC, weekly ones on Mondays
    moment = datetime.datetime.fromisoformat(after)
    assert digest_due_at(frequency=frequency, after=moment) == datetime.datetime.fromisoformat(due)


def test_making_alerts_takes_the_same_statements_however_many_users_match(owner_record):
    # given one search each of 2 users, then of 6
    def alert_statements(users: int) -> int:
        SavedSearch.objects.all().delete()
        for _ in range(users):
            user = make_user("CUSTOMER")
            save_search(signed_in_client(user), criteria={"municipality": "Sevilla"})
        listing = ListingFactory(owner=owner_record, municipality="Sevilla", status="AVAILABLE")
        with CaptureQueriesContext(connection) as queries:
            assert len(alerts_create(listing_id=listing.id)) == users
        return len(queries)

    # then both take as many statements
    assert alert_statements(2) == alert_statements(6)


def test_a_digest_skips_users_who_stopped_alert_emails(
    smtp_server, customer, customer_client, owner_record
):
    # given a confirmed customer's daily search, a match waiting for the digest, and the
    # customer's one-click unsubscribe from alerts
    confirmed(customer)
    save_search(customer_client, criteria={"municipality": "Sevilla"}, frequency="DAILY")
    listing = ListingFactory(owner=owner_record, municipality="Sevilla", status="AVAILABLE")
    alerts_create(listing_id=listing.id)
    response = APIClient().post(
        urlsplit(email_unsubscribe_url(user=customer, topic="alerts")).path,
        "List-Unsubscribe=One-Click",
        content_type="text/plain",
    )
    assert response.status_code == 200

    # when the digest is sent
    sent = alert_digest_send(digest_id=AlertDigest.objects.get().id)
    run_ready_tasks()

    # then nothing is emailed, and the alert no longer waits
    assert sent == 0
    assert smtp_server.messages == []
    assert Alert.objects.get().digest_due is False
