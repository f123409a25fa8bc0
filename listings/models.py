"""Listings: categories, properties and their type-specific records."""

from django.conf import settings
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models import ExpressionWrapper, F, OrderBy, Q
from django.db.models.functions import Length, Lower
from django.db.models.lookups import GreaterThanOrEqual, LessThanOrEqual
from django.urls import reverse
from django.utils.text import slugify
from django.utils.translation import gettext_lazy as _

from accounts.models import Owner
from config.ids import ID_LENGTH
from config.models import IdField, TimestampedModel
from listings.text import folded


class TransactionType(models.TextChoices):
    RENT = "RENT", _("Rent")
    SALE = "SALE", _("Sale")


class PropertyStatus(models.TextChoices):
    AVAILABLE = "AVAILABLE", _("Available")
    SOLD = "SOLD", _("Sold")
    RENTED = "RENTED", _("Rented")
    PENDING = "PENDING", _("Pending")
    SUSPENDED = "SUSPENDED", _("Suspended")


class PropertyType(models.TextChoices):
    """The kind of a type-specific record, and so of its property (decisions D9)."""

    HOUSE = "house", _("House")
    APARTMENT = "apartment", _("Apartment")
    LAND = "land", _("Land")
    OFFICE = "office", _("Office")
    COMMERCIAL = "commercial", _("Commercial premises")
    HOTEL = "hotel", _("Hotel")
    DEVELOPMENT = "development", _("Development project")


class LandType(models.TextChoices):
    BUILDABLE = "BUILDABLE", _("Buildable")
    AGRICULTURAL = "AGRICULTURAL", _("Agricultural")
    FOREST = "FOREST", _("Forest")
    INDUSTRIAL = "INDUSTRIAL", _("Industrial")
    RECREATIONAL = "RECREATIONAL", _("Recreational")
    OTHER = "OTHER", _("Other")


class ActivityType(models.TextChoices):
    RESIDENTIAL = "RESIDENTIAL", _("Residential")
    COMMERCIAL = "COMMERCIAL", _("Commercial")
    RETAIL = "RETAIL", _("Retail")
    OFFICE = "OFFICE", _("Office")
    INDUSTRIAL = "INDUSTRIAL", _("Industrial")
    HOSPITALITY = "HOSPITALITY", _("Hospitality")
    MIXED_USE = "MIXED_USE", _("Mixed use")
    OTHER = "OTHER", _("Other")


class PropertyCategory(TimestampedModel):
    """A category a listing is filed under (decisions D15); in use, it cannot be deleted."""

    name = models.CharField(max_length=100, unique=True)
    description = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["name", "id"]
        verbose_name_plural = _("property categories")

    def __str__(self) -> str:
        return self.name


# Listings anyone may see (listings.selectors.property_visible_to) are those whose status is
# not hidden, kept by the database in the generated column Property.public. Searches and the
# partial indexes that serve them name that column (PUBLIC_LISTING), not the statuses.
HIDDEN_STATUSES = (PropertyStatus.PENDING, PropertyStatus.SUSPENDED)
PUBLIC_LISTING = Q(public=True)

# What public searches filter on and sort by (listings.search.query). Every public index ends
# with the columns its leading ones leave out, so that PostgreSQL judges each filter and
# reads each sort key from the index alone: a walk along a sort order skips the rows that
# do not match without visiting the table for them ("flats of 3 bedrooms or more by area":
# 0.28 s to 7 ms at 1,000,000 listings), and few matches are sorted from the index.
SEARCH_COLUMNS = (
    "kind",
    "transaction_type",
    "price",
    "area",
    "bedrooms",
    "category",
    "municipality",
    "created_at",
    "id",
    # A map search's box, circle or drawn area: a walk along the date tests it in the index
    # (a town's box, newest first: 0.24 ms instead of 34 ms reading each row passed).
    "latitude",
    "longitude",
)


def _column_name(item: str | models.Expression) -> str | None:
    """The column an index item holds as it is (a name, or a name ordered), else None."""
    if isinstance(item, str):
        return item
    if isinstance(item, OrderBy) and isinstance(item.expression, F):
        return item.expression.name
    return None


def public_index(*leading: str | models.Expression, name: str) -> models.Index:
    """A partial index of public listings: `leading` first, then the other SEARCH_COLUMNS."""
    present = {_column_name(item) for item in leading}
    rest = [column for column in SEARCH_COLUMNS if column not in present]
    return models.Index(*leading, *rest, name=name, condition=PUBLIC_LISTING)


