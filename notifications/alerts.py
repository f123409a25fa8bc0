"""Alerts: from a listing that appears to the users whose saved searches it matches.

When a listing becomes public (approved, or back to AVAILABLE) or its price drops, the
service that made the change queues `listing_alerts` with its transaction. The worker then
finds the saved searches the listing matches (notifications.matching, from indexes) and
makes one Alert per (search, listing) it has not alerted of yet. Each user with a new alert
gets, in the same transaction:

- one in-app notification about the listing, however many of their searches it matches;
- one `search.matched` event per new alert (for the user's webhooks and admins');
- one email at once for their INSTANT searches, if their address is confirmed and their
  `alerts` emails are on; the alerts of DAILY and WEEKLY searches wait for a digest.

Alerts are never doubled: the listing's row is locked while its alerts are made, so two
tasks for one listing (two approvals racing, a drop right after an approval) take turns
and the second finds the first's alerts; a unique constraint on (search, listing) stands
behind it.

Digests need no cron: the alerts that wait for one make sure the next digest of their
frequency exists (an AlertDigest row and a task deferred to its time, ALERT_DIGEST_HOUR in
TIME_ZONE, weekly ones on ALERT_DIGEST_WEEKDAY). The digest's task takes every waiting
alert of its frequency, emails each user one message listing each listing once, and marks
them sent. A digest and the alerts that schedule it lock the digest's row, so an alert
made while its digest is being sent waits for the next one instead of being missed.
"""

import datetime
from collections import defaultdict
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.tasks import task
from django.utils import timezone
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy, ngettext_lazy

from accounts.models import User
from config.money import price_format_lazy
from listings.models import HIDDEN_STATUSES, Property, PropertyStatus
from listings.representations import property_representation
from notifications.email import absolute_url
from notifications.events import NewEvent, events_record
from notifications.matching import saved_searches_matching
from notifications.models import (
    Alert,
    AlertDigest,
    AlertFrequency,
    EmailTopic,
    EventType,
    NotificationStatus,
    SavedSearch,
)
from notifications.selectors import email_recipients
from notifications.services import notification_send_bulk, topic_email_enqueue, users_email_send
from notifications.tasks import with_the_transaction

# Which searches' waiting alerts each digest takes: the daily one also takes those of
# searches made INSTANT since their alerts were made, so that none waits forever.
DIGEST_FREQUENCIES = {
    AlertFrequency.DAILY: (AlertFrequency.DAILY, AlertFrequency.INSTANT),
    AlertFrequency.WEEKLY: (AlertFrequency.WEEKLY,),
}


def _listing_facts(listing: Property) -> dict:
    """What an email says of a listing: its title, town, price and link."""
    return {
        "title": listing.title,
        "municipality": listing.municipality,
        "price": price_format_lazy(listing.price),
        "url": absolute_url("listings:detail", listing.pk, listing.slug),
    }


def listing_alerts_enqueue(*, listing_id: str) -> None:
    """Queue the alerts of a listing that became public or cheaper, with the transaction of
    that change (the task reads the listing as it committed)."""
    with_the_transaction(listing_alerts.get_backend(), lambda: listing_alerts.enqueue(listing_id))


@task()
def listing_alerts(listing_id: str) -> int:
    """Alert the users whose saved searches the listing matches; returns how many alerts
    were new."""
    return len(alerts_create(listing_id=listing_id))


@transaction.atomic
def alerts_create(*, listing_id: str) -> list[Alert]:
    """Make the alerts of a listing not made yet, and tell their users (the module's
    docstring says how). None for a listing that is gone or hidden, and none for its own
    owner's searches."""
    listing = (
        Property.objects.select_for_update(no_key=True, of=("self",))
        .select_related("owner")
        .filter(pk=listing_id)
        .first()
    )
    if listing is None or listing.status != PropertyStatus.AVAILABLE:
        return []
    matches = [
        match
        for match in saved_searches_matching(listing=listing)
        if match.user_id != listing.owner.user_id
    ]
    alerted = set(Alert.objects.filter(property=listing).values_list("saved_search_id", flat=True))
    new = [match for match in matches if match.id not in alerted]
    if not new:
        return []
    # A user emailed at once about the listing does not hear of it again in a digest.
    instant_users = {match.user_id for match in new if match.frequency == AlertFrequency.INSTANT}
    alerts = Alert.objects.bulk_create(
        [
            Alert(
                saved_search_id=match.id,
                property=listing,
                digest_due=match.user_id not in instant_users,
            )
            for match in new
        ]
    )
    users = {user.pk: user for user in User.objects.filter(pk__in={match.user_id for match in new})}
    notification_send_bulk(
        users=[users[user_id] for user_id in dict.fromkeys(match.user_id for match in new)],
        property=listing,
        status=NotificationStatus.INFO,
        title=gettext_lazy("New listing for your saved search"),
        message=format_lazy(
            gettext_lazy("“{title}” in {town} matches a search you saved."),
            title=listing.title,
            town=listing.municipality,
        ),
    )
    _matched_events_record(listing, [match.id for match in new])
    _instant_emails_enqueue(listing, [users[user_id] for user_id in instant_users])
    waiting = {match.frequency for match in new if match.user_id not in instant_users}
    for frequency in DIGEST_FREQUENCIES:
        if frequency in waiting:
            alert_digest_schedule(frequency=frequency)
    return alerts


