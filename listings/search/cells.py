"""Map clusters and box counts of public searches, added up from grid cells that PostgreSQL
keeps.

Grouping the matches of a whole-country map view reads every public listing in it (881,000
index entries at 1,000,000 listings: 300 ms); added up from the cells it takes 6 ms, a
city's view 20 to 40 ms, and the benchmark's `clusters` (a third whole-country views) went
from 6 to about 150 requests a second (docs/performance.md). Triggers on the listings table
keep, in listings_mapcell, the public listings of each transaction and kind in the cells of
four grids, at the zooms of MAP_CELL_LEVELS (listings/sql/map_cells.sql): their count, the
sums of their coordinates, their bounds and lowest price; and the same rolled up (ANY) for
each transaction whatever the kind and for every listing, so that a view filtered on a
transaction alone, or on nothing, reads one row a cell. A grid's cell at zoom z is
exactly 2^(level - z) by 2^(level - z) cells of a finer level (the sizes are 90 / 2^zoom:
halving a size is exact in floating point, and so is the floor of the finer cell's
number), so a cluster at zoom z is added up from the finer grid's cells it holds.

A map's view rarely falls on the cells' edges: the cells wholly inside it are added up from
the grid; the listings in the strips along the view's edges are read and grouped as they
are, through the latitude and the longitude indexes of public listings. Both parts are
merged by cluster. When the inside cells cover less than MOSTLY_INSIDE of the view (a
town's view, where the cells are large), all of its listings are grouped instead. A list's
count of a box is added up the same way (celled_count): a town's box took 16 to 26 ms
counted from its matches, or was given up at 25 ms for an estimate, and takes 2 to 6 ms,
exact. The triggers add a statement's changes in the same transaction, so the cells are
always those of the rows the reading transaction sees; they cost a listing's write 1 to 5
ms, and 35 ms when it was the cheapest of a dense cell (its cell is read again).

A search may use the cells when a visitor's or customer's search filters on nothing but
its transaction, its kind and the map's box (not across the antimeridian), its clusters
at a zoom no finer than the last level. Only PostgreSQL has them.
"""

import functools
import math
from dataclasses import dataclass
from pathlib import Path

from django.db import connections
from django.db.models import Count, F, FloatField, Max, Min, QuerySet, Sum, Value
from django.db.models.functions import Floor

from listings.models import MapCell, Property
from listings.search.params import Box, SearchParams
from listings.search.statistics import TABLE_ROWS
from listings.triggers import install_sql_file, uninstall_triggers

# The transaction and the kind of a cell's rolled-up rows: its listings of every kind of a
# transaction, and of every transaction and kind (listings/sql/map_cells.sql). In a dense
# city a cell holds a row for each of about a dozen transactions and kinds (a view of
# Madrid at zoom 12 read 1,479 rows for its 112 inside cells): rolled up, a whole-country
# view's clusters cost 4.2 to 4.6 ms in the database against 7.0 to 7.8 (docs/performance.md).
ANY = "*"
# The zooms of the stored grids; a cluster at zoom z is added up from the first level at
# or past z. Changing them means changing the SQL file too (a test compares), and a
# migration that runs it again. Zoom 13 has a grid of its own: added up from zoom 15's, a
# city's view read 16 cells a cluster (17,500 for a view of Barcelona at 1,000,000
# listings); the benchmark's zoom-13 views took 10.5 to 14.3 ms a statement that way,
# 8.0 to 11.3 ms from their own grid (three alternating rounds).
MAP_CELL_LEVELS = (9, 12, 13, 15)
# The grids a box's count is added up from. Not zoom 13's: a box that zoom 12's cells
# cover too little of is counted from zoom 15's, whose strips along the box's edges are a
# quarter as wide (from zoom 13's, which half of the benchmark's boxes then chose, a count
# took 4.41 to 4.72 ms against 4.09 to 4.52, four alternating rounds).
COUNT_LEVELS = (9, 12, 15)
SQL_FILE = Path(__file__).resolve().parent.parent / "sql" / "map_cells.sql"
# How far (relative to the coordinate) a view's edge must lie outside a cell for the cell to
# be inside the view: far more than floating point's rounding (2e-16), far less than a
# listing's precision.
EDGE_MARGIN = 1e-12
# The share of a view its inside cells must cover for the cells to be read.
MOSTLY_INSIDE = 0.6


