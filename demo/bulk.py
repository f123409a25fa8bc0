"""Bulk listings for benchmarks: `manage.py seed_demo --properties N`.

Generates N listings of all seven kinds with their type-specific records and Image
rows, spread over many municipalities and the last two years, and writes them
without the ORM: PostgreSQL receives them through COPY, streamed batch by batch;
SQLite through executemany. The Image rows point at a small shared pool of
generated photos under demo/pool/ in the default storage, so N listings do not
mean N times K files.
"""

import itertools
import math
import multiprocessing
import os
import random
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import closing, contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any, Protocol

from django.contrib.auth.hashers import make_password
from django.core.files.base import ContentFile
from django.core.files.storage import Storage, default_storage
from django.db import connection, models, transaction
from django.utils import timezone
from PIL import Image as PillowImage
from tqdm import tqdm

from accounts.models import Owner, User, UserType
from demo.catalog import (
    DEFAULT_SEED,
    KINDS,
    demo_random,
    pick_person_name,
    pick_phone,
)
from demo.generator import Batch, BulkListingGenerator
from demo.photos import render_photo
from demo.plan import BatchTask, BulkPlan, PoolPhoto
from demo.seed import ensure_categories
from demo.workers import generate_batch, start_worker
from listings import places
from listings.cache import public_reads_changed
from listings.models import RECORD_FIELDS, Property, PropertyType, TypeSpecificRecord
from listings.search import cells, days, groups
from media_app.images import THUMBNAIL_WIDTHS, image_prepare
from media_app.models import Image

DEFAULT_BATCH_SIZE = 10_000
DEFAULT_IMAGES_PER_PROPERTY = 3
DEFAULT_WORKERS = os.cpu_count() or 1
# From this many listings on, PostgreSQL runs set the secondary indexes and the foreign keys
# of the bulk tables aside during the load, and restore them after it.
SET_ASIDE_THRESHOLD = 50_000
# Batches generated ahead per worker: enough to keep the workers busy while the database
# takes a batch, few enough that memory stays flat when the database is the slower side.
BATCHES_AHEAD_PER_WORKER = 2
LISTINGS_PER_OWNER = 200
POOL_SIZE = 24
POOL_FOLDER = "demo/pool"
BULK_OWNER_PREFIX = "bulk-owner-"
BULK_OWNER_DOMAIN = "example.com"

PROPERTY_FIELDS = (
    "id",
    "created_at",
    "updated_at",
    "title",
    "description",
    "price",
    "latitude",
    "longitude",
    "transaction_type",
    "municipality",
    "address",
    "area",
    "status",
    "owner",
    "category",
    "kind",
    "bedrooms",
    "slug",
)
RECORD_TABLE_FIELDS = ("id", "property", "kind", *RECORD_FIELDS, "created_at", "updated_at")
IMAGE_FIELDS = (
    "id",
    "property",
    "file",
    "title",
    "position",
    "width",
    "height",
    "content_type",
    "thumbnails",
    "created_at",
)


def _columns(*, model: type[models.Model], fields: Sequence[str]) -> tuple[str, ...]:
    """Database column names of these model fields (a foreign key `owner` is `owner_id`)."""
    return tuple(model._meta.get_field(name).column for name in fields)


@dataclass(frozen=True, slots=True)
class Table:
    """Where a batch of rows goes: the table and its columns, in row order."""

    name: str
    columns: tuple[str, ...]


PROPERTY_TABLE = Table(Property._meta.db_table, _columns(model=Property, fields=PROPERTY_FIELDS))
RECORD_TABLE = Table(
    TypeSpecificRecord._meta.db_table,
    _columns(model=TypeSpecificRecord, fields=RECORD_TABLE_FIELDS),
)
IMAGE_TABLE = Table(Image._meta.db_table, _columns(model=Image, fields=IMAGE_FIELDS))


@dataclass(frozen=True, slots=True)
class BulkResult:
    """How many rows the bulk run added."""

    properties: int
    records: int
    images: int
    owners: int


class RowWriter(Protocol):
    """Writes a list of rows to a table; one implementation per database."""

    def write(self, *, table: Table, rows: list[tuple[Any, ...]]) -> None: ...


class PostgresCopyWriter:
    """Streams rows with COPY ... FROM STDIN: one statement per table and batch, no ORM."""

    def __init__(self, *, cursor: Any):
        # Django's CursorWrapper hides psycopg's copy(); its `cursor` is the psycopg cursor.
        self.cursor = cursor.cursor

    def write(self, *, table: Table, rows: list[tuple[Any, ...]]) -> None:
        """Send the rows in COPY's text format; psycopg's C formatter escapes every value."""
        from psycopg import sql

        statement = sql.SQL("COPY {} ({}) FROM STDIN").format(
            sql.Identifier(table.name), sql.SQL(", ").join(map(sql.Identifier, table.columns))
        )
        with self.cursor.copy(statement) as copy:
            write_row = copy.write_row
            for row in rows:
                write_row(row)


