"""The map cells PostgreSQL keeps (listings/sql/map_cells.sql) and the clusters added up
from them (listings.search.cells): always the listings' own, and the same clusters as
grouping the listings."""

import itertools
import math
import random
import re
from decimal import Decimal

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection

from listings import places, services
from listings.models import HIDDEN_STATUSES, MapCell, Property, PropertyStatus, TransactionType
from listings.search import cells, groups, search_params
from listings.search.cells import MAP_CELL_LEVELS, cell_size, celled_search, grouped_listings
from listings.search.clusters import listing_clusters
from listings.search.query import search_filtered
from tests.factories import ListingFactory

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_only]

KINDS = ("house", "apartment", "land", None)
# Town centres (latitude, longitude).
CENTRES = ((40.4168, -3.7038), (41.3851, 2.1734), (36.7213, -4.4214), (43.2630, -2.9350))


def expected_cells() -> dict[tuple, dict]:
    """The cells recomputed from the listings: per level, cell, transaction and kind, and
    rolled up per level, cell and transaction (kind ANY) and per level and cell (both ANY)."""
    expected: dict[tuple, dict] = {}
    for listing in Property.objects.exclude(status__in=HIDDEN_STATUSES):
        rollups = (
            (listing.transaction_type, listing.kind or ""),
            (listing.transaction_type, cells.ANY),
            (cells.ANY, cells.ANY),
        )
        for level, (transaction_type, kind) in itertools.product(MAP_CELL_LEVELS, rollups):
            size = cell_size(level)
            key = (
                level,
                math.floor(listing.latitude / size),
                math.floor(listing.longitude / size),
                transaction_type,
                kind,
            )
            cell = expected.setdefault(
                key,
                {
                    "listings": 0,
                    "latitude_sum": 0.0,
                    "longitude_sum": 0.0,
                    "west": listing.longitude,
                    "south": listing.latitude,
                    "east": listing.longitude,
                    "north": listing.latitude,
                    "lowest_price": listing.price,
                },
            )
            cell["listings"] += 1
            cell["latitude_sum"] += listing.latitude
            cell["longitude_sum"] += listing.longitude
            cell["west"] = min(cell["west"], listing.longitude)
            cell["south"] = min(cell["south"], listing.latitude)
            cell["east"] = max(cell["east"], listing.longitude)
            cell["north"] = max(cell["north"], listing.latitude)
            cell["lowest_price"] = min(cell["lowest_price"], listing.price)
    return expected


def stored_cells() -> dict[tuple, dict]:
    """The cells that hold listings, as stored."""
    return {
        (cell.level, cell.row, cell.column, cell.transaction_type, cell.kind): {
            "listings": cell.listings,
            "latitude_sum": cell.latitude_sum,
            "longitude_sum": cell.longitude_sum,
            "west": cell.west,
            "south": cell.south,
            "east": cell.east,
            "north": cell.north,
            "lowest_price": cell.lowest_price,
        }
        for cell in MapCell.objects.filter(listings__gt=0)
    }


def assert_cells_are_the_listings() -> None:
    expected, stored = expected_cells(), stored_cells()
    assert set(stored) == set(expected)
    for key, cell in expected.items():
        # Sums are added in another order: equal to a rounding error.
        assert stored[key] == {
            **cell,
            "latitude_sum": pytest.approx(cell["latitude_sum"], abs=1e-9),
            "longitude_sum": pytest.approx(cell["longitude_sum"], abs=1e-9),
        }, key
    # An emptied cell keeps no bounds and no price.
    assert not MapCell.objects.filter(listings=0, lowest_price__isnull=False).exists()


def generate_listings(rng: random.Random, count: int) -> list[Property]:
    listings = []
    for _ in range(count):
        latitude, longitude = rng.choice(CENTRES)
        listing = ListingFactory(
            latitude=round(latitude + rng.uniform(-0.5, 0.5), 5),
            longitude=round(longitude + rng.uniform(-0.5, 0.5), 5),
            price=Decimal(rng.choice(("450", "800.50", "120000", "250000", "99999.99"))),
            transaction_type=rng.choice(TransactionType.values),
            status=rng.choice(
                [PropertyStatus.AVAILABLE] * 3 + [PropertyStatus.SOLD, PropertyStatus.PENDING]
            ),
        )
        kind = rng.choice(KINDS)
        if kind is not None:
            Property.objects.filter(pk=listing.pk).update(kind=kind)
        listings.append(listing)
    return listings