def cell_size(zoom: int) -> float:
    """The width and height of a cell at a zoom, in degrees: a quarter of a map tile."""
    return 90 / 2**zoom


@dataclass(frozen=True, slots=True)
class CelledSearch:
    """A public search whose criteria the cells hold: each None when not filtered on."""

    transaction_type: str | None
    kind: str | None
    box: Box | None


def celled_search(params: SearchParams, zoom: int | None = None) -> CelledSearch | None:
    """The search as the cells answer it (its clusters at `zoom`, or without one its count),
    or None when they cannot."""
    others = (
        params.text,
        params.min_price,
        params.max_price,
        params.municipality,
        params.owner_id,
        params.category_id,
        params.status,
        params.min_area,
        params.max_area,
        params.min_bedrooms,
        params.circle,
        params.polygon,
    )
    if any(value not in (None, "") for value in others):
        return None
    if zoom is not None and zoom > MAP_CELL_LEVELS[-1]:
        return None
    if params.box is not None and params.box.west > params.box.east:
        return None
    return CelledSearch(params.transaction_type, params.kind, params.box)


def level_for(zoom: int) -> int:
    """The grid a cluster at this zoom is added up from."""
    return next(level for level in MAP_CELL_LEVELS if level >= zoom)


@dataclass(frozen=True, slots=True)
class Inside:
    """The cells of a level wholly inside a view, by number: rows and columns, inclusive."""

    first_row: int
    last_row: int
    first_column: int
    last_column: int


def inside(box: Box | None, size: float) -> Inside | None:
    """The cells of this size wholly inside the box; None if none. Without a box: every
    cell (the world)."""
    if box is None:
        reach = math.ceil(180 / size) + 1
        return Inside(-reach, reach, -reach, reach)
    first_row, last_row = _inner(box.south, box.north, size)
    first_column, last_column = _inner(box.west, box.east, size)
    if first_row > last_row or first_column > last_column:
        return None
    return Inside(first_row, last_row, first_column, last_column)


def _inner(low: float, high: float, size: float) -> tuple[int, int]:
    """The first and last cells that lie wholly from `low` to `high` (cell n spans n * size
    to (n + 1) * size), each edge at least EDGE_MARGIN (relative) inside: a point whose cell
    number rounding gives to an inside cell lies within a few units of the last place of
    that cell, so never outside the box."""
    first = math.ceil(low / size)
    while first * size - abs(first * size) * EDGE_MARGIN < low:
        first += 1
    last = math.floor(high / size) - 1
    while (last + 1) * size + abs((last + 1) * size) * EDGE_MARGIN > high:
        last -= 1
    return first, last


def worth_it(box: Box | None, cells: Inside, size: float) -> bool:
    """Whether the inside cells cover most of the box: otherwise reading the strips along
    its edges costs more than grouping all of its listings (a town's view at zoom 12:
    87 ms instead of 15 ms at 1,000,000 listings)."""
    if box is None:
        return True
    inside_area = (cells.last_row - cells.first_row + 1) * (
        cells.last_column - cells.first_column + 1
    )
    box_area = (box.north - box.south) * (box.east - box.west) / (size * size)
    return inside_area >= MOSTLY_INSIDE * box_area


@dataclass(frozen=True, slots=True)
class Totals:
    """One cluster's figures: its listings, the sums of their coordinates (its mean point),
    their bounds and lowest price."""

    count: int
    latitude_sum: float
    longitude_sum: float
    west: float
    south: float
    east: float
    north: float
    lowest_price: object