def _length_between(field: str, low: int, high: int) -> models.Q:
    # SQLite does not enforce VARCHAR lengths, so the bound is a check on both databases.
    return Q(GreaterThanOrEqual(Length(field), low)) & Q(LessThanOrEqual(Length(field), high))


# What `q` searches (GET /properties), with a text search configuration of PostgreSQL made by
# migration 0022: "simple" (words as written, lower-cased, no stemming, whatever the
# listing's language) after unaccent ("Malaga" finds "Málaga").
SEARCH_CONFIG = "simple_unaccent"
SEARCH_FIELDS = ("title", "description", "address", "municipality")


class SearchDocument(SearchVector):
    """The searched text of a listing as a text-search vector (PostgreSQL).

    SQLite has no tsvector: there it is the same text, lower-cased (its search does not
    read it; the column only has to exist on both databases).
    """

    def as_sqlite(self, compiler, connection, **extra_context):
        return self.as_sql(compiler, connection, template="LOWER(%(expressions)s)")


# A slug keeps whole words up to this many characters (the column holds a few more).
SLUG_LENGTH = 80
# Path segments that follow a listing's id in other routes (favorites' and visits' POST
# routes, /listings/<id>/favorite/ and /visit/): a slug never equals one of them.
RESERVED_SLUGS = frozenset({"favorite", "visit"})


def listing_slug(*, title: str | None, kind: str | None) -> str:
    """The readable part of a listing's address: its title in lower-case ASCII words joined
    by hyphens, accents folded ("Ático en Málaga" is "atico-en-malaga"), at most SLUG_LENGTH
    characters cut between words. A title without a Latin letter or digit gives the kind
    ("house", "commercial-premises"), else "listing". No title (a change the database will
    refuse) gives the fallback too, so that the database's refusal is what the caller sees."""
    slug = slugify(folded(title or ""))
    if len(slug) > SLUG_LENGTH:
        slug = slug[: SLUG_LENGTH + 1].rsplit("-", 1)[0].strip("-") or slug[:SLUG_LENGTH]
    if not slug:
        slug = slugify(PropertyType(kind).label) if kind else "listing"
    if slug in RESERVED_SLUGS:
        slug = f"{slug}-listing"
    return slug


def listing_url(*, pk: str, slug: str | None = None) -> str:
    """The path of a listing's page, the one place that builds it: the canonical address
    `listings:detail` with its slug, or without one (a visitor who must log in first, whose
    listing is not read) the short address, which answers 301 to the canonical one."""
    if slug is None:
        return reverse("listings:short", kwargs={"pk": pk})
    return reverse("listings:detail", kwargs={"pk": pk, "slug": slug})