# Plain secondary indexes of the bulk tables: neither a primary key nor unique nor backing a
# constraint (foreign keys point at primary keys, which therefore stay).
SECONDARY_INDEXES_QUERY = """
    SELECT index_class.relname, pg_get_indexdef(pg_index.indexrelid)
    FROM pg_index
    JOIN pg_class AS index_class ON index_class.oid = pg_index.indexrelid
    WHERE pg_index.indrelid = ANY(%s::regclass[])
      AND NOT pg_index.indisprimary
      AND NOT pg_index.indisunique
      AND NOT EXISTS (
          SELECT 1 FROM pg_constraint WHERE pg_constraint.conindid = pg_index.indexrelid
      )
    ORDER BY index_class.relname
"""
# Foreign keys declared on the bulk tables (those pointing at them from other tables stay).
FOREIGN_KEYS_QUERY = """
    SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid)
    FROM pg_constraint
    WHERE contype = 'f' AND conrelid = ANY(%s::regclass[])
    ORDER BY conrelid::regclass::text, conname
"""
# Memory for each index build after the load; the session default (64 MB) spills to disk.
INDEX_BUILD_MEMORY = "512MB"


def declared_index_statements() -> dict[str, str]:
    """CREATE INDEX of every index the bulk tables' models declare, as migrations write it.

    Rebuilt from pg_get_indexdef, a partial index's condition comes back in another form
    (`status = ANY (ARRAY[...])` instead of the constant array the migration stored); the
    declared indexes are therefore made again from their declarations.
    """
    editor = connection.schema_editor()
    return {
        index.name: str(index.create_sql(model, editor))
        for model in (Property, TypeSpecificRecord, Image)
        for index in model._meta.indexes
    }


@dataclass(frozen=True, slots=True)
class DeferredStructures:
    """What a load set aside: indexes to build and foreign keys to add back afterwards."""

    indexes: int
    foreign_keys: int


@contextmanager
def indexes_and_foreign_keys_set_aside(
    *, cursor: Any, tables: Sequence[Table]
) -> Iterator[DeferredStructures]:
    """Drop the secondary indexes and foreign keys of `tables`; restore them on exit.

    PostgreSQL's advice in "Populating a Database": one sorted build per index is far
    cheaper than inserting every row into each of them (20 indexes, 6 of them Django's
    `_like` copies of varchar keys), and adding a foreign key back checks every row
    with one join instead of one query per row (Django's are deferred to the commit,
    and would cost about a minute per million listings there). Primary keys and unique
    constraints stay: they keep guarding the load. All of it happens in the caller's
    transaction, so a failure restores every index and key with the rest; the tables
    stay locked (ACCESS EXCLUSIVE) until the commit.
    """
    quote = connection.ops.quote_name
    # Rows written earlier in this transaction (the bulk owners) have deferred checks still
    # pending, and PostgreSQL alters no table that has some (dropping a foreign key alters
    # the table it points at too): run them now, and every later check at once.
    cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    names = [[table.name for table in tables]]
    cursor.execute(SECONDARY_INDEXES_QUERY, names)
    indexes = cursor.fetchall()
    cursor.execute(FOREIGN_KEYS_QUERY, names)
    foreign_keys = cursor.fetchall()
    for table, name, _definition in foreign_keys:
        cursor.execute(f"ALTER TABLE {quote(table)} DROP CONSTRAINT {quote(name)}")
    for name, _definition in indexes:
        cursor.execute(f"DROP INDEX {quote(name)}")
    yield DeferredStructures(indexes=len(indexes), foreign_keys=len(foreign_keys))
    cursor.execute(f"SET LOCAL maintenance_work_mem = '{INDEX_BUILD_MEMORY}'")
    declared = declared_index_statements()
    for name, definition in indexes:
        cursor.execute(declared.get(name, definition))
    for table, name, definition in foreign_keys:
        cursor.execute(f"ALTER TABLE {quote(table)} ADD CONSTRAINT {quote(name)} {definition}")


# The files of the tables PostgreSQL keeps from the listings (listings.triggers): each one's
# last statements rebuild its table from the listings.
KEPT_TABLE_FILES = (groups.SQL_FILE, days.SQL_FILE, places.SQL_FILE, cells.SQL_FILE)


