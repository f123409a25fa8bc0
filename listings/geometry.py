"""Drawn map areas: the shapes a search may ask for, and whether a point lies in one.

An area is a simple polygon in longitude / latitude degrees, taken as a plane (as the map
draws it): its edges are straight lines between the vertices on the map, and it never
crosses the antimeridian. It is written as the `polygon` search parameter,
`lng,lat,lng,lat,...`, closed (its last point repeats its first), and refused with a
message when it is open, has fewer than 3 or more than MAX_POLYGON_VERTICES vertices, an
edge of no length, edges that cross, touch or overlap (no area), or a span past
MAX_POLYGON_SPAN_DEGREES.

A point lies in an area when it is inside it or on its edge. A search keeps the listings
in the area's bounding box (an index answers it) whose point the area holds: PostgreSQL
tests that with its geometric types (listings.functions.InPolygon), SQLite with
`Polygon.holds`, registered as the SQL function point_in_polygon. PostgreSQL counts points
within 1e-6 degrees of an edge as on it (its geometric types' EPSILON): about 0.1 m, well
under a listing's precision.
"""

import math
from dataclasses import dataclass
from functools import lru_cache

from django.utils.translation import gettext, gettext_lazy, ngettext

MAX_POLYGON_VERTICES = 100
# Wider areas are a country's worth of listings: drawn areas are for towns and regions,
# the map's box and the other filters for the rest.
MAX_POLYGON_SPAN_DEGREES = 45


class PolygonInvalid(ValueError):
    """Why a polygon is refused, in words for the person who drew it."""


Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Polygon:
    """A simple polygon: its vertices (longitude, latitude) in order, not closed."""

    vertices: tuple[Point, ...]

    def edges(self) -> list[tuple[Point, Point]]:
        count = len(self.vertices)
        return [(self.vertices[i], self.vertices[(i + 1) % count]) for i in range(count)]

    def bounds(self) -> tuple[float, float, float, float]:
        """west, south, east, north."""
        longitudes = [vertex[0] for vertex in self.vertices]
        latitudes = [vertex[1] for vertex in self.vertices]
        return min(longitudes), min(latitudes), max(longitudes), max(latitudes)

    def as_parameter(self) -> str:
        """The `polygon` search parameter that asks for this area (closed)."""
        points = [*self.vertices, self.vertices[0]]
        return ",".join(f"{number!r}" for point in points for number in point)

    def as_postgresql(self) -> str:
        """The area as PostgreSQL's polygon type reads it: ((x1,y1),(x2,y2),...)."""
        return "(" + ",".join(f"({x!r},{y!r})" for x, y in self.vertices) + ")"

    def holds(self, longitude: float, latitude: float) -> bool:
        """Whether the point lies inside the polygon or on its edge."""
        inside = False
        for (x1, y1), (x2, y2) in self.edges():
            if _on_segment((longitude, latitude), (x1, y1), (x2, y2)):
                return True
            # Even-odd rule: count the edges a ray going east from the point crosses.
            if (y1 > latitude) != (y2 > latitude):
                crossing = x1 + (latitude - y1) * (x2 - x1) / (y2 - y1)
                if crossing > longitude:
                    inside = not inside
        return inside


def _cross(origin: Point, a: Point, b: Point) -> float:
    """The z of (a - origin) x (b - origin): > 0 when b lies left of origin -> a."""
    return (a[0] - origin[0]) * (b[1] - origin[1]) - (a[1] - origin[1]) * (b[0] - origin[0])


def _on_segment(point: Point, a: Point, b: Point) -> bool:
    return (
        _cross(a, b, point) == 0
        and min(a[0], b[0]) <= point[0] <= max(a[0], b[0])
        and min(a[1], b[1]) <= point[1] <= max(a[1], b[1])
    )


def _segments_meet(a: Point, b: Point, c: Point, d: Point) -> bool:
    """Whether the segments a-b and c-d share a point (crossing or touching)."""
    d1, d2 = _cross(c, d, a), _cross(c, d, b)
    d3, d4 = _cross(a, b, c), _cross(a, b, d)
    if ((d1 > 0 > d2) or (d1 < 0 < d2)) and ((d3 > 0 > d4) or (d3 < 0 < d4)):
        return True
    return (
        _on_segment(a, c, d) or _on_segment(b, c, d) or _on_segment(c, a, b) or _on_segment(d, a, b)
    )