class Property(TimestampedModel):
    """A listing for sale or rent with the fields every kind of property shares.

    Its kind-specific facts live in one TypeSpecificRecord (reverse one-to-one
    `type_record`), added in the second step of creation.
    """

    title = models.CharField(max_length=200)
    description = models.TextField(max_length=10_000)
    price = models.DecimalField(max_digits=14, decimal_places=2)
    latitude = models.FloatField()
    longitude = models.FloatField()
    transaction_type = models.CharField(max_length=4, choices=TransactionType.choices)
    municipality = models.CharField(max_length=120)
    address = models.CharField(max_length=300)
    area = models.DecimalField(max_digits=12, decimal_places=2)
    status = models.CharField(
        max_length=9, choices=PropertyStatus.choices, default=PropertyStatus.PENDING
    )
    # Whether anyone may see the listing (PUBLIC_LISTING), computed by the database from the
    # status on every write, whatever writes the row. The public indexes are partial on it.
    # PostgreSQL proves that a statement's `public` implies an index's at once, where the
    # statuses written out cost it a proof per index and an estimate per status (a map
    # box's count planned in 0.56 to 0.74 ms instead of 0.82 to 1.07); and a condition with
    # no value lets a plan kept for any values use those indexes (docs/performance.md,
    # "Public listings as one column" and "Prepared statements").
    public = models.GeneratedField(
        expression=ExpressionWrapper(
            ~Q(status__in=HIDDEN_STATUSES), output_field=models.BooleanField()
        ),
        output_field=models.BooleanField(),
        db_persist=True,
    )
    owner = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="properties")
    category = models.ForeignKey(
        PropertyCategory, on_delete=models.PROTECT, related_name="properties"
    )
    # A copy of type_record.kind, written by the record services in the record's transaction:
    # the `type` filter then reads one table, and the indexes below combine it with the
    # other filters (docs/performance.md). Null until step 2, like `type`.
    kind = models.CharField(
        max_length=11, choices=PropertyType.choices, null=True, blank=True, editable=False
    )
    # A copy of type_record.bedrooms, kept the same way: minBedrooms then needs no join.
    bedrooms = models.PositiveIntegerField(null=True, blank=True, editable=False)
    # listing_slug(title, kind), written by the services that change either, in their
    # transaction: the page's canonical address and the sitemap read it as it is, without
    # computing it again for each of a million listings (docs/website.md).
    slug = models.SlugField(max_length=100, db_index=False, editable=False)
    # Stored once per write instead of parsed again for every match of every search: `q`
    # filters with its GIN index and ranks with it (docs/performance.md).
    search_document = models.GeneratedField(
        expression=SearchDocument(*SEARCH_FIELDS, config=SEARCH_CONFIG),
        output_field=SearchVectorField(),
        db_persist=True,
    )

    class Meta:
        verbose_name_plural = _("properties")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(latitude__gte=-90, latitude__lte=90),
                name="listings_property_latitude_range",
            ),
            models.CheckConstraint(
                condition=Q(longitude__gte=-180, longitude__lte=180),
                name="listings_property_longitude_range",
            ),
            models.CheckConstraint(
                condition=Q(price__gte=0), name="listings_property_price_non_negative"
            ),
            models.CheckConstraint(condition=Q(area__gt=0), name="listings_property_area_positive"),
            models.CheckConstraint(
                condition=Q(transaction_type__in=TransactionType.values),
                name="listings_property_transaction_type_valid",
            ),
            models.CheckConstraint(
                condition=Q(status__in=PropertyStatus.values),
                name="listings_property_status_valid",
            ),
            models.CheckConstraint(
                condition=_length_between("title", 1, 200), name="listings_property_title_length"
            ),
            models.CheckConstraint(
                condition=_length_between("description", 1, 10_000),
                name="listings_property_description_length",
            ),
            models.CheckConstraint(
                condition=_length_between("municipality", 1, 120),
                name="listings_property_municipality_length",
            ),
            models.CheckConstraint(
                condition=_length_between("address", 1, 300),
                name="listings_property_address_length",
            ),
        ]
        indexes = [
            # Default order of GET /properties, and the same order within a status.
            models.Index(fields=["-created_at", "-id"], name="listings_prop_created_idx"),
            # (An index on status, transaction type and price was dropped: the public's price
            # filters have covering indexes of their own, and the planner, finding it
            # smaller, read all of it for a price alone: 32 ms instead of 3.5 ms at
            # 1,000,000 listings.)
            models.Index(fields=["status", "-created_at", "-id"], name="listings_prop_status_idx"),
            models.Index(Lower("municipality"), "status", name="listings_prop_municipality_idx"),
            # (An index on latitude and longitude of every listing was dropped: for a town's
            # box the planner, estimating a handful of matches, preferred it, small as it is,
            # to the public box indexes below, and read each match from the table: 37 ms
            # instead of 2.1 ms at 1,000,000 listings. Administrators' map searches, which
            # see hidden listings too, read the table.)
            # Searches of the public (what anonymous visitors and customers see), each index
            # ending with the search columns it does not lead with (public_index). Counts of
            # kind / transaction / town / price combinations read the town index alone; the
            # planner reads an index alone only if it holds every column the query names, and
            # it does not see `municipality` inside LOWER(municipality), so the column itself
            # is in it too (a town's count at 1,000,000 listings had visited 9,400 table
            # pages, 55 ms, and was given up; now 2 ms).
            public_index(
                Lower("municipality"),
                "kind",
                "transaction_type",
                "price",
                "id",
                name="listings_prop_pub_town_idx",
            ),
            # A town, a transaction and a price range without a kind, the commonest portal
            # search: the index above reads every kind's entries of the town to find them.
            # Counting the matches of the price bands such a range cuts through
            # (listings.search.groups) read 20,000 entries of the transaction's price index for
            # 1,200 matches (15 ms); the benchmark's counts left to the matches at 1,000,000
            # listings, 4.2 to 1.7 ms on average, p95 16.9 to 7.4 ms. A town and a price
            # range without a transaction seek it too: a count names both transactions
            # (listings.search.query.seeking_ranges).
            public_index(
                Lower("municipality"),
                "transaction_type",
                "price",
                "id",
                name="listings_prop_pub_town_tx_idx",
            ),
            # sort=price / area (either way: an index reads backwards as well): the page is
            # read in order, never sorted whole ("houses for sale by price": 0.7 ms at
            # 1,000,000 listings). Price goes with the transaction (every rent is cheaper than
            # every sale), so a price walk that skipped the other transaction would read most
            # of the table: price indexes lead with it. Area does not, so area indexes leave
            # it to a filter; with a transaction's area index beside them, the planner walked
            # that one past every sale that was not a flat (0.6 s for "flats for sale by
            # area").
            *(
                public_index(*leading, "price", "id", name=name)
                for name, leading in (
                    ("listings_prop_pub_price_idx", ()),
                    ("listings_prop_pub_tx_price_idx", ("transaction_type",)),
                    ("listings_prop_kind_price_idx", ("kind",)),
                    ("listings_prop_pub_k_price_idx", ("kind", "transaction_type")),
                )
            ),
            *(
                public_index(*leading, "area", "id", name=name)
                for name, leading in (
                    ("listings_prop_pub_area_idx", ()),
                    ("listings_prop_kind_area_idx", ("kind",)),
                )
            ),
            # Newest first and map views: a kind, a category or any other filter is judged in
            # the index, deep pages pick their ids from it before reading rows (listings.
            # selectors._page_rows), and a box's matches are counted and sorted by date
            # without visiting the table (a town's box at 1,000,000 listings: count 14 to 3
            # ms, page 11 to 4 ms).
            public_index(
                F("created_at").desc(),
                F("id").desc(),
                name="listings_prop_pub_created_idx",
            ),
            public_index(
                "latitude",
                "longitude",
                "created_at",
                "id",
                name="listings_prop_pub_box_idx",
            ),
            # The strips along a map view's left and right edges, whose clusters are read
            # from their listings (listings.search.cells): the box index above would read
            # the whole height of the view to find them.
            public_index("longitude", "latitude", name="listings_prop_pub_lng_idx"),
            # Bedrooms with a kind and a transaction ("flats to rent with 3 bedrooms or
            # more"): the kind's other indexes hold bedrooms after the price or the area,
            # so they tested it entry by entry until 10,001 matched (15 to 17 ms at
            # 1,000,000 listings); here it is sought (3.9 ms).
            public_index(
                "kind", "transaction_type", "bedrooms", name="listings_prop_pub_kind_bed_idx"
            ),
            # Counts of a category with a kind, a transaction and a price read only this index:
            # a category with a kind it never holds ("houses" among "Commercial") counts none
            # at once, where reading the category's rows for their kind took 150 ms and gave
            # the count up.
            public_index(
                "category",
                "kind",
                "transaction_type",
                "price",
                name="listings_prop_pub_cat_kind_idx",
            ),
            # The sitemap (listings.sitemap): public listings in id order with what their
            # <url> entry says, read from the index alone, a part's range sought by id.
            models.Index(
                "id",
                "slug",
                "updated_at",
                name="listings_prop_pub_sitemap_idx",
                condition=PUBLIC_LISTING,
            ),
        ]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        """The listing's canonical page (listing_url)."""
        return listing_url(pk=self.pk, slug=self.slug)

    @property
    def type(self) -> str | None:
        """The kind derived from the type-specific record; None before step 2 (D9)."""
        try:
            return self.type_record.kind
        except TypeSpecificRecord.DoesNotExist:
            return None