@contextmanager
def kept_tables_rebuilt_after(*, cursor: Any) -> Iterator[None]:
    """Pause the listings' triggers for the load, and build the tables they keep (the public
    listing groups, the days, the places, the map cells) once from the listings after it.

    Followed batch by batch, each busy group and cell is updated once for each of a load's
    batches (100 at 1,000,000 listings), with no read between them to clear the versions it
    leaves behind: the groups' table grew to 164 MB for 89,510 rows and the cells' figures
    index to 245 MB instead of 89, and a clusters request cost PostgreSQL 2.7 to 2.8 ms
    instead of 2.1 to 2.3 (docs/performance.md). Built once, they are as compact as the
    indexes built after the load. The listings table stays locked (ACCESS EXCLUSIVE, by the
    indexes set aside) until the commit, so no other write can pass unseen by the triggers,
    and a failure rolls their pause back with the rest.
    """
    table = connection.ops.quote_name(PROPERTY_TABLE.name)
    cursor.execute(f"ALTER TABLE {table} DISABLE TRIGGER USER")
    yield
    # Each file creates its triggers again, enabled, before it rebuilds its table: a
    # trigger left disabled is one whose table was not rebuilt (a test compares them).
    for path in KEPT_TABLE_FILES:
        cursor.execute(path.read_text(encoding="utf-8"))


class ExecuteManyWriter:
    """The fallback for SQLite (and any other database): one executemany per table and batch."""

    def __init__(self, *, cursor: Any):
        self.cursor = cursor
        self.statements: dict[str, str] = {}

    def write(self, *, table: Table, rows: list[tuple[Any, ...]]) -> None:
        """Insert the rows with one prepared INSERT, repeated by the database driver."""
        statement = self.statements.get(table.name)
        if statement is None:
            quote = connection.ops.quote_name
            columns = ", ".join(quote(column) for column in table.columns)
            placeholders = ", ".join(["%s"] * len(table.columns))
            # Names come from the models' meta, never from input: nothing to inject.
            statement = f"INSERT INTO {quote(table.name)} ({columns}) VALUES ({placeholders})"  # noqa: S608
            self.statements[table.name] = statement
        self.cursor.executemany(statement, rows)


def ensure_photo_pool(*, storage: Storage = default_storage) -> dict[str, list[PoolPhoto]]:
    """The shared photos by kind, generated into demo/pool/ the first time only."""
    pool: dict[str, list[PoolPhoto]] = {kind: [] for kind in KINDS}
    for index in range(POOL_SIZE):
        kind = KINDS[index % len(KINDS)]
        stem = f"{POOL_FOLDER}/{index:02d}-{kind}"
        name = f"{stem}.jpg"
        copies = {str(width): f"{stem}_{width}.webp" for width in THUMBNAIL_WIDTHS}
        if storage.exists(name) and all(storage.exists(copy) for copy in copies.values()):
            with storage.open(name) as handle, PillowImage.open(handle) as picture:
                width, height = picture.size
        else:
            photo = render_photo(
                kind=kind,
                label=f"{PropertyType(kind).label} · demo photo {index + 1}",
                variant=index,
            )
            # The WebP copies every photo has (D11), made as an upload makes them.
            prepared = image_prepare(ContentFile(photo.content, name="photo.jpg"))
            # The storage may pick another name if one appeared meanwhile; keep the one it used.
            name = storage.save(name, ContentFile(photo.content))
            copies = {
                str(width): storage.save(copies[str(width)], ContentFile(data))
                for width, data in prepared.thumbnails.items()
            }
            width, height = photo.width, photo.height
        pool[kind].append(
            PoolPhoto(name=name, kind=kind, width=width, height=height, thumbnails=copies)
        )
    return pool


def create_bulk_owners(*, count: int, rng: random.Random) -> list[str]:
    """Create `count` owner users (with their Owner records) in bulk; return the Owner ids."""
    taken = set(
        User.objects.filter(email__startswith=BULK_OWNER_PREFIX).values_list("email", flat=True)
    )
    emails: list[str] = []
    number = len(taken)
    while len(emails) < count:
        number += 1
        email = f"{BULK_OWNER_PREFIX}{number:06d}@{BULK_OWNER_DOMAIN}"
        if email not in taken:
            emails.append(email)
    # Bulk owners cannot sign in: make_password(None) is Django's unusable password.
    users = [
        User(
            email=email,
            name=pick_person_name(rng=rng),
            phone=pick_phone(rng=rng),
            user_type=UserType.OWNER,
            password=make_password(None),
        )
        for email in emails
    ]
    User.objects.bulk_create(users, batch_size=1_000)
    owners = [Owner(user=user) for user in users]
    Owner.objects.bulk_create(owners, batch_size=1_000)
    return [owner.id for owner in owners]