def grouped_listings(listings: QuerySet, zoom: int) -> dict[tuple[int, int], Totals]:
    """The listings' totals by cell at this zoom: (row, column) -> Totals (one query)."""
    size = Value(cell_size(zoom), output_field=FloatField())
    cells = (
        listings.order_by()
        .annotate(cell_row=Floor(F("latitude") / size), cell_column=Floor(F("longitude") / size))
        .values("cell_row", "cell_column")
        .annotate(
            count=Count("pk"),
            latitude_sum=Sum("latitude"),
            longitude_sum=Sum("longitude"),
            west=Min("longitude"),
            south=Min("latitude"),
            east=Max("longitude"),
            north=Max("latitude"),
            lowest_price=Min("price"),
        )
    )
    return by_cell(cells)


def by_cell(cells) -> dict[tuple[int, int], Totals]:
    """Rows of cell_row, cell_column and the Totals' figures, keyed (row, column)."""
    return {
        (int(cell.pop("cell_row")), int(cell.pop("cell_column"))): Totals(**cell) for cell in cells
    }


# Up to this many rows, a view's cells are sought row by row.
ROW_BY_ROW = 256

# The statements below are text written once per shape of search (which of its transaction
# and kind it filters on, and whether the cells' rows are sought one by one), so that
# nothing is built or compiled per request: built with the ORM, a city view's five
# querysets cost 4 to 5 ms of Python a request for 3 ms in PostgreSQL (docs/performance.md).
# Every value is a named parameter.
PROPERTY_TABLE = Property._meta.db_table
CELL_TABLE = MapCell._meta.db_table
# Public listings (listings.models.PUBLIC_LISTING): the public indexes' condition.
PUBLIC_CONDITION = Property._meta.get_field("public").column
# A cluster's figures, in the order of Totals' fields, from listings and from stored cells.
LISTING_FIGURES = (
    "COUNT(*), SUM(latitude), SUM(longitude), MIN(longitude), MIN(latitude),"
    " MAX(longitude), MAX(latitude), MIN(price)"
)
CELL_FIGURES = (
    "SUM(listings), SUM(latitude_sum), SUM(longitude_sum), MIN(west), MIN(south),"
    " MAX(east), MAX(north), MIN(lowest_price)"
)
# The four strips along a view's edges outside the level's inside cells: below, above, left
# of and right of them. Each is a box of its own, a little wider than its cells (`below`,
# `above`, `left`, `right`), so that the public latitude or longitude index reads it alone
# and from the index alone (one statement of the four strips read them from the table: 22
# to 30 ms for a city's view); the cell numbers then decide, as the triggers compute them.
STRIPS = (
    "latitude < %(below)s AND FLOOR(latitude / %(level_size)s) < %(first_row)s",
    "latitude >= %(above)s AND FLOOR(latitude / %(level_size)s) > %(last_row)s",
    "FLOOR(latitude / %(level_size)s) BETWEEN %(first_row)s AND %(last_row)s"
    " AND FLOOR(longitude / %(level_size)s) < %(first_column)s AND longitude < %(left)s",
    "FLOOR(latitude / %(level_size)s) BETWEEN %(first_row)s AND %(last_row)s"
    " AND FLOOR(longitude / %(level_size)s) > %(last_column)s AND longitude >= %(right)s",
)


@dataclass(frozen=True, slots=True)
class Shape:
    """What a celled search's statements say, beyond their values."""

    transaction_type: bool
    kind: bool
    # The cells' rows sought one by one (`row = ANY`) rather than as a range.
    row_by_row: bool


def _filters(shape: Shape) -> str:
    """The search's transaction and kind, as conditions on the listings."""
    transaction_type = " AND transaction_type = %(transaction_type)s" * shape.transaction_type
    return transaction_type + " AND kind = %(kind)s" * shape.kind


def _cell_filters(shape: Shape) -> str:
    """The search's transaction and kind as the cells' rows: a rolled-up row (ANY) for
    what it does not filter on."""
    if shape.kind and not shape.transaction_type:
        # No row rolls a kind up across transactions: each transaction's row is added.
        return " AND kind = %(kind)s"
    transaction_type = "%(transaction_type)s" if shape.transaction_type else f"'{ANY}'"
    kind = "%(kind)s" if shape.kind else f"'{ANY}'"
    return f" AND transaction_type = {transaction_type} AND kind = {kind}"


