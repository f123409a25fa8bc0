"""Prepare a seeded database for the benchmark and describe it as JSON on stdout.

Run by bench/run.py as `python bench/prepare.py` with DJANGO_SETTINGS_MODULE and
DATABASE_URL set. Through the platform's services it makes (once) the benchmark's
customers with favorites and notifications, issues each a fresh bearer token, and samples
what the request mix needs: listing ids, category ids, towns and the price range.
"""

import json
import os
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import django

django.setup()

from django.db import connection, transaction  # noqa: E402

from accounts.models import User, UserType  # noqa: E402
from accounts.services import access_token_issue, user_create  # noqa: E402
from demo.catalog import MUNICIPALITIES  # noqa: E402
from favorites.models import Favorite  # noqa: E402
from favorites.services import favorite_add  # noqa: E402
from listings.models import Property, PropertyCategory, PropertyStatus  # noqa: E402
from notifications.services import notification_send  # noqa: E402

CUSTOMERS = 40
FAVORITES_EACH = 12
NOTIFICATIONS_EACH = 25
SAMPLED_IDS = 5000
EMAIL = "bench-customer-{number:02d}@bench.example"


def sample_listing_ids(count: int) -> list[str]:
    """Ids of AVAILABLE listings spread over the table (a sample, not the newest ones)."""
    available = Property.objects.filter(status=PropertyStatus.AVAILABLE)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            # About 2 % of the pages of a 1,000,000-row table, then a random pick of them.
            cursor.execute(
                "SELECT id FROM listings_property TABLESAMPLE SYSTEM (2) REPEATABLE (7)"
                " WHERE status = %s LIMIT %s",
                [PropertyStatus.AVAILABLE, count * 4],
            )
            ids = [row[0] for row in cursor.fetchall()]
        if len(ids) < count:
            ids = list(available.values_list("id", flat=True)[: count * 4])
    else:
        ids = list(available.values_list("id", flat=True)[: count * 4])
    random.Random(7).shuffle(ids)
    return ids[:count]


@transaction.atomic
def customers_ensure(listing_ids: list[str]) -> list[User]:
    """The benchmark's customers, each with favorites and notifications (made once)."""
    customers = []
    rng = random.Random(11)
    for number in range(CUSTOMERS):
        email = EMAIL.format(number=number)
        user = User.objects.filter(email=email).first()
        if user is None:
            user = user_create(email=email, password=None, user_type=UserType.CUSTOMER)
        customers.append(user)
        if Favorite.objects.filter(user=user).exists():
            continue
        chosen = Property.objects.select_related("owner").filter(
            pk__in=rng.sample(listing_ids, FAVORITES_EACH + NOTIFICATIONS_EACH)
        )
        for index, listing in enumerate(chosen):
            if index < FAVORITES_EACH:
                favorite_add(user=user, property=listing, by=user)
            notification_send(
                user=user,
                property=listing,
                title="Price update",
                message=f"The price of {listing.title} changed.",
                emit_event=False,
            )
    return customers


def main() -> None:
    listing_ids = sample_listing_ids(SAMPLED_IDS)
    customers = customers_ensure(listing_ids)
    tokens = [access_token_issue(user=customer)[0] for customer in customers]
    prices = {
        transaction_type: [
            float(price)
            for price in Property.objects.filter(transaction_type=transaction_type)
            .order_by("?" if connection.vendor != "postgresql" else "id")
            .values_list("price", flat=True)[:2000]
        ]
        for transaction_type in ("SALE", "RENT")
    }
    description = {
        "listings": Property.objects.count() if os.environ.get("BENCH_COUNT") else None,
        "listingIds": listing_ids,
        "categoryIds": list(PropertyCategory.objects.values_list("id", flat=True)),
        "towns": [
            {"name": town.name, "latitude": town.latitude, "longitude": town.longitude}
            for town in MUNICIPALITIES
        ],
        "prices": {key: sorted(values) for key, values in prices.items()},
        "tokens": tokens,
    }
    json.dump(description, sys.stdout)


if __name__ == "__main__":
    main()