class DeletedListing(models.Model):
    """The id of a listing deleted with property_delete, kept so that its address answers
    410 Gone (search engines drop it at once) instead of 404; nothing else of it is kept."""

    id = models.CharField(primary_key=True, max_length=25)
    deleted_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.id


class PublicListingGroup(models.Model):
    """How many public listings share one combination of the values that public searches
    match exactly, so that a search's count can be added up from a few groups instead of
    read from its matches (listings.search.groups, docs/performance.md).

    Kept by PostgreSQL itself: triggers on the listings table add every written listing's
    change in the same statement, whichever way it is written (services, the admin's bulk
    actions, the bulk seeder's COPY). A town, a category or a bedroom count is also kept
    as "any" ("" or -1), so that a search without that filter reads a few groups, not one
    per town. Unused on other databases, where it stays empty.
    """

    # Numbered by the database: the triggers insert groups without the ORM.
    id = models.BigAutoField(primary_key=True)
    # LOWER(municipality), as the municipality filter compares it; "" for any town.
    municipality_key = models.CharField(max_length=120)
    # The category's id; "" for any category.
    category_key = models.CharField(max_length=25)
    # The bedrooms; -2 for listings without (not a house or a flat), -1 for any.
    bedrooms_key = models.IntegerField()
    transaction_type = models.CharField(max_length=4)
    # "" for a listing without its type-specific record yet.
    kind = models.CharField(max_length=11)
    # The price's band among listings.search.groups.PRICE_BAND_EDGES (width_bucket).
    price_band = models.SmallIntegerField()
    listings = models.IntegerField()

    class Meta:
        constraints = [
            # What the triggers add to (ON CONFLICT), and what a search's bounds seek: a town
            # and a category, then the bedrooms, transaction, kind and bands.
            models.UniqueConstraint(
                fields=[
                    "municipality_key",
                    "category_key",
                    "bedrooms_key",
                    "transaction_type",
                    "kind",
                    "price_band",
                ],
                name="listings_public_group_key",
            ),
        ]

    def __str__(self) -> str:
        return (
            f"{self.transaction_type} {self.kind or '-'} {self.municipality_key or 'any town'}"
            f" band {self.price_band}: {self.listings}"
        )