def test_the_sql_file_keeps_the_levels_of_the_code():
    text = cells.SQL_FILE.read_text()
    grids = re.findall(r"VALUES \(9\), \(12\), \(13\), \(15\)", text)
    # What is added, the cells to make right again, and the rebuild.
    assert len(grids) == 3
    # The cells made right again: the finest grid's from the listings, then each coarser
    # grid's from the grid just finer.
    assert f"listings_map_cell_size({MAP_CELL_LEVELS[-1]})" in text
    steps = reversed(list(itertools.pairwise(MAP_CELL_LEVELS)))
    assert "VALUES " + ", ".join(f"({coarser}, {finer})" for coarser, finer in steps) in text
    # Where the cells roll up any transaction or kind, the code reads the same marker.
    assert set(re.findall(r"'(\W)'", text)) == {cells.ANY}
    assert MAP_CELL_LEVELS == (9, 12, 13, 15)
    # Box counts add up grids the triggers keep.
    assert set(cells.COUNT_LEVELS) <= set(MAP_CELL_LEVELS)


def test_cells_follow_every_kind_of_write_to_listings(admin):
    # given listings in and around four towns
    listings = generate_listings(random.Random(5), 40)
    assert_cells_are_the_listings()
    public = [listing for listing in listings if listing.status == PropertyStatus.AVAILABLE]
    cheapest = min(public, key=lambda listing: listing.price)

    # when they are moved, repriced (the cheapest made dearer), hidden, approved, changed in
    # bulk and deleted
    services.property_update(
        property=public[0], by=admin, changes={"latitude": 39.0, "longitude": -1.0}
    )
    assert_cells_are_the_listings()
    services.property_update(property=cheapest, by=admin, changes={"price": Decimal("9999999")})
    assert_cells_are_the_listings()
    services.property_change_status(
        property=public[1], by=admin, status=PropertyStatus.SUSPENDED, reason="Checking"
    )
    assert_cells_are_the_listings()
    pending = next(listing for listing in listings if listing.status == PropertyStatus.PENDING)
    services.property_change_status(property=pending, by=admin, status=PropertyStatus.AVAILABLE)
    assert_cells_are_the_listings()
    Property.objects.filter(pk__in=[public[2].pk, public[3].pk]).update(
        kind="office", transaction_type=TransactionType.RENT
    )
    assert_cells_are_the_listings()
    services.property_delete(property=public[4], by=admin)
    assert_cells_are_the_listings()
    Property.objects.filter(latitude__gt=41).delete()

    # then the cells are the listings' own
    assert_cells_are_the_listings()


def test_a_cell_emptied_of_its_listings_adds_nothing(anonymous_client, admin):
    # given one listing alone in its cells
    alone = ListingFactory(latitude=10.5, longitude=10.5)

    # when it is hidden
    services.property_change_status(
        property=alone, by=admin, status=PropertyStatus.SUSPENDED, reason="Checking"
    )

    # then its cells hold nothing, and the clusters nothing
    assert_cells_are_the_listings()
    params = search_params({"bbox": "0,0,20,20"})
    assert listing_clusters(viewer=AnonymousUser(), params=params, zoom=5).clusters == []


def test_cells_follow_the_bulk_seeders_copy(bulk_loaded):
    assert_cells_are_the_listings()


def listings_read(cursor) -> int:
    """The rows this transaction has read from the listings table so far, by scanning it
    or through its indexes."""
    cursor.execute(
        "SELECT seq_tup_read + idx_tup_fetch FROM pg_stat_xact_user_tables"
        " WHERE relname = 'listings_property'"
    )
    return cursor.fetchone()[0]


def test_a_listings_write_reads_its_cells_listings_through_the_public_indexes():
    # given listings round four towns, and one far from them, alone in its cells
    generate_listings(random.Random(9), 120)
    alone = ListingFactory(latitude=28.1, longitude=-15.4, status=PropertyStatus.AVAILABLE)
    with connection.cursor() as cursor:
        # Where an index answers, the planner takes it whatever the table's size; the plans
        # the triggers' function kept from earlier statements are made again.
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("DISCARD PLANS")
        before = listings_read(cursor)
        # when its price rises, so that its cells' lowest price is read again
        services.property_update(
            property=alone, by=alone.owner.user, changes={"price": alone.price + 1}
        )
        read = listings_read(cursor) - before
    # then its stale cells read the few listings of their boxes, not the table: the
    # triggers ask for `public`, as the public indexes' condition does
    assert read < Property.objects.count()
    assert_cells_are_the_listings()