def _in_view(shape: Shape) -> str:
    """The public listings of the search inside its box."""
    return (
        f"{PUBLIC_CONDITION} AND latitude >= %(south)s AND latitude <= %(north)s"
        f" AND longitude >= %(west)s AND longitude <= %(east)s{_filters(shape)}"
    )


def _stored_inside(shape: Shape) -> str:
    """The level's stored cells inside the view, of the search's transaction and kind.

    The cells' index leads with the level, the row and the column: a range of rows would
    read every column of those rows (the width of the map) for the few inside, so each row
    is sought with its own range of columns (`row = ANY`: a town's box at zoom 15, 12 ms to
    1 ms)."""
    rows = (
        '"row" = ANY(%(rows)s::integer[])'
        if shape.row_by_row
        else '"row" BETWEEN %(first_row)s AND %(last_row)s'
    )
    return (
        f"FROM {CELL_TABLE} WHERE level = %(level)s AND {rows}"
        f' AND "column" BETWEEN %(first_column)s AND %(last_column)s{_cell_filters(shape)}'
    )


@functools.cache
def _grouped_statement(shape: Shape) -> str:
    """The listings in a view by cell at the zoom (its size `size`), with Totals' figures."""
    return (
        "SELECT FLOOR(latitude / %(size)s), FLOOR(longitude / %(size)s),"  # noqa: S608
        f" {LISTING_FIGURES} FROM {PROPERTY_TABLE} WHERE {_in_view(shape)} GROUP BY 1, 2"
    )


@functools.cache
def _stored_statement(shape: Shape) -> str:
    """The stored cells inside a view added up by cluster at the zoom (a cluster is
    `factor` cells of the level wide): cell row, cell column and Totals' figures."""
    return (
        'SELECT FLOOR("row" / %(factor)s), FLOOR("column" / %(factor)s),'
        f" {CELL_FIGURES} {_stored_inside(shape)} AND listings > 0 GROUP BY 1, 2"
    )


@functools.cache
def _clusters_statement(shape: Shape) -> str:
    """A view's clusters at the zoom: its stored cells (_stored_statement) and the listings
    of the four strips along its edges grouped by cluster, merged: cell row, cell column
    and Totals' figures."""
    stored = _stored_statement(shape)
    strips = [
        "SELECT FLOOR(latitude / %(size)s), FLOOR(longitude / %(size)s),"  # noqa: S608
        f" {LISTING_FIGURES} FROM {PROPERTY_TABLE} WHERE {_in_view(shape)} AND {strip}"
        " GROUP BY 1, 2"
        for strip in STRIPS
    ]
    parts = " UNION ALL ".join(f"({part})" for part in [stored, *strips])
    return (
        "SELECT cell_row, cell_column, SUM(count)::bigint, SUM(latitude_sum),"  # noqa: S608
        " SUM(longitude_sum), MIN(west), MIN(south), MAX(east), MAX(north), MIN(lowest_price)"
        f" FROM ({parts}) AS parts (cell_row, cell_column, count, latitude_sum, longitude_sum,"
        " west, south, east, north, lowest_price) GROUP BY 1, 2"
    )


@functools.cache
def _count_statement(shape: Shape) -> str:
    """How many listings a box holds: the stored cells inside it and the listings of the
    four strips along its edges, each part read from an index alone; and the planner's idea
    of the listings table's size."""
    parts = [f"(SELECT COALESCE(SUM(listings), 0) {_stored_inside(shape)})"]
    parts += [
        f"(SELECT COUNT(*) FROM {PROPERTY_TABLE} WHERE {_in_view(shape)} AND {strip})"  # noqa: S608
        for strip in STRIPS
    ]
    return f"SELECT {' + '.join(parts)}, {TABLE_ROWS}"