class Place(models.Model):
    """A town with public listings, as the search box suggests it (GET /places,
    listings.places).

    Kept by PostgreSQL itself, like PublicListingGroup: triggers on the listings table add
    every written listing's change in the same statement (listings/sql/places.sql). A town
    whose listings all went stays, with no listings, and is not suggested. Unused on other
    databases, where it stays empty.
    """

    # LOWER(municipality), as the municipality filter compares it: a place's listings are
    # the matches of a search for its name.
    key = models.CharField(max_length=120, primary_key=True)
    # As the town's first public listing spelled it.
    name = models.CharField(max_length=120)
    # The name without accents, lowercased (listings_place_key(), listings.places.folded):
    # what the typed text is compared with.
    folded = models.CharField(max_length=120)
    # How many public listings it has.
    listings = models.IntegerField()

    class Meta:
        indexes = [
            # The towns whose folded name starts with the typed text (LIKE 'mad%'): a pattern
            # index, whatever the database's collation (PostgreSQL; other databases ignore
            # the operator class).
            models.Index(
                fields=["folded"],
                name="listings_place_folded_idx",
                opclasses=["varchar_pattern_ops"],
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name}: {self.listings}"


class PublicListingDay(models.Model):
    """How many public listings were created on one day (UTC), so that a page deep in the
    public listings by creation date starts at its day instead of past every newer listing
    (listings.search.days, docs/performance.md).

    Kept by PostgreSQL itself, like PublicListingGroup: triggers on the listings table add
    every written listing's change in the same statement (listings/sql/public_listing_days.sql).
    A day whose listings all went stays, with none. Unused on other databases, where it stays
    empty.
    """

    # The listing's created_at in UTC, as a date.
    day = models.DateField(primary_key=True)
    listings = models.IntegerField()

    def __str__(self) -> str:
        return f"{self.day}: {self.listings}"


class MapCell(models.Model):
    """The public listings of one transaction and kind in one cell of a stored map grid, so
    that a map's clusters zoomed out are added up from cells instead of read from up to
    every listing (listings.search.clusters, docs/performance.md). Each cell also has a row
    for each of its transactions whatever the kind, and one for all its listings.

    Kept by PostgreSQL itself, like Place: triggers on the listings table add every written
    listing's change in the same statement (listings/sql/map_cells.sql). A cell whose
    listings all went stays, with none. Unused on other databases, where it stays empty.
    """

    # Numbered by the database: the triggers insert cells without the ORM.
    id = models.BigAutoField(primary_key=True)
    # The grid's zoom: cells of 90 / 2^level degrees (listings.search.clusters).
    level = models.SmallIntegerField()
    # floor(latitude / size) and floor(longitude / size).
    row = models.IntegerField()
    column = models.IntegerField()
    # "*" (listings.search.cells.ANY) in the row of every transaction and kind of the cell.
    transaction_type = models.CharField(max_length=4)
    # "" for listings without a kind yet; "*" in the rows of every kind of a transaction,
    # and of every transaction and kind.
    kind = models.CharField(max_length=11)
    listings = models.IntegerField()
    # Their latitudes and longitudes added up: the cluster's mean point.
    latitude_sum = models.FloatField()
    longitude_sum = models.FloatField()
    # The bounds of its listings and their lowest price; null when it has none.
    west = models.FloatField(null=True)
    south = models.FloatField(null=True)
    east = models.FloatField(null=True)
    north = models.FloatField(null=True)
    lowest_price = models.DecimalField(max_digits=14, decimal_places=2, null=True)

    class Meta:
        constraints = [
            # What the triggers add to (ON CONFLICT), and what a view's cells are read by: a
            # level, then a range of rows and of columns.
            models.UniqueConstraint(
                fields=["level", "row", "column", "transaction_type", "kind"],
                name="listings_map_cell_key",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.level}/{self.row}/{self.column} {self.transaction_type} {self.kind}"


class ModerationLog(models.Model):
    """One status change of a listing: who made it, when, from which status to which, and why.

    Written by listings.services.property_change_status in the transaction of the change, so
    every move is logged whoever made it (API, website, admin). The actor's email is copied
    at write time: the row keeps saying who acted after that user is deleted (actor NULL).
    """

    id = IdField()
    property = models.ForeignKey(Property, on_delete=models.CASCADE, related_name="moderation_logs")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="moderation_logs",
    )
    actor_email = models.EmailField(max_length=254, blank=True, default="")
    from_status = models.CharField(max_length=9, choices=PropertyStatus.choices)
    to_status = models.CharField(max_length=9, choices=PropertyStatus.choices)
    reason = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(from_status__in=PropertyStatus.values),
                name="listings_moderation_from_valid",
            ),
            models.CheckConstraint(
                condition=Q(to_status__in=PropertyStatus.values),
                name="listings_moderation_to_valid",
            ),
        ]
        indexes = [
            # A listing's history, newest first, on its admin page.
            models.Index(fields=["property", "-created_at"], name="listings_moderation_prop_idx")
        ]

    def __str__(self) -> str:
        return f"{self.from_status} to {self.to_status} of {self.property_id}"