def test_a_coarser_grids_stale_cell_is_computed_from_the_finer_grids_cells():
    # given the cheapest listing of a cell of zoom 9, alone in its cells of zoom 15 to 12,
    # and dearer listings of the same transaction and kind elsewhere in the zoom 9 cell
    cheapest = ListingFactory(
        latitude=40.0, longitude=-3.0, price=Decimal("1000"), transaction_type=TransactionType.SALE
    )
    for index in range(12):
        ListingFactory(
            latitude=39.95 + index * 0.003,
            longitude=-3.1,
            price=Decimal("2000"),
            transaction_type=TransactionType.SALE,
        )
    Property.objects.update(kind="house", status=PropertyStatus.AVAILABLE)
    zoom_9 = {
        "level": 9,
        "row": math.floor(40.0 / cell_size(9)),
        "column": math.floor(-3.0 / cell_size(9)),
    }
    houses_for_sale = {"transaction_type": TransactionType.SALE, "kind": "house"}
    assert MapCell.objects.get(**zoom_9, **houses_for_sale).listings == 13
    # and the cell of zoom 12 of the first dearer listing marked with a price of its own,
    # which only the cells can tell
    marked = MapCell.objects.filter(
        level=12,
        row=math.floor(39.95 / cell_size(12)),
        column=math.floor(-3.1 / cell_size(12)),
        **houses_for_sale,
    )
    assert marked.update(lowest_price=Decimal("1500")) == 1

    # when the cheapest listing's price rises, so that its cells of every grid are stale
    Property.objects.filter(pk=cheapest.pk).update(price=Decimal("6000"))

    # then the zoom 9 cell's lowest price is added up from the cells of zoom 12, not read
    # from its 13 listings (a band of the box index across the map, in a dense region)
    assert MapCell.objects.get(**zoom_9, **houses_for_sale).lowest_price == Decimal("1500")
    assert MapCell.objects.get(
        **zoom_9, transaction_type=cells.ANY, kind=cells.ANY
    ).lowest_price == Decimal("1500")


@pytest.mark.parametrize("path", [cells.SQL_FILE, groups.SQL_FILE, places.SQL_FILE])
def test_the_kept_tables_count_listings_by_their_public_column(path):
    text = path.read_text()
    assert re.findall(r"\b(?:changed|old_rows|listing)\.public\b", text)
    assert not [status for status in PropertyStatus.values if f"'{status}'" in text]


def listings_with_some_on_cell_edges(rng: random.Random) -> None:
    """70 generated listings, and one on a corner of a cell of each grid."""
    generate_listings(rng, 70)
    for level in MAP_CELL_LEVELS:
        latitude, longitude = rng.choice(CENTRES)
        size = cell_size(level)
        ListingFactory(
            latitude=math.floor(latitude / size) * size,
            longitude=math.floor(longitude / size) * size,
        )


