"""SQL functions the listings' queries use that SQLite does not have as PostgreSQL has them.

SQLite's LOWER() lowercases ASCII letters only: LOWER('MÁLAGA') is 'mÁlaga', so a town
written in capitals with an accent was never found by its name on SQLite. `unicode_lower`
is Python's str.lower, `folded` is a text without accents, lowercased (as PostgreSQL's
text search reads it: listings.models.SEARCH_CONFIG), and `point_in_polygon` answers
PostgreSQL's `poly_contain_pt` (listings.geometry); they are registered on every SQLite
connection when it opens (Django's connection_created signal, the documented place for it;
ListingsConfig.ready connects it).
"""

from django.db.backends.signals import connection_created
from django.db.models import BooleanField, F, Func, Value
from django.db.models.functions import Lower

from listings.geometry import Polygon, parse_polygon
from listings.text import folded


class TownKey(Lower):
    """A town's name as the municipality filter compares it: lowercased, every letter.

    LOWER() on PostgreSQL (the expression of the lower(municipality) indexes); on SQLite,
    unicode_lower()."""

    def as_sqlite(self, compiler, connection, **extra_context):
        return self.as_sql(compiler, connection, function="UNICODE_LOWER", **extra_context)


class Folded(Func):
    """A text without accents, lowercased (SQLite: the registered folded(); the free-text
    search's fallback compares words with it)."""

    function = "FOLDED"
    arity = 1


class InPolygon(Func):
    """Whether a listing's point (longitude, latitude) lies in a drawn area or on its edge.

    A search filters on the area's bounding box too (listings.search.query), which the
    box indexes of public listings answer; this tests the points left, from the same index
    entries. PostgreSQL: poly_contain_pt(polygon, point), the function behind `polygon @>
    point`, called by name because the planner estimates the operator's matches at a fixed
    0.1 % of the rows and then sorted whole areas instead of walking the date index (a
    town's area at 1,000,000 listings: 46 to 65 ms instead of 3.6 ms; a GiST index of the
    points did not change that, and counting through it took 21 to 34 ms instead of 6 ms).
    SQLite: point_in_polygon(), Polygon.holds.
    """

    output_field = BooleanField()

    def __init__(self, polygon: Polygon):
        super().__init__(Value(polygon.as_parameter()), F("longitude"), F("latitude"))
        self.polygon = polygon

    def as_sql(self, compiler, connection, **extra_context):
        return super().as_sql(compiler, connection, function="POINT_IN_POLYGON", **extra_context)

    def as_postgresql(self, compiler, connection, **extra_context):
        _parameter, longitude, latitude = self.get_source_expressions()
        longitude_sql, longitude_params = compiler.compile(longitude)
        latitude_sql, latitude_params = compiler.compile(latitude)
        sql = f"poly_contain_pt(%s::polygon, point({longitude_sql}, {latitude_sql}))"
        return sql, (self.polygon.as_postgresql(), *longitude_params, *latitude_params)


def register_sqlite_functions(sender, connection, **kwargs) -> None:
    """connection_created receiver: add this module's functions to a new SQLite connection."""
    if connection.vendor == "sqlite":
        connection.connection.create_function("unicode_lower", 1, _lower, deterministic=True)
        connection.connection.create_function(
            "point_in_polygon", 3, _point_in_polygon, deterministic=True
        )
        connection.connection.create_function("folded", 1, _folded, deterministic=True)


def _lower(value: str | None) -> str | None:
    return None if value is None else value.lower()


def _folded(value: str | None) -> str | None:
    return None if value is None else folded(value)


def _point_in_polygon(polygon: str, longitude: float, latitude: float) -> bool:
    return parse_polygon(polygon).holds(longitude, latitude)


def connect() -> None:
    """Register the functions on every SQLite connection opened from now on."""
    connection_created.connect(register_sqlite_functions, dispatch_uid="listings.functions")