class PriceChange(models.Model):
    """One change of a listing's price: what it was, what it became and when.

    Written by listings.services.property_update in the transaction of the change; the
    listing's price history (`priceHistory` on its detail) is these rows, newest first.
    """

    id = IdField()
    property = models.ForeignKey(Property, on_delete=models.CASCADE, related_name="price_changes")
    previous_price = models.DecimalField(max_digits=14, decimal_places=2)
    price = models.DecimalField(max_digits=14, decimal_places=2)
    changed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-changed_at", "-id"]
        indexes = [
            models.Index(fields=["property", "-changed_at"], name="listings_price_change_idx")
        ]

    def __str__(self) -> str:
        return f"{self.previous_price} to {self.price} of {self.property_id}"


# Which columns of TypeSpecificRecord each kind uses; all of them are required for it.
KIND_FIELDS: dict[str, tuple[str, ...]] = {
    PropertyType.HOUSE: ("rooms", "bedrooms", "bathrooms", "swimming_pool", "parking_space"),
    PropertyType.APARTMENT: (
        "rooms",
        "bedrooms",
        "bathrooms",
        "parking_space",
        "swimming_pool",
        "floors",
        "balcony",
        "elevator",
    ),
    PropertyType.LAND: ("serviced", "land_type"),
    PropertyType.OFFICE: ("floors", "parking_space", "elevators", "type_of_activity"),
    PropertyType.COMMERCIAL: ("floors", "elevators", "parking_space", "type_of_activity"),
    PropertyType.HOTEL: ("rooms", "floors", "parking_space", "swimming_pool"),
    PropertyType.DEVELOPMENT: ("number_of_units", "type_of_activity"),
}
RECORD_FIELDS: tuple[str, ...] = tuple(
    dict.fromkeys(field for fields in KIND_FIELDS.values() for field in fields)
)
COUNT_FIELDS = ("rooms", "bedrooms", "bathrooms", "floors", "number_of_units")


def _kind_shape(kind: str) -> models.Q:
    """A row of this kind fills exactly the columns the kind uses."""
    own = KIND_FIELDS[kind]
    filled = {f"{field}__isnull": False for field in own}
    empty = {f"{field}__isnull": True for field in RECORD_FIELDS if field not in own}
    return ~Q(kind=kind) | Q(**filled, **empty)


