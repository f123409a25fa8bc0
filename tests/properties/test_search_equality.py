"""Listing searches, from outside, answer what a plain reading of the listings says.

Several hundred searches, generated from a fixed seed over a generated catalogue of
listings, are sent as four viewers (anonymous visitor, customer, owner, admin) to the API
(GET /api/v1/properties) and to the website's search page (`/`). Each answer is compared
with the reference: the stored listings read once through the ORM, then filtered, sorted
and paged in plain Python by the rules of docs/api.md "Searching: GET /properties" and
decisions D7 (who sees PENDING and SUSPENDED listings).

Black box on purpose: only HTTP through Django's test clients, the models and the
factories. Nothing of the search's own code (filters, groups, statements, pagination,
selectors, views) is imported, so the test holds whatever implements the search.

Free text (`q`) is generated only as whole words for which PostgreSQL's full-text rule
(tokens of the 'simple' configuration after unaccent) and SQLite's rule (each word inside one of the
four fields, any case) agree on this catalogue, so that one reference serves both
databases. A `q` search without `sort` is ordered by relevance on PostgreSQL: only its
set of results is compared (every page is read), not its order.
"""

import dataclasses
import datetime
import itertools
import math
import random
import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from decimal import Decimal

import pytest
from django.db import transaction
from django.test import Client
from django.urls import Resolver404, resolve
from rest_framework.test import APIClient

from accounts.models import UserType
from accounts.services import access_token_issue, user_create
from listings.models import Property, PropertyStatus, PropertyType, TransactionType
from tests.factories import CategoryFactory, PropertyFactory, TypeSpecificRecordFactory
from tests.properties.support import PROPERTIES_URL

pytestmark = pytest.mark.django_db

