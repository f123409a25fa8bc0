"""Map clusters and box counts of public searches, added up from grid cells that PostgreSQL
keeps.

Grouping the matches of a whole-country map view reads every public listing in it (881,000
index entries at 1,000,000 listings: 300 ms); added up from the cells it takes 6 ms, a
city's view 20 to 40 ms, and the benchmark's `clusters` (a third whole-country views) went
from 6 to about 150 requests a second (docs/performance.md). Triggers on the listings table
keep, in listings_mapcell, the public listings of each transaction and kind in the cells of
three grids, at the zooms of MAP_CELL_LEVELS (listings/sql/map_cells.sql): their count, the
sums of their coordinates, their bounds and lowest price. A grid's cell at zoom z is
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

import math
from dataclasses import dataclass
from pathlib import Path

from django.db import connections
from django.db.models import Count, F, FloatField, Max, Min, Q, QuerySet, Sum, Value
from django.db.models.functions import Floor

from listings.models import MapCell
from listings.search.params import Box, SearchParams
from listings.triggers import install_sql_file, uninstall_triggers

# The zooms of the stored grids; a cluster at zoom z is added up from the first level at
# or past z. Changing them means changing the SQL file too (a test compares), and a
# migration that runs it again.
MAP_CELL_LEVELS = (9, 12, 15)
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


@dataclass
class Totals:
    """One cluster's figures, added up from any number of parts."""

    count: int
    latitude_sum: float
    longitude_sum: float
    west: float
    south: float
    east: float
    north: float
    lowest_price: object

    def add(self, other: "Totals") -> None:
        self.count += other.count
        self.latitude_sum += other.latitude_sum
        self.longitude_sum += other.longitude_sum
        self.west = min(self.west, other.west)
        self.south = min(self.south, other.south)
        self.east = max(self.east, other.east)
        self.north = max(self.north, other.north)
        self.lowest_price = min(self.lowest_price, other.lowest_price)


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


def rows_and_columns(cells: Inside) -> Q:
    """The stored cells inside: a range of columns in each of the rows. The cells' index
    leads with the level, the row and the column: a range of rows would read every column
    of those rows (the width of the map) for the few inside, so each row is sought with its
    own range of columns (`row IN (...)`: a town's box at zoom 15, 12 ms to 1 ms)."""
    columns = Q(column__range=(cells.first_column, cells.last_column))
    if cells.last_row - cells.first_row < ROW_BY_ROW:
        return Q(row__in=range(cells.first_row, cells.last_row + 1)) & columns
    return Q(row__range=(cells.first_row, cells.last_row)) & columns


def _stored_inside(search: CelledSearch, level: int, cells: Inside) -> QuerySet[MapCell]:
    """The level's stored cells inside, of the search's transaction and kind."""
    stored = MapCell.objects.filter(rows_and_columns(cells), level=level)
    if search.transaction_type is not None:
        stored = stored.filter(transaction_type=search.transaction_type)
    if search.kind is not None:
        stored = stored.filter(kind=search.kind)
    return stored


def _stored_cells(search: CelledSearch, level: int, zoom: int, cells: Inside) -> QuerySet:
    """The level's stored cells inside the view, added up by cluster at the zoom."""
    # Cell numbers divided as floats: integer division would round towards zero.
    factor = Value(float(2 ** (level - zoom)), output_field=FloatField())
    return (
        _stored_inside(search, level, cells)
        .filter(listings__gt=0)
        .annotate(cell_row=Floor(F("row") / factor), cell_column=Floor(F("column") / factor))
        .values("cell_row", "cell_column")
        .annotate(
            count=Sum("listings"),
            latitude_sum=Sum("latitude_sum"),
            longitude_sum=Sum("longitude_sum"),
            west=Min("west"),
            south=Min("south"),
            east=Max("east"),
            north=Max("north"),
            lowest_price=Min("lowest_price"),
        )
    )


