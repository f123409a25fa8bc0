"""The price bands a search's range covers wholly and touches (listings.search.groups)."""

import itertools
from decimal import Decimal

from listings.search.groups import LAST_BAND, PRICE_BAND_EDGES, GroupedSearch


def floor(band: int) -> Decimal:
    return Decimal(0) if band == 0 else PRICE_BAND_EDGES[band - 1]


def ceiling(band: int) -> Decimal | None:
    return None if band == LAST_BAND else PRICE_BAND_EDGES[band]


def walked(bands: list[int]) -> tuple[int, int] | None:
    return (bands[0], bands[-1]) if bands else None


def inside_by_walking(low: Decimal | None, high: Decimal | None) -> tuple[int, int] | None:
    """Every band whose whole price range lies within [low, high], by definition."""
    return walked(
        [
            band
            for band in range(LAST_BAND + 1)
            if (low is None or floor(band) >= low)
            and (high is None or (ceiling(band) is not None and ceiling(band) <= high))
        ]
    )


def touched_by_walking(low: Decimal | None, high: Decimal | None) -> tuple[int, int] | None:
    """Every band holding some price within [low, high], by definition."""
    return walked(
        [
            band
            for band in range(LAST_BAND + 1)
            if (low is None or ceiling(band) is None or ceiling(band) > low)
            and (high is None or floor(band) <= high)
        ]
    )


# Edges, values either side of them, zero, the ends of the scale, and no bound at all.
PRICES = sorted(
    {Decimal(0), Decimal("0.01"), Decimal("5"), Decimal("9999999999")}
    | set(PRICE_BAND_EDGES)
    | {edge - Decimal("0.01") for edge in PRICE_BAND_EDGES}
    | {edge + Decimal("0.01") for edge in PRICE_BAND_EDGES[::7]}
)
BOUNDS = [None, *PRICES]


def test_bisected_bands_are_the_bands_by_definition():
    # given every pair of bounds among edges and prices around them
    searches = [
        GroupedSearch(min_price=low, max_price=high)
        for low, high in itertools.product(BOUNDS, BOUNDS)
        if low is None or high is None or low <= high
    ]

    # then the bands found by bisection are those a walk over every band finds
    assert len(searches) > 20_000
    for search in searches:
        low, high = search.min_price, search.max_price
        assert search.bands_inside() == inside_by_walking(low, high), (low, high)
        assert search.bands_touched() == touched_by_walking(low, high), (low, high)