SEED = 20_250_611
LISTING_COUNT = 260
SEARCH_COUNT = 576
BATCH_SIZE = 16
BATCHES = range(SEARCH_COUNT // BATCH_SIZE)

SEARCH_PAGE = "/en/"
# Results per page of the website's search page, and of the API without `limit`.
WEBSITE_PAGE_SIZE = 12
API_DEFAULT_LIMIT = 10
EARTH_RADIUS_KM = 6371.0088
# No listing lies closer than this to the circle of a radius search, so that the rounding
# of the database's trigonometry cannot decide whether it is inside.
RADIUS_EDGE_MARGIN_KM = 1e-3
# No listing lies closer than this (degrees) to a drawn area's edge: PostgreSQL counts
# points within 1e-6 of an edge as on it.
POLYGON_EDGE_MARGIN = 1e-4

VIEWERS = ("anonymous", "customer", "owner", "admin")
PUBLIC_STATUSES = frozenset((PropertyStatus.AVAILABLE, PropertyStatus.SOLD, PropertyStatus.RENTED))
SORT_KEYS = {
    "price": "price",
    "createdAt": "created_at",
    "area": "area",
}
SORTS = ("price", "-price", "createdAt", "-createdAt", "area", "-area")


@dataclasses.dataclass(frozen=True)
class Town:
    """A town of the catalogue: the spellings its listings are stored with, and where it is."""

    spellings: tuple[str, ...]
    latitude: float
    longitude: float
    # How far (degrees) its listings spread around the centre.
    spread: float
    weight: int


TOWNS = (
    Town(("Madrid", "MADRID", "madrid"), 40.4168, -3.7038, 0.15, 9),
    Town(("Málaga", "MÁLAGA", "málaga"), 36.7213, -4.4214, 0.12, 7),
    Town(("Segovia", "SEGOVIA"), 40.9429, -4.1088, 0.08, 4),
    Town(("San Sebastián", "SAN SEBASTIÁN", "san sebastián"), 43.3183, -1.9812, 0.06, 5),
    Town(("Ávila", "ávila"), 40.6565, -4.6818, 0.07, 3),
    Town(("A Coruña", "A CORUÑA"), 43.3623, -8.4115, 0.1, 3),
    Town(("Santa Cruz de Tenerife",), 28.4636, -16.2518, 0.2, 2),
    Town(("Valencia", "valencia"), 39.4699, -0.3763, 1.2, 4),
    # On the antimeridian (Fiji): its listings lie on both sides of longitude 180.
    Town(("Taveuni",), -16.85, 179.97, 0.05, 1),
)
ADJECTIVES = ("sunny", "quiet", "bright", "spacious", "renovated", "rustic", "modern", "cosy")
NOUNS = ("loft", "villa", "cottage", "penthouse", "studio", "duplex", "farmhouse", "warehouse")
FEATURES = (
    "terrace",
    "garden",
    "swimming",
    "garage",
    "harbour",
    "mountain",
    "beach",
    "fireplace",
    "orchard",
    "vineyard",
    "workshop",
    "storefront",
)
# Few listings name one of these: narrow free-text searches.
RARE_FEATURES = ("heliport", "observatory", "lighthouse", "chapel", "dovecote")
STREETS = ("Mayor", "Serrano", "Alcala", "Princesa", "Larios", "Bailen", "Prim")
# Words that no listing holds: free-text searches with no result.
ABSENT_WORDS = ("castle", "igloo", "submarine")

SALE_PRICES = ("85000", "120000", "120000.50", "250000", "399999.99", "1250000")
RENT_PRICES = ("450", "800", "800.00", "1200.50", "2500")
AREAS = ("45", "80", "80.50", "120.50", "250", "1000")
# How often each status is drawn; "DONE" is SOLD for a sale, RENTED for a rental.
STATUS_WEIGHTS = {"AVAILABLE": 50, "DONE": 15, "PENDING": 20, "SUSPENDED": 15}


# --- The catalogue -------------------------------------------------------------------------


def fold(text: str) -> str:
    """Without accents, lowercased: how both databases compare searched words."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(letter for letter in decomposed if not unicodedata.combining(letter)).lower()


@dataclasses.dataclass(frozen=True)
class Listing:
    """A stored listing as the reference reads it: the columns searches look at."""

    id: str
    title: str
    description: str
    address: str
    municipality: str
    price: Decimal
    area: Decimal
    latitude: float
    longitude: float
    transaction_type: str
    status: str
    owner_id: str
    category_id: str
    kind: str | None
    bedrooms: int | None
    created_at: datetime.datetime

    def words(self) -> set[str]:
        """The whole words of the searched fields, without accents, lower-cased, as the
        text search configuration (PostgreSQL's 'simple' after unaccent) splits them."""
        text = " ".join((self.title, self.description, self.address, self.municipality))
        return set(re.findall(r"[^\W_]+", fold(text)))

    def contains(self, word: str) -> bool:
        """Whether `word` appears, accents and case aside, inside one of the searched
        fields."""
        fields = (self.title, self.description, self.address, self.municipality)
        return any(fold(word) in fold(field) for field in fields)

    def summary(self) -> str:
        return (
            f"{self.id} {self.status} {self.transaction_type} {self.kind}"
            f" {self.municipality!r} price={self.price} area={self.area}"
            f" bedrooms={self.bedrooms} at=({self.latitude}, {self.longitude})"
            f" created={self.created_at.isoformat()} owner={self.owner_id}"
        )


@dataclasses.dataclass
class Viewer:
    """Who searches: the API client with their bearer token, and a website session."""

    name: str
    api: APIClient
    website: Client
    # The Owner id of an owner viewer: they also see their own hidden listings.
    owner_id: str | None = None

    def sees(self, listing: Listing) -> bool:
        """Decisions D7: PENDING and SUSPENDED listings only for their owner and admins."""
        if self.name == "admin" or listing.status in PUBLIC_STATUSES:
            return True
        return self.owner_id is not None and listing.owner_id == self.owner_id


@dataclasses.dataclass
class Catalogue:
    listings: list[Listing]
    by_id: dict[str, Listing]
    owner_ids: list[str]
    category_ids: list[str]
    viewers: dict[str, Viewer]
    searches: list["Search"] = dataclasses.field(default_factory=list)


def listing_id(rng: random.Random) -> str:
    """A cuid2-shaped id drawn from the seed: the same ids, so the same tie-breaks, every run."""
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
    return rng.choice(alphabet[:26]) + "".join(rng.choice(alphabet) for _ in range(24))


def decimal_between(rng: random.Random, low: int, high: int) -> Decimal:
    """A price or an area with cents, from `low` to `high`."""
    return Decimal(rng.randrange(low * 100, high * 100)) / 100


def spot(rng: random.Random, town: Town) -> tuple[float, float]:
    latitude = round(rng.gauss(town.latitude, town.spread), 6)
    longitude = rng.gauss(town.longitude, town.spread)
    # Past the antimeridian: back into -180..180.
    longitude = round((longitude + 180) % 360 - 180, 6)
    return max(-90.0, min(90.0, latitude)), longitude


def listing_fields(rng: random.Random, number: int, town: Town, made: list[dict]) -> dict:
    """The stored fields of one generated listing (`made`: those generated before it)."""
    spelling = rng.choice(town.spellings)
    adjective, noun = rng.choice(ADJECTIVES), rng.choice(NOUNS)
    features = rng.sample(FEATURES, rng.randint(1, 4))
    if rng.random() < 0.06:
        features.append(rng.choice(RARE_FEATURES))
    transaction_type = rng.choice((TransactionType.SALE,) * 3 + (TransactionType.RENT,) * 2)
    if transaction_type == TransactionType.SALE:
        price = (
            Decimal(rng.choice(SALE_PRICES))
            if rng.random() < 0.35
            else decimal_between(rng, 20_000, 5_000_000)
        )
    else:
        price = (
            Decimal(rng.choice(RENT_PRICES))
            if rng.random() < 0.35
            else decimal_between(rng, 300, 15_000)
        )
    area = Decimal(rng.choice(AREAS)) if rng.random() < 0.3 else decimal_between(rng, 20, 20_000)
    status = rng.choices(list(STATUS_WEIGHTS), weights=list(STATUS_WEIGHTS.values()))[0]
    if status == "DONE":
        status = (
            PropertyStatus.SOLD
            if transaction_type == TransactionType.SALE
            else PropertyStatus.RENTED
        )
    neighbours = [fields["coordinates"] for fields in made if fields["town"] == town]
    if neighbours and rng.random() < 0.08:
        # Some listings of a town share a place: boxes and circles through both.
        latitude, longitude = rng.choice(neighbours)
    else:
        latitude, longitude = spot(rng, town)
    return {
        "id": listing_id(rng),
        "title": f"{adjective.capitalize()} {noun} in {spelling}",
        "description": f"A {adjective} {noun} with " + ", ".join(features) + ".",
        "address": f"{number + 1} Calle {rng.choice(STREETS)}",
        "municipality": spelling,
        "price": price,
        "area": area,
        "latitude": latitude,
        "longitude": longitude,
        "transaction_type": transaction_type,
        "status": status,
        "coordinates": (latitude, longitude),
        "town": town,
    }


def build_catalogue(rng: random.Random) -> Catalogue:
    """Users, categories and LISTING_COUNT listings drawn from `rng`, written through the
    ORM (the PostgreSQL triggers keep the public listing groups), then read back."""
    users = {
        name: user_create(
            email=f"{name}.equality@example.com",
            password=None,
            name=f"{name.capitalize()} Equality",
            phone=f"+3460010000{number}",
            user_type=user_type,
        )
        for number, (name, user_type) in enumerate(
            (
                ("customer", UserType.CUSTOMER),
                ("owner", UserType.OWNER),
                ("admin", UserType.ADMIN),
                ("olga", UserType.OWNER),
                ("pablo", UserType.OWNER),
                ("rosa", UserType.OWNER),
            )
        )
    }
    owners = [users[name].owner for name in ("owner", "olga", "pablo", "rosa")]
    categories = [
        CategoryFactory(name=name) for name in ("Residential", "Commercial", "Rural", "Luxury")
    ]
    base = datetime.datetime(2025, 3, 1, 9, 0, tzinfo=datetime.UTC)
    # Fewer moments than listings: many listings share their creation time.
    moments = [
        base
        + datetime.timedelta(
            minutes=rng.randrange(0, 60 * 24 * 200),
            microseconds=rng.choice((0, 0, rng.randrange(1, 1_000_000))),
        )
        for _ in range(LISTING_COUNT * 3 // 5)
    ]
    made: list[dict] = []
    kinds = [*PropertyType.values, None]
    for number in range(LISTING_COUNT):
        town = rng.choices(TOWNS, weights=[town.weight for town in TOWNS])[0]
        fields = listing_fields(rng, number, town, made)
        made.append(fields)
        owner = rng.choices(owners, weights=(4, 3, 2, 1))[0]
        category = rng.choice(categories)
        kind = rng.choice(kinds)
        stored = {key: value for key, value in fields.items() if key not in ("coordinates", "town")}
        listing = PropertyFactory(owner=owner, category=category, **stored)
        if kind is not None:
            extra = {}
            if kind in (PropertyType.HOUSE, PropertyType.APARTMENT):
                extra["bedrooms"] = rng.randint(0, 6)
            TypeSpecificRecordFactory(property=listing, kind=kind, **extra)
        Property.objects.filter(pk=listing.pk).update(created_at=rng.choice(moments))

    columns = [field.name for field in dataclasses.fields(Listing)]
    listings = [Listing(**row) for row in Property.objects.order_by().values(*columns)]
    viewers = {}
    for name in VIEWERS:
        api, website = APIClient(), Client()
        user = users.get(name)
        if user is not None:
            token, _access_token = access_token_issue(user=user)
            api.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
            website.force_login(user)
        owner_id = user.owner.pk if name == "owner" else None
        viewers[name] = Viewer(name=name, api=api, website=website, owner_id=owner_id)
    return Catalogue(
        listings=listings,
        by_id={listing.id: listing for listing in listings},
        owner_ids=[owner.pk for owner in owners],
        category_ids=[category.pk for category in categories],
        viewers=viewers,
    )


# --- The reference -------------------------------------------------------------------------


def distance_km(latitude: float, longitude: float, listing: Listing) -> float:
    """Great-circle (haversine) distance, the formula docs/api.md names."""
    half_latitude = math.radians(listing.latitude - latitude) / 2
    half_longitude = math.radians(listing.longitude - longitude) / 2
    haversine = (
        math.sin(half_latitude) ** 2
        + math.cos(math.radians(latitude))
        * math.cos(math.radians(listing.latitude))
        * math.sin(half_longitude) ** 2
    )
    return 2 * EARTH_RADIUS_KM * math.asin(math.sqrt(haversine))


def in_box(bbox: str, listing: Listing) -> bool:
    """minLng,minLat,maxLng,maxLat, edges included; minLng > maxLng crosses the antimeridian."""
    west, south, east, north = (float(part) for part in bbox.split(","))
    if not south <= listing.latitude <= north:
        return False
    if west <= east:
        return west <= listing.longitude <= east
    return listing.longitude >= west or listing.longitude <= east


def polygon_points(polygon: str) -> list[tuple[float, float]]:
    numbers = [float(part) for part in polygon.split(",")]
    return list(zip(numbers[0::2], numbers[1::2], strict=True))


def segment_distance(x: float, y: float, a: tuple[float, float], b: tuple[float, float]) -> float:
    """Plane distance (degrees) from a point to the segment a-b."""
    (ax, ay), (bx, by) = a, b
    length = (bx - ax) ** 2 + (by - ay) ** 2
    t = max(0.0, min(1.0, ((x - ax) * (bx - ax) + (y - ay) * (by - ay)) / length))
    return math.hypot(x - (ax + t * (bx - ax)), y - (ay + t * (by - ay)))


def in_polygon(polygon: str, listing: Listing) -> bool:
    """Inside the closed ring lng,lat,... (a plane in degrees) by its winding number; no
    listing lies on an edge here (POLYGON_EDGE_MARGIN)."""
    points = polygon_points(polygon)
    x, y = listing.longitude, listing.latitude
    winding = 0
    for (x1, y1), (x2, y2) in itertools.pairwise(points):
        side = (x2 - x1) * (y - y1) - (x - x1) * (y2 - y1)
        if y1 <= y < y2 and side > 0:
            winding += 1
        elif y2 <= y < y1 and side < 0:
            winding -= 1
    return winding != 0


def matches(listing: Listing, parameters: dict[str, str]) -> bool:
    """Whether the listing meets every filter of the search (docs/api.md)."""
    checks: dict[str, Callable[[str], bool]] = {
        "type": lambda value: listing.kind == value,
        "transactionType": lambda value: listing.transaction_type == value,
        "minPrice": lambda value: listing.price >= Decimal(value),
        "maxPrice": lambda value: listing.price <= Decimal(value),
        "municipality": lambda value: listing.municipality.lower() == value.strip().lower(),
        "ownerId": lambda value: listing.owner_id == value,
        "categoryId": lambda value: listing.category_id == value,
        "status": lambda value: listing.status == value,
        "q": lambda value: set(fold(value).split()) <= listing.words(),
        "minArea": lambda value: listing.area >= Decimal(value),
        "maxArea": lambda value: listing.area <= Decimal(value),
        "minBedrooms": lambda value: (
            listing.bedrooms is not None and listing.bedrooms >= int(value)
        ),
        "bbox": lambda value: in_box(value, listing),
        "polygon": lambda value: in_polygon(value, listing),
        "radiusKm": lambda value: (
            distance_km(float(parameters["lat"]), float(parameters["lng"]), listing) <= float(value)
        ),
    }
    return all(check(parameters[name]) for name, check in checks.items() if name in parameters)


def reference_ids(catalogue: Catalogue, search: "Search") -> list[str]:
    """The ids of every result of the search for its viewer, in the documented order:
    `sort` with ties by id the same way, else newest first (createdAt, then id, desc)."""
    viewer = catalogue.viewers[search.viewer]
    found = [
        listing
        for listing in catalogue.listings
        if viewer.sees(listing) and matches(listing, search.parameters)
    ]
    sort = search.parameters.get("sort", "-createdAt")
    column = SORT_KEYS[sort.lstrip("-")]
    found.sort(
        key=lambda listing: (getattr(listing, column), listing.id), reverse=sort.startswith("-")
    )
    return [listing.id for listing in found]


# --- The searches --------------------------------------------------------------------------


@dataclasses.dataclass
class Search:
    number: int
    family: str
    viewer: str
    # The filters and the sort, as query parameters.
    parameters: dict[str, str]
    page: int | None = None
    limit: int | None = None

    @property
    def ordered(self) -> bool:
        """Whether the order is documented exactly: not for a text search by relevance."""
        return not ("q" in self.parameters and "sort" not in self.parameters)

    def api_query(self) -> dict[str, str]:
        query = dict(self.parameters)
        if self.page is not None:
            query["page"] = str(self.page)
        if self.limit is not None:
            query["limit"] = str(self.limit)
        return query

    def website_query(self) -> dict[str, str]:
        query = dict(self.parameters)
        if self.page is not None:
            query["page"] = str(self.page)
        return query

    def __str__(self) -> str:
        return f"search #{self.number} ({self.family}) as {self.viewer}: {self.api_query()}"


class SearchMaker:
    """Draws valid searches from the seed; values often come from a listing the viewer
    sees (the anchor), so that combined filters still find something."""

    def __init__(self, rng: random.Random, catalogue: Catalogue):
        self.rng = rng
        self.catalogue = catalogue
        self.query_words = self._query_words()

    def _query_words(self) -> list[str]:
        """Words of the listings (and a few of none) on which both databases' free-text
        rules agree: a whole word wherever it appears inside a field."""
        listings = self.catalogue.listings
        candidates = sorted(set().union(*(listing.words() for listing in listings)))
        agreed = [
            word
            for word in candidates
            if word.isascii()
            and word.isalpha()
            and all(listing.contains(word) == (word in listing.words()) for listing in listings)
        ]
        assert not any(listing.contains(word) for word in ABSENT_WORDS for listing in listings)
        return agreed + list(ABSENT_WORDS)

    def anchor(self, viewer: str) -> Listing:
        seen = [
            listing
            for listing in self.catalogue.listings
            if self.catalogue.viewers[viewer].sees(listing)
        ]
        return self.rng.choice(seen)

    def from_anchor(self) -> bool:
        return self.rng.random() < 0.7

    # One value maker per filter: parameters for one filter, from the anchor or at random.

    def type(self, anchor: Listing) -> dict[str, str]:
        if self.from_anchor() and anchor.kind is not None:
            return {"type": anchor.kind}
        return {"type": self.rng.choice(PropertyType.values)}

    def transaction_type(self, anchor: Listing) -> dict[str, str]:
        if self.from_anchor():
            return {"transactionType": anchor.transaction_type}
        return {"transactionType": self.rng.choice(TransactionType.values)}

    def price_bound(self, anchor: Listing) -> Decimal:
        if self.from_anchor():
            # Often the anchor's own price: the bound is inclusive.
            return anchor.price * self.rng.choice(
                (Decimal(1), Decimal(1), Decimal("0.8"), Decimal("1.25"))
            )
        scale = self.rng.choice((1_000, 100_000, 1_000_000))
        return Decimal(self.rng.randint(1, 50) * scale)

    def min_price(self, anchor: Listing) -> dict[str, str]:
        return {"minPrice": money(self.price_bound(anchor))}

    def max_price(self, anchor: Listing) -> dict[str, str]:
        return {"maxPrice": money(self.price_bound(anchor))}

    def price_range(self, anchor: Listing) -> dict[str, str]:
        low, high = sorted((self.price_bound(anchor), self.price_bound(anchor)))
        if low == high and self.rng.random() < 0.5:
            high = low * 2
        return {"minPrice": money(low), "maxPrice": money(high)}

    def area_bound(self, anchor: Listing) -> Decimal:
        if self.from_anchor():
            return anchor.area * self.rng.choice(
                (Decimal(1), Decimal(1), Decimal("0.5"), Decimal("2"))
            )
        return Decimal(self.rng.choice((20, 50, 80, 120, 500, 2_000, 10_000)))

    def min_area(self, anchor: Listing) -> dict[str, str]:
        return {"minArea": money(self.area_bound(anchor))}

    def max_area(self, anchor: Listing) -> dict[str, str]:
        return {"maxArea": money(self.area_bound(anchor))}

    def area_range(self, anchor: Listing) -> dict[str, str]:
        low, high = sorted((self.area_bound(anchor), self.area_bound(anchor)))
        return {"minArea": money(low), "maxArea": money(high)}

    def municipality(self, anchor: Listing) -> dict[str, str]:
        name = (
            anchor.municipality
            if self.from_anchor()
            else self.rng.choice(self.rng.choice(TOWNS).spellings)
        )
        # Any case, and surrounding spaces: the filter compares trimmed and lower-cased.
        written = self.rng.choice((name, name.lower(), name.upper(), name.title(), f"  {name} "))
        return {"municipality": written}

    def owner(self, anchor: Listing) -> dict[str, str]:
        if self.from_anchor():
            return {"ownerId": anchor.owner_id}
        return {"ownerId": self.rng.choice(self.catalogue.owner_ids)}

    def category(self, anchor: Listing) -> dict[str, str]:
        if self.from_anchor():
            return {"categoryId": anchor.category_id}
        return {"categoryId": self.rng.choice(self.catalogue.category_ids)}

    def status(self, anchor: Listing) -> dict[str, str]:
        if self.from_anchor():
            return {"status": anchor.status}
        return {"status": self.rng.choice(PropertyStatus.values)}

    def text(self, anchor: Listing) -> dict[str, str]:
        own = sorted(anchor.words() & set(self.query_words))
        pool = own if own and self.from_anchor() else self.query_words
        count = self.rng.choice((1, 1, 2))
        return {"q": " ".join(self.rng.sample(pool, min(count, len(pool))))}

    def min_bedrooms(self, anchor: Listing) -> dict[str, str]:
        if self.from_anchor() and anchor.bedrooms is not None:
            return {"minBedrooms": str(anchor.bedrooms)}
        return {"minBedrooms": str(self.rng.randint(0, 7))}

    def bbox(self, anchor: Listing) -> dict[str, str]:
        rng = self.rng
        shape = rng.choice(("around", "around", "edges", "antimeridian", "empty", "spain"))
        if shape == "around":
            half_width, half_height = rng.uniform(0.01, 1.5), rng.uniform(0.01, 1.5)
            box = (
                max(-180.0, anchor.longitude - half_width),
                max(-90.0, anchor.latitude - half_height),
                min(180.0, anchor.longitude + half_width),
                min(90.0, anchor.latitude + half_height),
            )
        elif shape == "edges":
            # Two listings on its edges (or one on a corner): edges are included.
            other = rng.choice(self.catalogue.listings)
            box = (
                min(anchor.longitude, other.longitude),
                min(anchor.latitude, other.latitude),
                max(anchor.longitude, other.longitude),
                max(anchor.latitude, other.latitude),
            )
        elif shape == "antimeridian":
            box = rng.choice(
                (
                    # Both sides of Taveuni.
                    (179.9, -17.0, -179.9, -16.7),
                    (rng.uniform(170, 179.99), -20.0, rng.uniform(-179.99, -170), 0.0),
                    # From Spain's east round the world to its west: most of Spain is
                    # west of -2.
                    (rng.uniform(5, 20), 27.0, -2.0, 44.0),
                    # Nobody lives there.
                    (150.0, 50.0, -150.0, 60.0),
                )
            )
        elif shape == "empty":
            box = (10.0, 30.0, 11.0, 31.0)
        else:
            box = (-18.5, 27.5, 4.5, 44.0)
        return {"bbox": ",".join(repr(float(number)) for number in box)}

    def radius(self, anchor: Listing) -> dict[str, str]:
        rng = self.rng
        if self.from_anchor():
            latitude, longitude = anchor.latitude, anchor.longitude
        else:
            town = rng.choice(TOWNS)
            latitude, longitude = town.latitude, town.longitude
        radius = round(math.exp(rng.uniform(math.log(0.5), math.log(450))), 3)
        # No listing on the circle itself, give or take the database's rounding.
        while any(
            abs(distance_km(latitude, longitude, listing) - radius) < RADIUS_EDGE_MARGIN_KM
            for listing in self.catalogue.listings
        ):
            radius = round(radius + 0.0137, 4)
        return {"lat": repr(latitude), "lng": repr(longitude), "radiusKm": repr(radius)}

    def polygon(self, anchor: Listing) -> dict[str, str]:
        """A drawn area around the anchor or a town: a star-shaped polygon (every vertex
        seen from its centre in turn, so its edges never cross) of 3 to 100 vertices,
        sometimes with deep notches; no listing near an edge."""
        rng = self.rng
        centre = anchor if abs(anchor.longitude) < 175 else rng.choice(TOWNS[:-1])
        longitude, latitude = centre.longitude, centre.latitude
        count = rng.choice((3, 4, 5, 6, 8, 12, 30, 100))
        sector = 2 * math.pi / count
        angles = [index * sector + rng.uniform(0, 0.4 * sector) for index in range(count)]
        notched = rng.random() < 0.4
        radii = [
            rng.uniform(0.02, 1.2) * (0.2 if notched and index % 2 else 1) for index in range(count)
        ]
        scale = 1.0
        while True:
            vertices = [
                (
                    round(longitude + scale * radius * math.cos(angle), 6),
                    round(latitude + scale * radius * math.sin(angle), 6),
                )
                for angle, radius in zip(angles, radii, strict=True)
            ]
            ring = [*vertices, vertices[0]]
            near_an_edge = any(
                segment_distance(listing.longitude, listing.latitude, a, b) < POLYGON_EDGE_MARGIN
                for listing in self.catalogue.listings
                for a, b in itertools.pairwise(ring)
            )
            if not near_an_edge:
                return {"polygon": ",".join(repr(number) for point in ring for number in point)}
            scale *= 1.0137

    FILTERS = (
        "type",
        "transaction_type",
        "min_price",
        "max_price",
        "price_range",
        "municipality",
        "owner",
        "category",
        "status",
        "text",
        "min_area",
        "max_area",
        "area_range",
        "min_bedrooms",
        "bbox",
        "radius",
        "polygon",
    )
    # Filters that set the same parameter: one of each group in a search.
    SAME_PARAMETERS = (
        {"min_price", "max_price", "price_range"},
        {"min_area", "max_area", "area_range"},
    )

    def filters(self, names: list[str], anchor: Listing) -> dict[str, str]:
        parameters: dict[str, str] = {}
        for name in names:
            parameters.update(getattr(self, name)(anchor))
        return parameters

    def some_filters(self, count: int, *, excluding: tuple[str, ...] = ()) -> list[str]:
        """`count` different filters, none of `excluding`, none setting the same parameter."""
        names: list[str] = []
        while len(names) < count:
            name = self.rng.choice(self.FILTERS)
            clashes = any(name in group and set(names) & group for group in self.SAME_PARAMETERS)
            if name not in names and name not in excluding and not clashes:
                names.append(name)
        return names

    def sort(self, parameters: dict[str, str], chance: float = 0.5) -> dict[str, str]:
        if self.rng.random() < chance:
            return {**parameters, "sort": self.rng.choice(SORTS)}
        return parameters

    def paging(self) -> tuple[int | None, int | None]:
        rng = self.rng
        limit = rng.choice((None, None, 1, 3, 5, 10, 12, 20, 50, 100, rng.randint(1, 100)))
        page = rng.choice((None, None, 1, 1, 2, 3))
        return page, limit

    def make(self, family: str, viewer: str, parameters: dict, page=None, limit=None) -> Search:
        return Search(
            number=0, family=family, viewer=viewer, parameters=parameters, page=page, limit=limit
        )

    def no_filter(self, viewer: str) -> Search:
        return self.make("no filter", viewer, self.sort({}), *self.paging())

    def single_filter(self, viewer: str, name: str) -> Search:
        parameters = self.sort(getattr(self, name)(self.anchor(viewer)))
        return self.make(f"one filter: {name}", viewer, parameters, *self.paging())

    def combination(self, viewer: str) -> Search:
        names = self.some_filters(self.rng.randint(2, 5))
        parameters = self.sort(self.filters(names, self.anchor(viewer)))
        return self.make("2 to 5 filters", viewer, parameters, *self.paging())

    def sorted_search(self, viewer: str, sort: str, filtered: bool) -> Search:
        names = self.some_filters(self.rng.randint(1, 3)) if filtered else []
        parameters = {**self.filters(names, self.anchor(viewer)), "sort": sort}
        family = "sort with filters" if filtered else "sort alone"
        return self.make(family, viewer, parameters, *self.paging())

    def deep_page(self, viewer: str) -> Search:
        """A page from the first to two past the last, at any limit."""
        rng = self.rng
        names = self.some_filters(rng.randint(1, 2)) if rng.random() < 0.5 else []
        parameters = self.sort(self.filters(names, self.anchor(viewer)), chance=0.7)
        limit = rng.choice((rng.randint(1, 100), rng.randint(1, 15), 12, 100))
        search = self.make("pages and limits", viewer, parameters, limit=limit)
        total = len(reference_ids(self.catalogue, search))
        search.page = rng.randint(1, max(1, math.ceil(total / limit)) + 2)
        return search

    def place(self, viewer: str, name: str) -> Search:
        """A box, a circle or a drawn area, alone or with other filters."""
        others = self.some_filters(self.rng.randint(0, 2), excluding=("bbox", "radius", "polygon"))
        anchor = self.anchor(viewer)
        parameters = self.sort({**self.filters(others, anchor), **getattr(self, name)(anchor)})
        return self.make(name, viewer, parameters, *self.paging())

    def text_search(self, viewer: str, index: int) -> Search:
        anchor = self.anchor(viewer)
        parameters = self.text(anchor)
        if index % 2:
            names = self.some_filters(self.rng.randint(1, 3), excluding=("text",))
            parameters = {**self.filters(names, anchor), **parameters}
        if index % 4 >= 2:
            parameters["sort"] = self.rng.choice(SORTS)
        return self.make("free text", viewer, parameters, *self.paging())

    def status_search(self, viewer: str, status: str) -> Search:
        parameters = self.sort({"status": status})
        if self.rng.random() < 0.5:
            others = self.some_filters(1, excluding=("status",))
            parameters.update(self.filters(others, self.anchor(viewer)))
        return self.make("status", viewer, parameters, *self.paging())

    def owner_or_category(self, viewer: str, index: int) -> Search:
        anchor = self.anchor(viewer)
        parameters: dict[str, str] = {}
        if index % 3 != 1:
            owner_ids = self.catalogue.owner_ids
            parameters["ownerId"] = owner_ids[index % len(owner_ids)]
        if index % 3 != 0:
            parameters.update(self.category(anchor))
        return self.make("ownerId and categoryId", viewer, self.sort(parameters), *self.paging())


def money(value: Decimal) -> str:
    """A bound as a client writes it: whole, or with cents."""
    value = value.quantize(Decimal("0.01"))
    return str(value.quantize(Decimal(1))) if value == value.to_integral_value() else str(value)


def generate_searches(catalogue: Catalogue) -> list[Search]:
    """SEARCH_COUNT searches of every family, each family spread evenly over the viewers."""
    maker = SearchMaker(random.Random(SEED + 1), catalogue)
    families: list[list[Callable[[str], Search]]] = [
        [maker.no_filter] * 24,
        [
            lambda viewer, name=name: maker.single_filter(viewer, name)
            for name in maker.FILTERS
            for _ in range(8)
        ],
        [maker.combination] * 140,
        [
            lambda viewer, sort=sort, filtered=filtered: maker.sorted_search(viewer, sort, filtered)
            for sort in SORTS
            for filtered in (False, True)
            for _ in VIEWERS
        ],
        [maker.deep_page] * 60,
        [lambda viewer: maker.place(viewer, "bbox")] * 32,
        [lambda viewer: maker.place(viewer, "radius")] * 32,
        [lambda viewer: maker.place(viewer, "polygon")] * 24,
        [lambda viewer, index=index: maker.text_search(viewer, index) for index in range(40)],
        [
            lambda viewer, status=status: maker.status_search(viewer, status)
            for status in PropertyStatus.values
            for _ in VIEWERS
        ],
        [lambda viewer, index=index: maker.owner_or_category(viewer, index) for index in range(20)],
    ]
    searches = []
    for family in families:
        for index, make in enumerate(family):
            search = make(VIEWERS[index % len(VIEWERS)])
            search.number = len(searches)
            searches.append(search)
    return searches


# --- Fixtures ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def catalogue(django_db_setup, django_db_blocker):
    """The catalogue and its searches, made once for the module in a transaction of its own,
    rolled back at the end; each test runs inside it (in a savepoint) and leaves it as it
    was."""
    with django_db_blocker.unblock(), transaction.atomic():
        catalogue = build_catalogue(random.Random(SEED))
        catalogue.searches = generate_searches(catalogue)
        yield catalogue
        transaction.set_rollback(True)


@pytest.fixture(autouse=True)
def no_rate_limits(throttle_rates):
    """Hundreds of searches a minute by one reader: the rate limits are not what is tested."""
    throttle_rates(anonymous="1000000/min", signed_in="1000000/min")


# --- Comparing -----------------------------------------------------------------------------


def difference(catalogue: Catalogue, expected: list[str], got: list[str]) -> str:
    lines = [f"    expected {len(expected)}: {expected}", f"    got      {len(got)}: {got}"]
    missing = [listing_id for listing_id in expected if listing_id not in got]
    extra = [listing_id for listing_id in got if listing_id not in expected]
    for label, found in (("missing", missing), ("extra", extra)):
        for listing_id in found:
            listing = catalogue.by_id.get(listing_id)
            lines.append(f"    {label} {listing.summary() if listing else listing_id}")
    if not missing and not extra:
        lines.append("    the same listings in another order")
    return "\n".join(lines)


def api_ids(response) -> list[str]:
    return [item["id"] for item in response.json()["properties"]]


def api_mismatches(catalogue: Catalogue, search: Search) -> list[str]:
    """How the API's answer to the search differs from the reference (nothing: the same)."""
    client = catalogue.viewers[search.viewer].api
    response = client.get(PROPERTIES_URL, search.api_query())
    if response.status_code != 200:
        return [f"{search}: status {response.status_code}: {response.content[:500]!r}"]
    body = response.json()
    expected = reference_ids(catalogue, search)
    page, limit = search.page or 1, search.limit or API_DEFAULT_LIMIT
    total = len(expected)
    envelope = {
        "totalItems": total,
        "totalItemsExact": True,
        "totalPages": math.ceil(total / limit),
        "itemsPerPage": limit,
        "currentPage": page,
    }
    problems = []
    got_envelope = {key: body.get(key) for key in envelope}
    if got_envelope != envelope:
        problems.append(
            f"{search}: API totals\n    expected {envelope}\n    got      {got_envelope}"
        )
    start = (page - 1) * limit
    wanted, got = expected[start : start + limit], api_ids(response)
    if search.ordered:
        if got != wanted:
            problems.append(f"{search}: API page\n{difference(catalogue, wanted, got)}")
        return problems
    # Ordered by relevance: the page holds as many results as it should, and the pages
    # together hold every result once.
    if len(got) != len(wanted) or not set(got) <= set(expected):
        problems.append(f"{search}: API page (any order)\n{difference(catalogue, wanted, got)}")
    sweep_limit = limit if math.ceil(total / limit) <= 15 else 100
    swept: list[str] = []
    for number in range(1, math.ceil(total / sweep_limit) + 1):
        query = {**search.api_query(), "page": str(number), "limit": str(sweep_limit)}
        swept += api_ids(client.get(PROPERTIES_URL, query))
    if len(swept) != len(set(swept)) or set(swept) != set(expected):
        problems.append(
            f"{search}: API pages of {sweep_limit} together (any order)\n"
            f"{difference(catalogue, sorted(expected), sorted(swept))}"
        )
    return problems


CARD = 'data-testid="listing-card"'
LINK = re.compile(r'href="([^"]+)"')
RESULT_COUNT = re.compile(r'data-testid="result-count"[^>]*>([^<]*)<')


def card_ids(html: str) -> list[str]:
    """The listing of each result card, in page order: the card's link to its page."""
    chunks = html.split(CARD)[1:]
    found = []
    for chunk in chunks:
        for link in LINK.findall(chunk):
            try:
                match = resolve(link)
            except Resolver404:
                continue
            if match.view_name == "listings:detail":
                found.append(match.kwargs["pk"])
                break
        else:
            found.append("<card without a link to a listing>")
    return found


def announced_count(total: int) -> str:
    return f"{total} listing{'' if total == 1 else 's'}"


def website_page(client: Client, query: dict[str, str]) -> tuple[int, str, list[str]]:
    response = client.get(SEARCH_PAGE, query)
    html = response.content.decode()
    count = RESULT_COUNT.search(html)
    return response.status_code, count.group(1).strip() if count else "<no count>", card_ids(html)


def website_mismatches(catalogue: Catalogue, search: Search) -> list[str]:
    """How the search page's answer differs from the reference: its cards and its count.
    A page past the last shows the last (docs/website.md: the nearest page)."""
    client = catalogue.viewers[search.viewer].website
    status, count, got = website_page(client, search.website_query())
    if status != 200:
        return [f"{search}: website status {status}"]
    expected = reference_ids(catalogue, search)
    total = len(expected)
    problems = []
    if count != announced_count(total):
        problems.append(
            f"{search}: website count\n    expected {announced_count(total)!r}\n"
            f"    got      {count!r}"
        )
    last_page = max(1, math.ceil(total / WEBSITE_PAGE_SIZE))
    page = min(search.page or 1, last_page)
    start = (page - 1) * WEBSITE_PAGE_SIZE
    wanted = expected[start : start + WEBSITE_PAGE_SIZE]
    if search.ordered:
        if got != wanted:
            problems.append(f"{search}: website page {page}\n{difference(catalogue, wanted, got)}")
        return problems
    if len(got) != len(wanted) or not set(got) <= set(expected):
        problems.append(
            f"{search}: website page {page} (any order)\n{difference(catalogue, wanted, got)}"
        )
    swept: list[str] = []
    for number in range(1, last_page + 1):
        swept += website_page(client, {**search.website_query(), "page": str(number)})[2]
    if len(swept) != len(set(swept)) or set(swept) != set(expected):
        problems.append(
            f"{search}: website pages together (any order)\n"
            f"{difference(catalogue, sorted(expected), sorted(swept))}"
        )
    return problems


def check_batch(
    catalogue: Catalogue, number: int, mismatches: Callable[[Catalogue, Search], list[str]]
) -> None:
    """Fail with every difference of the batch's searches, whole: pytest shortens the
    message of a failed assert, which would hide most of them."""
    searches = catalogue.searches[number * BATCH_SIZE : (number + 1) * BATCH_SIZE]
    problems = {search.number: mismatches(catalogue, search) for search in searches}
    differing = [found for found in problems.values() if found]
    if differing:
        details = "\n".join(problem for found in differing for problem in found)
        pytest.fail(
            f"{len(differing)} of {len(searches)} searches differ from the reference:\n{details}",
            pytrace=False,
        )


# --- Tests ---------------------------------------------------------------------------------


def test_the_searches_cover_every_family_and_viewer_and_find_things(catalogue):
    searches = catalogue.searches
    assert len(searches) == SEARCH_COUNT >= 500
    assert len(BATCHES) * BATCH_SIZE == SEARCH_COUNT
    # Every family as every viewer, evenly.
    per_family = Counter(search.family for search in searches)
    for family in per_family:
        viewers = Counter(search.viewer for search in searches if search.family == family)
        assert set(viewers) == set(VIEWERS), family
        assert max(viewers.values()) - min(viewers.values()) <= 1, family
    assert {f"one filter: {name}" for name in SearchMaker.FILTERS} <= set(per_family)
    # Most searches find something, some nothing, some more than a page; hidden listings
    # are among the results of owners' and admins' searches.
    totals = [len(reference_ids(catalogue, search)) for search in searches]
    assert sum(total > 0 for total in totals) >= 0.6 * len(searches)
    assert sum(total == 0 for total in totals) >= 20
    assert sum(total > WEBSITE_PAGE_SIZE for total in totals) >= 100
    # Drawn areas find things too, notched ones and large ones among them.
    in_areas = [
        total
        for search, total in zip(searches, totals, strict=True)
        if "polygon" in search.parameters
    ]
    assert len(in_areas) >= 60
    assert sum(total > 0 for total in in_areas) >= 0.6 * len(in_areas)
    assert sum(total > WEBSITE_PAGE_SIZE for total in in_areas) >= 8
    for viewer in ("owner", "admin"):
        hidden = [
            search
            for search in searches
            if search.viewer == viewer
            and any(
                catalogue.by_id[listing_id].status not in PUBLIC_STATUSES
                for listing_id in reference_ids(catalogue, search)
            )
        ]
        assert len(hidden) >= 30, viewer
    # Every status, kind and town spelling is stored; prices and creation times repeat.
    listings = catalogue.listings
    assert {listing.status for listing in listings} == set(PropertyStatus.values)
    assert {listing.kind for listing in listings} == {*PropertyType.values, None}
    assert {listing.municipality for listing in listings} == {
        spelling for town in TOWNS for spelling in town.spellings
    }
    assert len({listing.price for listing in listings}) < len(listings)
    assert len({listing.area for listing in listings}) < len(listings)
    assert len({listing.created_at for listing in listings}) < len(listings)
    assert any(listing.longitude > 179 for listing in listings)
    assert any(listing.longitude < -179 for listing in listings)
    # Free text: broad, narrow and absent words.
    assert len(SearchMaker(random.Random(0), catalogue).query_words) >= 40


@pytest.mark.parametrize("number", BATCHES, ids=lambda number: f"batch{number:02d}")
def test_api_pages_and_totals_are_the_reference(catalogue, number):
    check_batch(catalogue, number, api_mismatches)


@pytest.mark.parametrize("number", BATCHES, ids=lambda number: f"batch{number:02d}")
def test_website_results_and_counts_are_the_reference(catalogue, number):
    check_batch(catalogue, number, website_mismatches)