def random_view(rng: random.Random) -> tuple[int, dict]:
    """A zoom and a map view over the towns: sometimes world-wide, sometimes with its edges
    on the cells' own edges, sometimes filtered."""
    zoom = rng.randint(3, cells.MAP_CELL_LEVELS[-1])
    shape = rng.choice(("around", "around", "on the edges", "world"))
    query: dict[str, str] = {}
    if shape != "world" or zoom > 4:
        latitude, longitude = rng.choice(CENTRES)
        half = rng.uniform(0.2, 3.0) * 64 / 2**zoom
        if shape == "on the edges":
            # A view whose edges are a finer grid's cell edges, exactly.
            size = cell_size(cells.level_for(zoom))
            south = math.floor((latitude - half) / size) * size
            west = math.floor((longitude - half) / size) * size
            box = (west, south, west + size * rng.randint(1, 40), south + size * rng.randint(1, 40))
        else:
            box = (longitude - half, latitude - half, longitude + half, latitude + half)
        query["bbox"] = ",".join(repr(number) for number in box)
    if rng.random() < 0.4:
        query["transactionType"] = rng.choice(TransactionType.values)
    if rng.random() < 0.3:
        query["type"] = rng.choice(["house", "apartment", "land"])
    return zoom, query


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_clusters_from_the_cells_are_those_of_the_listings(seed):
    # given listings round four towns, some on every grid's cell edges
    rng = random.Random(seed)
    listings_with_some_on_cell_edges(rng)

    # when views are asked for at every zoom the cells serve
    from_cells = 0
    for _ in range(40):
        zoom, query = random_view(rng)
        params = search_params(query)
        search = celled_search(params, zoom)
        assert search is not None
        size = cell_size(cells.level_for(zoom))
        inside = cells.inside(search.box, size)
        from_cells += inside is not None and cells.worth_it(search.box, inside, size)
        got = listing_clusters(viewer=AnonymousUser(), params=params, zoom=zoom)

        # then each is the grouping of the view's listings, cluster by cluster
        grouped = grouped_listings(search_filtered(viewer=AnonymousUser(), params=params), zoom)
        order = sorted(grouped, key=lambda key: (-grouped[key].count, key))
        assert [cluster.count for cluster in got.clusters] == [
            grouped[key].count for key in order
        ], query
        for cluster, key in zip(got.clusters, order, strict=True):
            totals = grouped[key]
            assert (cluster.west, cluster.south, cluster.east, cluster.north) == (
                totals.west,
                totals.south,
                totals.east,
                totals.north,
            )
            assert cluster.lowest_price == totals.lowest_price
            assert cluster.latitude == pytest.approx(totals.latitude_sum / totals.count)
            assert cluster.longitude == pytest.approx(totals.longitude_sum / totals.count)
    # Most views were added up from the cells (the others are grouped as the reference is).
    assert from_cells >= 20


@pytest.mark.parametrize("seed", [4, 5])
def test_box_counts_from_the_cells_are_the_matches(seed):
    # given listings round four towns, some on every grid's cell edges
    rng = random.Random(seed)
    listings_with_some_on_cell_edges(rng)

    # when boxes of every size are counted
    from_cells = 0
    for _ in range(40):
        _zoom, query = random_view(rng)
        if "bbox" not in query:
            continue
        params = search_params(query)
        matches = search_filtered(viewer=AnonymousUser(), params=params)
        counted = cells.celled_count(celled_search(params), database=matches.db)

        # then each count from the cells is the number of matches
        if counted is not None:
            from_cells += 1
            assert counted[0] == matches.count(), query
    assert from_cells >= 15


# A view's clusters and a box's count from the cells: one statement each, inside the
# transaction that plans it for its values (BEGIN, the setting, the statement, COMMIT).
CELLED_QUERIES = 4


@pytest.mark.parametrize(
    "query",
    [
        {"zoom": "10", "bbox": "-4.1,40.1,-3.3,40.7"},
        {"zoom": "10", "bbox": "-4.1,40.1,-3.3,40.7", "transactionType": "SALE", "type": "house"},
        {"zoom": "5"},
    ],
)
def test_clusters_from_the_cells_cost_one_statement_for_few_and_many_listings(
    client, django_assert_num_queries, query
):
    # given a few listings round Madrid, then many more
    rng = random.Random(9)
    generate_listings(rng, 3)
    with django_assert_num_queries(CELLED_QUERIES):
        few = client.get("/api/v1/properties/clusters", query)
    generate_listings(rng, 60)

    # when
    with django_assert_num_queries(CELLED_QUERIES):
        many = client.get("/api/v1/properties/clusters", query)

    # then
    assert (few.status_code, many.status_code) == (200, 200)
    assert many.json()["totalItems"] > few.json()["totalItems"]


def test_a_box_counted_from_the_cells_costs_one_statement(django_assert_num_queries):
    # given
    generate_listings(random.Random(10), 40)
    params = search_params({"bbox": "-4.1,40.1,-3.3,40.7", "transactionType": "RENT"})
    matches = search_filtered(viewer=AnonymousUser(), params=params)

    # when
    with django_assert_num_queries(1):
        counted = cells.celled_count(celled_search(params), database=matches.db)

    # then
    assert counted is not None
    assert counted[0] == matches.count()