def _shape(search: CelledSearch, cells: Inside | None = None) -> Shape:
    return Shape(
        transaction_type=search.transaction_type is not None,
        kind=search.kind is not None,
        row_by_row=cells is not None and cells.last_row - cells.first_row < ROW_BY_ROW,
    )


def _values(search: CelledSearch, level: int, cells: Inside | None) -> dict:
    """The statements' parameters for a search, the level's inside cells (None: none read)."""
    values = {"transaction_type": search.transaction_type, "kind": search.kind}
    if search.box is not None:
        box = search.box
        values |= {"west": box.west, "south": box.south, "east": box.east, "north": box.north}
    if cells is None:
        return values
    size = cell_size(level)
    spare = size / 1024
    return values | {
        "level": level,
        "level_size": size,
        "rows": list(range(cells.first_row, cells.last_row + 1)),
        "first_row": cells.first_row,
        "last_row": cells.last_row,
        "first_column": cells.first_column,
        "last_column": cells.last_column,
        "below": cells.first_row * size + spare,
        "above": (cells.last_row + 1) * size - spare,
        "left": cells.first_column * size + spare,
        "right": (cells.last_column + 1) * size - spare,
    }


def _totals(database: str, statement: str, values: dict) -> dict[tuple[int, int], Totals]:
    """Rows of cell row, cell column and Totals' figures, keyed (row, column)."""
    with connections[database].cursor() as cursor:
        cursor.execute(statement, values)
        rows = cursor.fetchall()
    return {(int(row), int(column)): Totals(*figures) for row, column, *figures in rows}


def celled_totals(
    search: CelledSearch, zoom: int, *, database: str
) -> dict[tuple[int, int], Totals]:
    """The search's clusters at the zoom, by (row, column): the stored cells inside its
    view and its listings along the view's edges, in one statement (PostgreSQL). Run it
    planned for its values (listings.search.plans)."""
    level = level_for(zoom)
    cells = inside(search.box, cell_size(level))
    values = {"size": cell_size(zoom), "factor": float(2 ** (level - zoom))}
    if cells is None or not worth_it(search.box, cells, cell_size(level)):
        values |= _values(search, level, None)
        return _totals(database, _grouped_statement(_shape(search)), values)
    values |= _values(search, level, cells)
    shape = _shape(search, cells)
    # The world has no edges: the stored cells alone.
    statement = _stored_statement(shape) if search.box is None else _clusters_statement(shape)
    return _totals(database, statement, values)


def celled_count(search: CelledSearch, *, database: str) -> tuple[int, int] | None:
    """How many listings a public search on a box matches, exactly, and the planner's idea
    of the listings table's size: a grid's stored cells inside the box and the listings of
    the strips along its edges (_count_statement); None without a box, or when even the
    finest grid's inside cells cover too little of it. A town's box counted from its
    matches took 16 to 26 ms, and was given up for an estimate at 25 ms; from the cells, 2
    to 6 ms. Run it planned for its values (listings.search.plans), as the search does."""
    if search.box is None:
        return None
    # The coarsest grid whose inside cells cover most of the box: the fewest cells to add.
    for level in COUNT_LEVELS:
        size = cell_size(level)
        cells = inside(search.box, size)
        if cells is not None and worth_it(search.box, cells, size):
            break
    else:
        return None
    with connections[database].cursor() as cursor:
        cursor.execute(_count_statement(_shape(search, cells)), _values(search, level, cells))
        total, table_rows = cursor.fetchone()
    return int(total), table_rows


def install(schema_editor) -> None:
    """Install the triggers and rebuild the cells (a migration's step; PostgreSQL only)."""
    install_sql_file(schema_editor, SQL_FILE)


def uninstall(schema_editor) -> None:
    """Remove the triggers and their functions (reversing the migration that made them)."""
    uninstall_triggers(
        schema_editor,
        prefix="listings_map_cells",
        functions=(
            "listings_map_cells_follow()",
            "listings_map_cells_clear()",
            "listings_map_cell_size(integer)",
            "listings_map_cell_keys(text, text)",
        ),
    )
