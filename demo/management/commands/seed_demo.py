"""`manage.py seed_demo`: the demo data set, or with --properties N, bulk listings.

Without options it creates the demo data set once (a second run says it is already
seeded and changes nothing); `make seed` and `make run` call it. With --properties N
it adds N listings as fast as the database accepts them, for benchmarks.
"""

import time
from argparse import ArgumentParser, ArgumentTypeError
from collections.abc import Callable
from typing import Any

from django.core.management.base import BaseCommand

from demo.bulk import (
    DEFAULT_BATCH_SIZE,
    DEFAULT_IMAGES_PER_PROPERTY,
    DEFAULT_WORKERS,
    SET_ASIDE_THRESHOLD,
    bulk_seed,
)
from demo.catalog import DEFAULT_SEED
from demo.seed import DEMO_ADMIN_EMAIL, seed_demo_set


def _count(minimum: int) -> Callable[[str], int]:
    """An argparse type: an integer no smaller than `minimum`."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise ArgumentTypeError(f"must be at least {minimum}")
        return value

    return parse


def _quiet(message: str) -> None:
    """Progress messages at verbosity 0: none."""


class Command(BaseCommand):
    """Seed the demo data set, or bulk listings with --properties."""

    help = (
        "Create the demo data set (admin, owners, customers, listings of every kind with "
        "photos, appointments, favorites, notifications) unless it exists. With --properties N, "
        "add N bulk listings instead, for benchmarks."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--properties",
            type=_count(1),
            default=None,
            metavar="N",
            help="Bulk mode: add N listings (the demo set is not touched).",
        )
        parser.add_argument(
            "--images-per-property",
            type=_count(0),
            default=DEFAULT_IMAGES_PER_PROPERTY,
            metavar="K",
            help=f"Bulk mode: Image rows per listing (default {DEFAULT_IMAGES_PER_PROPERTY}).",
        )
        parser.add_argument(
            "--batch-size",
            type=_count(1),
            default=DEFAULT_BATCH_SIZE,
            help=f"Bulk mode: listings per COPY / INSERT batch (default {DEFAULT_BATCH_SIZE}).",
        )
        parser.add_argument(
            "--workers",
            type=_count(0),
            default=DEFAULT_WORKERS,
            help=(
                "Bulk mode: processes generating listings while this one writes them "
                f"(default: the number of CPUs, {DEFAULT_WORKERS}; 0 or 1 generates in-process)."
            ),
        )
        parser.add_argument(
            "--keep-indexes",
            action="store_true",
            help=(
                "Bulk mode on PostgreSQL: keep the secondary indexes and foreign keys of the "
                f"listing tables during the load. By default runs of {SET_ASIDE_THRESHOLD:,} "
                "listings or more drop them and restore them at the end, which is much faster "
                "but locks those tables until the commit."
            ),
        )
        parser.add_argument(
            "--seed",
            type=int,
            default=DEFAULT_SEED,
            help="Seed of the random generator; the same seed gives the same data.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["properties"] is not None:
            self._bulk(options)
            return
        result = seed_demo_set(seed=options["seed"])
        if not result.created:
            self.stdout.write(
                f"The demo data set is already seeded ({DEMO_ADMIN_EMAIL} exists); nothing to do."
            )
            return
        summary = ", ".join(f"{count} {name}" for name, count in result.counts.items())
        self.stdout.write(self.style.SUCCESS(f"Demo data set created: {summary}."))
        self.stdout.write(
            f"Admin credentials saved to {result.credentials_path}; "
            "show them with `manage.py demo_credentials`."
        )

    def _timed_notes(self, *, started: float) -> Callable[[str], None]:
        """Progress notes prefixed with the seconds since the start, to see the slow phases."""

        def note(message: str) -> None:
            self.stdout.write(f"[{time.perf_counter() - started:7.1f} s] {message}")

        return note

    def _bulk(self, options: dict[str, Any]) -> None:
        """Bulk mode; the progress bar is hidden at verbosity 0."""
        # Timed here, around bulk_seed's transaction: the commit is part of the cost (in small
        # runs it is where PostgreSQL checks Django's deferred foreign keys).
        started = time.perf_counter()
        result = bulk_seed(
            count=options["properties"],
            images_per_property=options["images_per_property"],
            batch_size=options["batch_size"],
            workers=options["workers"],
            set_aside_indexes=False if options["keep_indexes"] else None,
            seed=options["seed"],
            progress=options["verbosity"] > 0,
            notify=self._timed_notes(started=started) if options["verbosity"] > 0 else _quiet,
        )
        seconds = time.perf_counter() - started
        rate = result.properties / seconds
        self.stdout.write(
            self.style.SUCCESS(
                f"Added {result.properties} listings, {result.records} type-specific records, "
                f"{result.images} images and {result.owners} owners in {seconds:.1f} s "
                f"({rate:,.0f} listings/s)."
            )
        )