def _matched_events_record(listing: Property, saved_search_ids: list[str]) -> None:
    """One search.matched per new alert, for the search's user (and admins)."""
    saved_searches = SavedSearch.objects.filter(pk__in=saved_search_ids).order_by("pk")
    listing_data = property_representation(listing)
    events_record(
        [
            NewEvent(
                type=EventType.SEARCH_MATCHED,
                payload={
                    "savedSearch": {
                        "id": saved_search.pk,
                        "name": saved_search.name,
                        "userId": saved_search.user_id,
                        "criteria": saved_search.criteria,
                    },
                    "property": listing_data,
                },
                listing_id=listing.pk,
                participant_id=saved_search.user_id,
            )
            for saved_search in saved_searches.only("id", "name", "user_id", "criteria")
        ]
    )


def _instant_emails_enqueue(listing: Property, users: list[User]) -> None:
    """One email about the listing to each user (once, whatever number of their INSTANT
    searches it matches) who gets alert emails."""
    users_email_send(
        users=users,
        topic=EmailTopic.ALERTS,
        subject=format_lazy(gettext_lazy("New listing: {title}"), title=listing.title),
        template="alert",
        context={"listing": _listing_facts(listing)},
    )


def price_drop_emails_enqueue(
    *, listing: Property, previous_price: Decimal, users: list[User]
) -> None:
    """Email those of `users` who get alert emails that a listing they saved is cheaper
    (in the transaction of the change: once per drop)."""
    users_email_send(
        users=users,
        topic=EmailTopic.ALERTS,
        subject=format_lazy(gettext_lazy("Price drop: {title}"), title=listing.title),
        template="price_drop",
        context={
            "listing": _listing_facts(listing),
            "previous_price": price_format_lazy(previous_price),
        },
    )


# --- Digests --------------------------------------------------------------------------------


def digest_due_at(*, frequency: str, after: datetime.datetime) -> datetime.datetime:
    """The first time past `after` that a digest of `frequency` is sent: ALERT_DIGEST_HOUR
    o'clock in TIME_ZONE, every day, or on ALERT_DIGEST_WEEKDAY (0 is Monday) for weekly."""
    day = timezone.localtime(after).date()
    step = datetime.timedelta(days=1 if frequency == AlertFrequency.DAILY else 7)
    if frequency == AlertFrequency.WEEKLY:
        day += datetime.timedelta(days=(settings.ALERT_DIGEST_WEEKDAY - day.weekday()) % 7)

    def sending(day: datetime.date) -> datetime.datetime:
        return timezone.make_aware(
            datetime.datetime.combine(day, datetime.time(settings.ALERT_DIGEST_HOUR))
        )

    while sending(day) <= after:
        day += step
    return sending(day)


def alert_digest_schedule(*, frequency: str) -> AlertDigest:
    """The next digest of `frequency` not sent yet, made (with its deferred task, in the
    caller's transaction) if it does not exist. Its row stays locked until the caller
    commits, so the digest cannot be sent in between."""
    due_at = digest_due_at(frequency=frequency, after=timezone.now())
    while True:
        digest, created = AlertDigest.objects.select_for_update().get_or_create(
            frequency=frequency, due_at=due_at
        )
        if digest.sent_at is None:
            break
        # The digest was sent while this transaction waited for its row: the next one.
        due_at = digest_due_at(frequency=frequency, after=due_at)
    if created:
        backend = alert_digest.get_backend()
        # A backend that cannot defer sends the digest when a worker is free.
        deferred = alert_digest.using(run_after=due_at) if backend.supports_defer else alert_digest
        with_the_transaction(backend, lambda: deferred.enqueue(digest.pk))
    return digest


@task()
def alert_digest(digest_id: str) -> int:
    """Send a digest (once, however often its task runs); returns how many emails."""
    return alert_digest_send(digest_id=digest_id)


@transaction.atomic
def alert_digest_send(*, digest_id: str) -> int:
    """Email each user their waiting alerts of the digest's frequency, each listing once
    (with the names of the searches it matched), and mark those alerts sent. Listings
    hidden since they were matched are left out; users who get no alert emails have their
    alerts marked all the same. Returns how many emails were queued."""
    digest = AlertDigest.objects.select_for_update().filter(pk=digest_id).first()
    if digest is None or digest.sent_at is not None:
        return 0
    digest.sent_at = timezone.now()
    digest.save(update_fields=["sent_at"])
    waiting = Alert.objects.filter(
        digest_due=True, saved_search__frequency__in=DIGEST_FREQUENCIES[digest.frequency]
    )
    alerts = list(
        waiting.select_related("saved_search__user", "property").order_by("created_at", "id")
    )
    Alert.objects.filter(pk__in=[alert.pk for alert in alerts]).update(digest_due=False)
    by_user: dict[str, dict[str, dict]] = defaultdict(dict)
    users = {}
    for alert in alerts:
        if alert.property.status in HIDDEN_STATUSES:
            continue
        user = alert.saved_search.user
        users[user.pk] = user
        listing = by_user[user.pk].setdefault(
            alert.property_id, {**_listing_facts(alert.property), "searches": []}
        )
        listing["searches"].append(alert.saved_search.name)
    sent = 0
    period = (
        gettext_lazy("today")
        if digest.frequency == AlertFrequency.DAILY
        else gettext_lazy("this week")
    )
    for user in email_recipients(users=users.values(), topic=EmailTopic.ALERTS):
        listings = list(by_user[user.pk].values())
        count = len(listings)
        topic_email_enqueue(
            user=user,
            topic=EmailTopic.ALERTS,
            subject=format_lazy(
                ngettext_lazy(
                    "{count} new listing for your saved searches",
                    "{count} new listings for your saved searches",
                    count,
                ),
                count=count,
            ),
            template="alert_digest",
            context={"listings": listings, "period": period},
        )
        sent += 1
    return sent
