"""The plain data a bulk run's worker processes are started with.

A worker is spawned as a fresh interpreter that unpickles its arguments before running any
code: this module imports nothing that needs Django's app registry.
"""

import datetime
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PoolPhoto:
    """A shared photo file in the default storage that many bulk Image rows point at."""

    name: str
    kind: str
    width: int
    height: int
    # Storage names of its WebP copies by width ("400", "1200"), as every photo has (D11).
    thumbnails: dict[str, str]


@dataclass(frozen=True, slots=True)
class BulkPlan:
    """Everything a generator needs to make the rows of any batch of a bulk run."""

    seed: int
    owner_ids: list[str]
    category_ids: dict[str, str]
    pool: dict[str, list[PoolPhoto]]
    images_per_property: int
    now: datetime.datetime
    # How many listings the run adds: they were created from LISTING_AGE before `now` to
    # `now`, evenly and in the order they are written (demo.generator).
    listings: int


@dataclass(frozen=True, slots=True)
class BatchTask:
    """One batch of a bulk run: its number, which seeds its random generator, the position
    of its first listing among the run's and how many listings it has."""

    number: int
    first: int
    size: int