def _numbers(text: str) -> list[float]:
    try:
        numbers = [float(part) for part in text.split(",")]
    except ValueError as error:
        raise PolygonInvalid(
            gettext_lazy("polygon must hold numbers: lng,lat,lng,lat,...")
        ) from error
    if not all(math.isfinite(number) for number in numbers):
        raise PolygonInvalid(gettext_lazy("polygon must hold finite numbers."))
    if len(numbers) % 2:
        raise PolygonInvalid(
            gettext_lazy("polygon is pairs of numbers, lng,lat: one number is alone.")
        )
    return numbers


def _check_shape(polygon: Polygon) -> None:
    """Refuse an edge of no length and edges that cross, touch or overlap (what is left
    is a simple polygon, whose area is never zero)."""
    edges = polygon.edges()
    if any(start == end for start, end in edges):
        raise PolygonInvalid(gettext_lazy("polygon repeats a vertex: an edge has no length."))
    count = len(edges)
    for i in range(count):
        for j in range(i + 1, count):
            adjacent = j == i + 1 or (i == 0 and j == count - 1)
            (a, b), (c, d) = edges[i], edges[j]
            if adjacent:
                # Neighbours share one vertex; they must not fold back along each other.
                shared, first, second = (b, a, d) if j == i + 1 else (a, b, c)
                if _cross(shared, first, second) == 0 and _on_segment_beyond(shared, first, second):
                    raise PolygonInvalid(gettext_lazy("polygon crosses itself: two edges overlap."))
            elif _segments_meet(a, b, c, d):
                raise PolygonInvalid(
                    gettext_lazy("polygon crosses itself: draw an area whose edges never meet.")
                )


def _on_segment_beyond(shared: Point, first: Point, second: Point) -> bool:
    """For collinear edges shared-first and shared-second: whether they overlap (point the
    same way from the shared vertex)."""
    dot = (first[0] - shared[0]) * (second[0] - shared[0]) + (first[1] - shared[1]) * (
        second[1] - shared[1]
    )
    return dot > 0


@lru_cache(maxsize=256)
def parse_polygon(text: str) -> Polygon:
    """The area a `polygon` parameter describes, or PolygonInvalid saying what is wrong."""
    numbers = _numbers(text)
    points = [(numbers[i], numbers[i + 1]) for i in range(0, len(numbers), 2)]
    for longitude, latitude in points:
        if not -180 <= longitude <= 180:
            raise PolygonInvalid(gettext_lazy("polygon longitudes must be within -180..180."))
        if not -90 <= latitude <= 90:
            raise PolygonInvalid(gettext_lazy("polygon latitudes must be within -90..90."))
    if len(points) < 2 or points[0] != points[-1]:
        raise PolygonInvalid(
            gettext_lazy("polygon must be closed: its last point repeats its first.")
        )
    vertices = tuple(points[:-1])
    if len(vertices) < 3:
        raise PolygonInvalid(gettext_lazy("polygon needs at least 3 vertices."))
    if len(vertices) > MAX_POLYGON_VERTICES:
        raise PolygonInvalid(
            ngettext(
                "polygon may have at most %(count)d vertex.",
                "polygon may have at most %(count)d vertices.",
                MAX_POLYGON_VERTICES,
            )
            % {"count": MAX_POLYGON_VERTICES}
        )
    polygon = Polygon(vertices)
    west, south, east, north = polygon.bounds()
    if east - west > MAX_POLYGON_SPAN_DEGREES or north - south > MAX_POLYGON_SPAN_DEGREES:
        raise PolygonInvalid(
            gettext("polygon may span at most %(degrees)d degrees each way: draw a smaller area.")
            % {"degrees": MAX_POLYGON_SPAN_DEGREES}
        )
    _check_shape(polygon)
    return polygon
