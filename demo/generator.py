"""The rows of bulk listings, batch by batch: what each worker process of a bulk run makes
(demo.workers) and the parent writes (demo.bulk)."""

import datetime
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.db import connection

from config.ids import new_id
from demo.catalog import (
    KIND_CATEGORY,
    KIND_WEIGHTS,
    KINDS,
    MUNICIPALITIES,
    MUNICIPALITY_WEIGHTS,
    demo_random,
    listing_description,
    listing_title,
    pick_address,
    pick_area,
    pick_point,
    pick_price,
    pick_status,
    pick_transaction,
    record_row,
    record_values,
)
from demo.photos import CONTENT_TYPE
from demo.plan import BatchTask, BulkPlan
from listings.models import listing_slug

LISTING_AGE = datetime.timedelta(days=730)
POOL_PHOTO_TITLES = ("Front view", "Street view", "Surroundings", "Evening view", "Aerial view")


@dataclass(slots=True)
class Batch:
    """Rows of one batch, one list per table, in the column order of the Table constants."""

    properties: list[tuple[Any, ...]] = field(default_factory=list)
    records: list[tuple[Any, ...]] = field(default_factory=list)
    images: list[tuple[Any, ...]] = field(default_factory=list)


def datetime_formatter() -> Callable[[datetime.datetime], Any]:
    """How this database receives a timestamp outside the ORM.

    psycopg sends aware datetimes itself; Django stores them in SQLite as naive UTC
    text, and raw rows must match so that ordering by date compares like with like.
    """
    if connection.vendor == "postgresql":
        return lambda moment: moment
    return connection.ops.adapt_datetimefield_value


class BulkListingGenerator:
    """Makes the rows of bulk listings, batch by batch.

    Each batch has its own random generator, seeded from the run's seed and the batch
    number, so the data is the same whichever process generates which batch.
    """

    def __init__(self, *, plan: BulkPlan):
        self.plan = plan
        self.format_datetime = datetime_formatter()
        self.age_seconds = LISTING_AGE.total_seconds()
        # Each pool photo's WebP copies, as the JSON text of an Image row's thumbnails.
        self.photo_copies = {
            photo.name: json.dumps(photo.thumbnails)
            for photos in plan.pool.values()
            for photo in photos
        }

    def batch(self, *, task: BatchTask) -> Batch:
        """The rows of the task's listings: properties, their records and their images."""
        rng = demo_random(seed=self.plan.seed * 1_000_003 + task.number)
        batch = Batch()
        for position in range(task.first, task.first + task.size):
            self._add_listing(batch=batch, rng=rng, position=position)
        return batch

    def _created_at(self, *, position: int, rng: random.Random) -> datetime.datetime:
        """When the run's listing at `position` was created: the run's listings spread
        evenly over LISTING_AGE up to the run's start, oldest first. Written in that order,
        the table holds them as a portal's holds the listings it was given day by day (in
        the order they were created), which is what the reads bounded by creation date
        find together (docs/performance.md, "Bulk seeding")."""
        share = (position + rng.random()) / self.plan.listings
        return self.plan.now - datetime.timedelta(seconds=self.age_seconds * (1 - share))

    def _add_listing(self, *, batch: Batch, rng: random.Random, position: int) -> None:
        plan = self.plan
        kind = rng.choices(KINDS, weights=KIND_WEIGHTS)[0]
        town = rng.choices(MUNICIPALITIES, weights=MUNICIPALITY_WEIGHTS)[0]
        transaction_type = pick_transaction(rng=rng, kind=kind)
        area = pick_area(rng=rng, kind=kind)
        values = record_values(rng=rng, kind=kind, area=area)
        latitude, longitude = pick_point(rng=rng, town=town)
        created_at = self.format_datetime(self._created_at(position=position, rng=rng))
        property_id = new_id()
        title = listing_title(rng=rng, kind=kind, town=town, values=values, area=area)
        batch.properties.append(
            (
                property_id,
                created_at,
                created_at,
                title,
                listing_description(
                    rng=rng,
                    kind=kind,
                    town=town,
                    values=values,
                    area=area,
                    transaction_type=transaction_type,
                ),
                pick_price(
                    rng=rng, kind=kind, transaction_type=transaction_type, area=area, town=town
                ),
                latitude,
                longitude,
                transaction_type,
                town.name,
                pick_address(rng=rng, kind=kind, values=values),
                area,
                pick_status(rng=rng, transaction_type=transaction_type),
                rng.choice(plan.owner_ids),
                plan.category_ids[KIND_CATEGORY[kind]],
                kind,
                values.get("bedrooms"),
                listing_slug(title=title, kind=kind),
            )
        )
        batch.records.append(
            (
                new_id(),
                property_id,
                kind,
                *record_row(kind=kind, values=values),
                created_at,
                created_at,
            )
        )
        photos = plan.pool[kind]
        first = rng.randrange(len(photos))
        for position in range(plan.images_per_property):
            photo = photos[(first + position) % len(photos)]
            batch.images.append(
                (
                    new_id(),
                    property_id,
                    photo.name,
                    POOL_PHOTO_TITLES[position % len(POOL_PHOTO_TITLES)],
                    position,
                    photo.width,
                    photo.height,
                    CONTENT_TYPE,
                    self.photo_copies[photo.name],
                    created_at,
                )
            )