def generated_batches(*, plan: BulkPlan, tasks: list[BatchTask], workers: int) -> Iterator[Batch]:
    """The batches in order, generated by `workers` processes (in this one if 0 or 1).

    Generating a listing costs far more than the database takes to store it, mostly
    in config.ids.new_id (five cuid2 ids per listing with three images), so the
    generation is spread over the CPUs while this process streams to the database.
    """
    if workers <= 1 or len(tasks) < 2:
        generator = BulkListingGenerator(plan=plan)
        for task in tasks:
            yield generator.batch(task=task)
        return
    # spawn, not fork: this process holds a database connection and a pool's threads.
    context = multiprocessing.get_context("spawn")
    executor = ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=start_worker, initargs=(plan,)
    )
    try:
        remaining = iter(tasks)
        pending: deque[Future[Batch]] = deque(
            executor.submit(generate_batch, task)
            for task in itertools.islice(remaining, workers * BATCHES_AHEAD_PER_WORKER)
        )
        while pending:
            batch = pending.popleft().result()
            for task in itertools.islice(remaining, 1):
                pending.append(executor.submit(generate_batch, task))
            yield batch
    finally:
        executor.shutdown(wait=True, cancel_futures=True)


def batch_tasks(*, total: int, size: int) -> list[BatchTask]:
    """The successive batches of `total` listings: `size` each, the rest in the last one."""
    return [
        BatchTask(number=number, first=first, size=min(size, total - first))
        for number, first in enumerate(range(0, total, size))
    ]


def _ignore(message: str) -> None:
    """The default of `bulk_seed(notify=...)`: stay quiet."""


@transaction.atomic
def bulk_seed(
    *,
    count: int,
    images_per_property: int = DEFAULT_IMAGES_PER_PROPERTY,
    batch_size: int = DEFAULT_BATCH_SIZE,
    workers: int = DEFAULT_WORKERS,
    set_aside_indexes: bool | None = None,
    seed: int = DEFAULT_SEED,
    progress: bool = True,
    notify: Callable[[str], None] = _ignore,
) -> BulkResult:
    """Add `count` listings with records and images, in one transaction, as fast as possible.

    `set_aside_indexes` (PostgreSQL only) drops the secondary indexes and the foreign keys
    of the three tables for the load and restores them at the end (see
    indexes_and_foreign_keys_set_aside), and builds the tables PostgreSQL keeps from the
    listings once after it (kept_tables_rebuilt_after); None decides by size
    (SET_ASIDE_THRESHOLD).
    """
    started = timezone.now()
    # The new listings are public: cached public reads are stale once they commit.
    public_reads_changed()
    rng = demo_random(seed=seed)
    categories = ensure_categories()
    plan = BulkPlan(
        seed=seed,
        owner_ids=create_bulk_owners(count=max(1, math.ceil(count / LISTINGS_PER_OWNER)), rng=rng),
        category_ids={name: category.id for name, category in categories.items()},
        pool=ensure_photo_pool(),
        images_per_property=images_per_property,
        now=started,
        listings=count,
    )
    batches = generated_batches(
        plan=plan, tasks=batch_tasks(total=count, size=batch_size), workers=workers
    )
    postgresql = connection.vendor == "postgresql"
    if set_aside_indexes is None:
        set_aside_indexes = count >= SET_ASIDE_THRESHOLD
    with closing(batches), connection.cursor() as cursor:
        writer: RowWriter = (
            PostgresCopyWriter(cursor=cursor) if postgresql else ExecuteManyWriter(cursor=cursor)
        )
        set_aside = (
            indexes_and_foreign_keys_set_aside(
                cursor=cursor, tables=(PROPERTY_TABLE, RECORD_TABLE, IMAGE_TABLE)
            )
            if postgresql and set_aside_indexes
            else nullcontext(None)
        )
        kept_tables = (
            kept_tables_rebuilt_after(cursor=cursor)
            if postgresql and set_aside_indexes
            else nullcontext(None)
        )
        with set_aside as deferred, kept_tables:
            if deferred:
                notify(
                    f"Set aside {deferred.indexes} secondary indexes and "
                    f"{deferred.foreign_keys} foreign keys for the load."
                )
            with tqdm(total=count, unit=" listings", disable=not progress, smoothing=0.05) as bar:
                for batch in batches:
                    # Parents first, for the foreign keys checked when they are not set aside.
                    writer.write(table=PROPERTY_TABLE, rows=batch.properties)
                    writer.write(table=RECORD_TABLE, rows=batch.records)
                    writer.write(table=IMAGE_TABLE, rows=batch.images)
                    bar.update(len(batch.properties))
            if deferred:
                notify(
                    "Building the indexes, checking the foreign keys and counting the"
                    " listings' groups, days, places and map cells..."
                )
        notify("Committing...")
    return BulkResult(
        properties=count,
        records=count,
        images=count * images_per_property,
        owners=len(plan.owner_ids),
    )