class TypeSpecificRecord(models.Model):
    """The type-specific facts of a property: house, apartment, land, office, ...

    One table for the seven kinds, so that "at most one type-specific record per
    property, of any kind" (D9) is a single unique constraint the database holds,
    and a list page reaches every kind through one join. Each kind is a proxy model
    below (House, Apartment, ...) whose columns are fixed by a check constraint.
    """

    id = IdField()
    property = models.OneToOneField(Property, on_delete=models.CASCADE, related_name="type_record")
    kind = models.CharField(_("kind"), max_length=11, choices=PropertyType.choices, db_index=True)
    rooms = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("rooms"))
    bedrooms = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("bedrooms"))
    bathrooms = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("bathrooms"))
    floors = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("floors"))
    number_of_units = models.PositiveIntegerField(
        null=True, blank=True, verbose_name=_("number of units")
    )
    swimming_pool = models.BooleanField(null=True, blank=True, verbose_name=_("swimming pool"))
    parking_space = models.BooleanField(null=True, blank=True, verbose_name=_("parking space"))
    balcony = models.BooleanField(null=True, blank=True, verbose_name=_("balcony"))
    elevator = models.BooleanField(null=True, blank=True, verbose_name=_("elevator"))
    elevators = models.BooleanField(null=True, blank=True, verbose_name=_("elevators"))
    serviced = models.BooleanField(null=True, blank=True, verbose_name=_("serviced"))
    land_type = models.CharField(
        _("land type"), max_length=12, choices=LandType.choices, null=True, blank=True
    )
    type_of_activity = models.CharField(
        _("type of activity"), max_length=11, choices=ActivityType.choices, null=True, blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "listings_type_specific_record"
        constraints = [
            models.CheckConstraint(
                condition=Q(kind__in=PropertyType.values), name="listings_record_kind_valid"
            ),
            models.CheckConstraint(
                condition=Q(land_type__isnull=True) | Q(land_type__in=LandType.values),
                name="listings_record_land_type_valid",
            ),
            models.CheckConstraint(
                condition=Q(type_of_activity__isnull=True)
                | Q(type_of_activity__in=ActivityType.values),
                name="listings_record_activity_valid",
            ),
            *(
                models.CheckConstraint(
                    condition=Q(**{f"{field}__isnull": True}) | Q(**{f"{field}__gte": 0}),
                    name=f"listings_record_{field}_non_negative",
                )
                for field in COUNT_FIELDS
            ),
            *(
                models.CheckConstraint(
                    condition=_kind_shape(kind), name=f"listings_record_{kind}_shape"
                )
                for kind in PropertyType.values
            ),
        ]
        indexes = [models.Index(fields=["kind", "bedrooms"], name="listings_record_bedrooms_idx")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} of {self.property_id}"


class KindManager(models.Manager):
    """Restricts a proxy model (House, Apartment, ...) to the rows of its kind."""

    def __init__(self, kind: str):
        super().__init__()
        self.kind = kind

    def get_queryset(self):
        return super().get_queryset().filter(kind=self.kind)


class House(TypeSpecificRecord):
    """Facts of a house."""

    KIND = PropertyType.HOUSE
    objects = KindManager(KIND)

    class Meta:
        proxy = True


class Apartment(TypeSpecificRecord):
    """Facts of an apartment."""

    KIND = PropertyType.APARTMENT
    objects = KindManager(KIND)

    class Meta:
        proxy = True


class Land(TypeSpecificRecord):
    """Facts of a plot of land."""

    KIND = PropertyType.LAND
    objects = KindManager(KIND)

    class Meta:
        proxy = True


class Office(TypeSpecificRecord):
    """Facts of an office."""

    KIND = PropertyType.OFFICE
    objects = KindManager(KIND)

    class Meta:
        proxy = True


class Commercial(TypeSpecificRecord):
    """Facts of commercial premises."""

    KIND = PropertyType.COMMERCIAL
    objects = KindManager(KIND)

    class Meta:
        proxy = True
        verbose_name_plural = _("commercial premises")


class Hotels(TypeSpecificRecord):
    """Facts of a hotel (the interface names the resource in the plural)."""

    KIND = PropertyType.HOTEL
    objects = KindManager(KIND)

    class Meta:
        proxy = True
        verbose_name = _("hotel")


class Development(TypeSpecificRecord):
    """Facts of a development project."""

    KIND = PropertyType.DEVELOPMENT
    objects = KindManager(KIND)

    class Meta:
        proxy = True


KIND_MODELS: dict[str, type[TypeSpecificRecord]] = {
    model.KIND: model for model in (House, Apartment, Land, Office, Commercial, Hotels, Development)
}


class PropertyRow(models.Model):
    """A listing as the API's list and detail read it, one row: its own columns, its
    type-specific record's (record_*), its category's, its owner's contact (owner_user_*)
    and its photos and videos in gallery order, as JSON arrays of entries.

    A database view (listings/sql/property_row.<vendor>.sql, made by a migration), read only
    by listings.selectors with statements whose text never changes: nothing to build or
    compile per request, and on PostgreSQL a statement psycopg prepares once per connection
    (docs/performance.md). Its columns copy their sources' types, so a row reads back as the
    listing's own fields would. A migration that changes a column the view reads drops the
    view first and runs its file again.
    """

    id = models.CharField(primary_key=True, max_length=25)
    title = models.CharField(max_length=200)
    description = models.TextField()
    price = models.DecimalField(max_digits=14, decimal_places=2)
    latitude = models.FloatField()
    longitude = models.FloatField()
    transaction_type = models.CharField(max_length=4)
    municipality = models.CharField(max_length=120)
    address = models.CharField(max_length=300)
    area = models.DecimalField(max_digits=12, decimal_places=2)
    status = models.CharField(max_length=9)
    owner_id = models.CharField(max_length=25)
    category_id = models.CharField(max_length=25)
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()
    record_id = models.CharField(max_length=25, null=True)
    record_kind = models.CharField(max_length=11, null=True)
    record_rooms = models.PositiveIntegerField(null=True)
    record_bedrooms = models.PositiveIntegerField(null=True)
    record_bathrooms = models.PositiveIntegerField(null=True)
    record_floors = models.PositiveIntegerField(null=True)
    record_number_of_units = models.PositiveIntegerField(null=True)
    record_swimming_pool = models.BooleanField(null=True)
    record_parking_space = models.BooleanField(null=True)
    record_balcony = models.BooleanField(null=True)
    record_elevator = models.BooleanField(null=True)
    record_elevators = models.BooleanField(null=True)
    record_serviced = models.BooleanField(null=True)
    record_land_type = models.CharField(max_length=12, null=True)
    record_type_of_activity = models.CharField(max_length=11, null=True)
    category_name = models.CharField(max_length=100)
    category_description = models.TextField()
    owner_user_id = models.CharField(max_length=25)
    owner_user_name = models.CharField(max_length=200, null=True)
    owner_user_email = models.EmailField(max_length=254)
    owner_user_phone = models.CharField(max_length=40, null=True)
    # [[id, file name, title], ...]; NULL or [] for none.
    photo_entries = models.JSONField(null=True)
    # [[id, file name, title, created at as ISO 8601 text], ...]; NULL or [] for none.
    video_entries = models.JSONField(null=True)

    class Meta:
        managed = False
        db_table = "listings_property_row"

    def __str__(self) -> str:
        return self.title


class PropertyDailyViews(models.Model):
    """How many times a listing's public page was viewed on one day (in TIME_ZONE).

    Views are counted in Redis (or in the web process's memory without it) and added here in
    batches by listings.statistics; nothing writes a row per view.
    """

    id = IdField()
    property = models.ForeignKey(Property, on_delete=models.CASCADE, related_name="daily_views")
    day = models.DateField()
    views = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["property", "day"]
        constraints = [
            # The key the batches add to (INSERT ... ON CONFLICT (property_id, day)).
            models.UniqueConstraint(fields=["property", "day"], name="listings_daily_views_unique"),
            models.CheckConstraint(
                condition=Q(views__gte=0), name="listings_daily_views_not_negative"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.views} views of {self.property_id} on {self.day}"


class PropertyViewsBatch(models.Model):
    """A batch of views already added to PropertyDailyViews, by the id it had in Redis.

    Written in the transaction that adds the batch, so a flush that runs again after the
    database committed but before Redis forgot the batch finds it here and does not add it
    twice (listings.statistics). Rows older than a day are deleted by the flushes.
    """

    id = models.CharField(primary_key=True, max_length=ID_LENGTH)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"Views batch {self.id}"