def _along_the_edges(listings: QuerySet, box: Box, level: int, cells: Inside) -> list[QuerySet]:
    """The listings (a search's matches, inside its box) outside the level's inside cells,
    in four strips: below, above, left of and right of the inside cells.

    Each strip is a box of its own, a little wider than its cells, so that the public
    latitude or longitude index reads it alone and from the index alone (one statement of
    the four strips read them from the table: 22 to 30 ms for a city's view); the cell
    numbers then decide, as the triggers compute them."""
    size = cell_size(level)
    spare = size / 1024
    sized = Value(size, output_field=FloatField())
    numbered = listings.alias(
        level_row=Floor(F("latitude") / sized), level_column=Floor(F("longitude") / sized)
    )
    inside_rows = Q(level_row__gte=cells.first_row, level_row__lte=cells.last_row)
    return [
        numbered.filter(latitude__lt=cells.first_row * size + spare, level_row__lt=cells.first_row),
        numbered.filter(
            latitude__gte=(cells.last_row + 1) * size - spare, level_row__gt=cells.last_row
        ),
        numbered.filter(
            inside_rows,
            longitude__lt=cells.first_column * size + spare,
            level_column__lt=cells.first_column,
        ),
        numbered.filter(
            inside_rows,
            longitude__gte=(cells.last_column + 1) * size - spare,
            level_column__gt=cells.last_column,
        ),
    ]


def celled_totals(
    search: CelledSearch, listings: QuerySet, zoom: int
) -> dict[tuple[int, int], Totals]:
    """The search's clusters at the zoom, by (row, column): the stored cells inside its
    view, and its matches (`listings`) along the view's edges (two queries)."""
    level = level_for(zoom)
    cells = inside(search.box, cell_size(level))
    if cells is None or not worth_it(search.box, cells, cell_size(level)):
        return grouped_listings(listings, zoom)
    totals = by_cell(_stored_cells(search, level, zoom, cells))
    if search.box is None:
        return totals
    strips = [
        grouped_listings(strip, zoom)
        for strip in _along_the_edges(listings, search.box, level, cells)
    ]
    for strip in strips:
        for key, part in strip.items():
            if key in totals:
                totals[key].add(part)
            else:
                totals[key] = part
    return totals


def celled_count(search: CelledSearch, listings: QuerySet) -> tuple[int, int] | None:
    """How many listings a public search on a box matches (`listings`, its matches),
    exactly, and the planner's idea of the listings table's size: a grid's stored cells
    inside the box and the listings of the strips along its edges, in one statement whose
    parts each read an index alone; None without a box, or when even the finest grid's
    inside cells cover too little of it. A town's box counted from its matches took 16 to
    26 ms, and was given up for an estimate at 25 ms; from the cells, 2 to 6 ms. Run it
    planned for its values (listings.search.plans), as the search does."""
    if search.box is None:
        return None
    # The coarsest grid whose inside cells cover most of the box: the fewest cells to add.
    for level in MAP_CELL_LEVELS:
        size = cell_size(level)
        cells = inside(search.box, size)
        if cells is not None and worth_it(search.box, cells, size):
            break
    else:
        return None
    stored = _stored_inside(search, level, cells).order_by().values("listings")
    stored_sql, stored_params = stored.query.sql_with_params()
    parts = [f"(SELECT COALESCE(SUM(listings), 0) FROM ({stored_sql}) AS inside)"]  # noqa: S608
    params = list(stored_params)
    for strip in _along_the_edges(listings, search.box, level, cells):
        strip_sql, strip_params = strip.order_by().values(one=Value(1)).query.sql_with_params()
        parts.append(f"(SELECT COUNT(*) FROM ({strip_sql}) AS strip)")  # noqa: S608
        params += strip_params
    # Only the querysets' own SQL and placeholders are joined: every value is a parameter.
    sql = (
        f"SELECT {' + '.join(parts)},"  # noqa: S608
        " (SELECT reltuples::bigint FROM pg_class WHERE oid = %s::regclass)"
    )
    with connections[listings.db].cursor() as cursor:
        cursor.execute(sql, [*params, listings.model._meta.db_table])
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
        ),
    )
