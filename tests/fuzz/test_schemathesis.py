"""Schemathesis against the platform's own OpenAPI schema: every operation, three roles.

The schema is loaded from the application (GET /api/v1/schema/), never from a file, so what
is tested is what clients are given. For each operation and each role (an ADMIN, an OWNER and
a CUSTOMER, each sending its own bearer token) Schemathesis generates cases from the schema,
in its examples, coverage and fuzzing phases, valid and invalid data alike, with a fixed seed
and a bounded number of examples. It sends them to the WSGI application in-process and runs
all of its default checks on every answer: no server error; status code, content type,
headers and body as documented; invalid data rejected; valid data not refused; and
authentication enforced wherever the schema asks for it (the check sends the request again
without credentials and with invalid ones).

Random values fit the schema but rarely the data: an id that names no row, a visit in the
past. So a small data set is made for each test (see `Platform`), and valid cases are fitted
to it before they are sent (see `fit_to_data`): half of the path ids name a row that exists
at that moment (rows the run created included), and references in bodies and query strings
name rows the caller can see. Invalid cases are sent exactly as generated.
"""

import datetime
import itertools
from collections.abc import Callable, Iterator

import pytest
import schemathesis
from django.core.cache import cache
from django.core.files.base import ContentFile
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, models
from django.utils import timezone
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from rest_framework.settings import api_settings
from schemathesis.core.parameters import ParameterLocation

from accounts.models import Owner, User, UserType
from accounts.services import access_token_issue, user_create
from appointments.models import Appointment
from favorites.models import Favorite
from listings.models import (
    Property,
    PropertyCategory,
    PropertyStatus,
    PropertyType,
    TransactionType,
    TypeSpecificRecord,
)
from listings.selectors import property_visible_to
from media_app.models import Image, Video
from media_app.services import image_upload
from notifications.models import Notification, WebhookEndpoint
from tests.factories import (
    AppointmentFactory,
    CategoryFactory,
    FavoriteFactory,
    NotificationFactory,
    PropertyFactory,
    TypeSpecificRecordFactory,
    VideoFactory,
    WebhookEndpointFactory,
)
from tests.fuzz.application import FuzzedApplication
from tests.fuzz.tally import TALLY
from tests.media.support import ebml_bytes, jpeg_bytes, mp4_bytes

SCHEMA_PATH = "/api/v1/schema/?format=json"
ROLES = ("admin", "owner", "customer")
# Fixed, so that every run sends the same cases and a failure can be replayed.
SEED = 20261111
# Cases of the fuzzing phase per operation and role; the examples and coverage phases add
# their own (a few to a few dozen). Bounded so that the whole run takes a few minutes.
MAX_EXAMPLES = 12
# Generous enough that no case is throttled; the throttles have tests of their own.
FUZZ_RATES = dict.fromkeys(api_settings.DEFAULT_THROTTLE_RATES, "100000/min")

# Rules a schema cannot state. These operations give, by the decisions cited, an error status
# to some values that fit the schema; for them (and only them) that status to a valid case
# is the documented answer, not a refusal of valid data. Every other check stays as it is.
RULES_BEYOND_THE_SCHEMA: dict[tuple[str, str], tuple[str, ...]] = {
    # Django's password validators (D6): not too common, not all digits, not like the email.
    ("POST", "/api/v1/users/register/"): ("400",),
    # The same validators, and currentPassword must be the current one (D7).
    ("PATCH", "/api/v1/users/{id}/"): ("400",),
    # Parameters that go together (D8): lat, lng and radiusKm all or none, minPrice <= maxPrice,
    # minArea <= maxArea, a bbox whose corners are in range, a polygon that is closed and does
    # not cross itself (docs/api.md).
    ("GET", "/api/v1/properties/"): ("400",),
    # The same parameters, and a zoom whose grid over the bbox has at most 10,000 cells.
    ("GET", "/api/v1/properties/clusters/"): ("400",),
    # The same parameters as a saved search's criteria, which must also filter something
    # (values of spaces do not).
    ("POST", "/api/v1/saved-searches/"): ("400",),
    ("PATCH", "/api/v1/saved-searches/{id}/"): ("400",),
    # ownerId defaults to the caller's own Owner record (D7); an administrator has none, so
    # for an administrator it is required, which a schema shared by every role cannot say.
    ("POST", "/api/v1/properties/"): ("400",),
    # from must not be later than to (D8).
    ("GET", "/api/v1/appointments/"): ("400",),
    # A file is judged by its bytes, whatever its part's Content-Type says (D11).
    ("POST", "/api/v1/images/upload/"): ("415",),
    ("POST", "/api/v1/videos/upload/"): ("415",),
    # A webhook target must be https and resolve to public addresses only (D12, SSRF); the
    # generated hosts do not resolve on a machine without DNS.
    ("POST", "/api/v1/notifications/webhook/register/"): ("400",),
}
# Bugs this run found in code that other work is changing now (notifications/); they are
# written up in docs/reliability.md. Each entry lets one status through the check for valid
# data on one operation, and the run's summary names it; remove the entry with the fix.
KNOWN_BUGS: dict[tuple[str, str], tuple[str, str]] = {}
# Schemathesis's own defaults for positive_data_acceptance, less 3xx and 5xx (never expected).
VALID_DATA_STATUSES = ["2xx", "401", "403", "404", "409", "429"]
TOLERATED_STATUSES = {
    **RULES_BEYOND_THE_SCHEMA,
    **{operation: (status,) for operation, (status, _bug) in KNOWN_BUGS.items()},
}

CONFIG = schemathesis.Config.from_dict(
    {
        "seed": SEED,
        "generation": {"max-examples": MAX_EXAMPLES, "deterministic": True, "database": "none"},
        "operations": [
            {
                # One filter only: several in one block would each match on their own.
                "include-name": f"{method} {path}",
                "checks": {
                    "positive_data_acceptance": {
                        "expected-statuses": [*VALID_DATA_STATUSES, *statuses]
                    }
                },
            }
            for (method, path), statuses in TOLERATED_STATUSES.items()
        ],
    }
)

# The schema says which formats an upload's file may be in; Schemathesis has sample files of
# the image formats, and these are the smallest videos the platform recognises (D11).
schemathesis.openapi.media_type("video/mp4", st.just(mp4_bytes()))
schemathesis.openapi.media_type("video/webm", st.just(ebml_bytes()))

schema = schemathesis.openapi.from_wsgi(SCHEMA_PATH, FuzzedApplication(), config=CONFIG)

KIND_PATHS = {
    "houses": PropertyType.HOUSE,
    "apartments": PropertyType.APARTMENT,
    "lands": PropertyType.LAND,
    "offices": PropertyType.OFFICE,
    "commercials": PropertyType.COMMERCIAL,
    "hotels": PropertyType.HOTEL,
    "developments": PropertyType.DEVELOPMENT,
}


def _ids(model: type[models.Model], **filters) -> Callable[[], list[str]]:
    """The ids of a model's rows, in id order, read when a case is sent."""

    def ids() -> list[str]:
        return list(model.objects.filter(**filters).order_by("pk").values_list("pk", flat=True))

    return ids


# The rows an `{id}` of each resource may name, by the start of the operation's path; the
# longer prefix of two that match wins (webhooks before notifications).
RESOURCES: dict[str, Callable[[], list[str]]] = {
    "/api/v1/users/": _ids(User),
    "/api/v1/categories/": _ids(PropertyCategory),
    "/api/v1/properties/": _ids(Property),
    "/api/v1/appointments/": _ids(Appointment),
    "/api/v1/favorites/": _ids(Favorite),
    "/api/v1/images/": _ids(Image),
    "/api/v1/videos/": _ids(Video),
    "/api/v1/notifications/webhooks/": _ids(WebhookEndpoint),
    "/api/v1/notifications/": _ids(Notification),
    **{
        f"/api/v1/{segment}/": _ids(TypeSpecificRecord, kind=kind)
        for segment, kind in KIND_PATHS.items()
    },
}

# Picks among candidates in turn, so that a run is the same every time.
_turns: Iterator[int] = itertools.count()
# Alternates, per operation and role, between a real path id and the generated one.
_aims: dict[str, Iterator[bool]] = {}


def _pick(candidates: list[str]) -> str | None:
    return candidates[next(_turns) % len(candidates)] if candidates else None


# The values below are written into the case's containers in place. Schemathesis takes the
# containers as they are when the case is sent as its starting point, and keeps what it knew
# at generation (valid or not, and where): the values written fit the schema, so that stays
# true. Assigning a new container instead would make it judge the case again, and it judges
# any body holding a file (an upload) invalid.


def aim_at_existing_row(case, role: str, *, path_is_valid: bool) -> None:
    """Point every other valid `{id}` at a row that exists when the case is sent.

    Ids are valid by the schema (`^[a-z][a-z0-9]{24}$`); the rows are read at that moment, so
    rows the run created earlier are aimed at too.
    """
    if "id" not in case.path_parameters or not path_is_valid:
        return
    aims = _aims.setdefault(f"{role} {case.operation.label}", itertools.cycle((True, False)))
    if not next(aims):
        return
    prefixes = [prefix for prefix in RESOURCES if case.operation.path.startswith(prefix)]
    if not prefixes:
        return
    row = _pick(RESOURCES[max(prefixes, key=len)]())
    if row is not None:
        case.path_parameters["id"] = row


def fit_to_data(case, user: User) -> None:
    """Make a valid case's references name real rows, and its visit dates future ones.

    References (propertyId, categoryId, ownerId, userId, userIds) in the body and the query
    name rows the caller may see, so that the case reaches the rules behind the lookup (D2
    answers 400 to an unknown reference, which no schema can foresee). A visit's date is in
    the future (D10).
    """
    if isinstance(case.body, dict):
        _fit(case, case.body, user)
    if case.query:
        _fit(case, case.query, user)


def _fit(case, values: dict, user: User) -> None:
    listing_id = None
    if "propertyId" in values:
        listing_id = _pick(_ids_of(property_visible_to(viewer=user)))
        values["propertyId"] = listing_id
    if "categoryId" in values:
        values["categoryId"] = _pick(_ids(PropertyCategory)())
    if "ownerId" in values:
        values["ownerId"] = _owner_id(user, listing_id)
    if "userId" in values:
        values["userId"] = _user_id(user)
    if isinstance(values.get("userIds"), list) and values["userIds"]:
        users = _ids(User)()
        values["userIds"] = [users[index % len(users)] for index in range(len(values["userIds"]))]
    if "date" in values and case.method != "GET" and "/appointments/" in case.operation.path:
        turn = next(_turns)
        start = timezone.now() + datetime.timedelta(days=1 + turn % 60, minutes=turn % 600)
        values["date"] = start.isoformat().replace("+00:00", "Z")


def _ids_of(queryset) -> list[str]:
    return list(queryset.order_by("pk").values_list("pk", flat=True))


def _owner_id(user: User, listing_id: str | None) -> str | None:
    """The listing's owner when the case names a listing, else the caller's own Owner record."""
    if listing_id is not None:
        return Property.objects.filter(pk=listing_id).values_list("owner_id", flat=True).first()
    own = Owner.objects.filter(user=user).values_list("pk", flat=True).first()
    return own or _pick(_ids(Owner)())


def _user_id(user: User) -> str | None:
    """The caller, or for an administrator any user in turn."""
    if user.user_type == UserType.ADMIN:
        return _pick(_ids(User)())
    return user.pk


class Platform:
    """The data set of one test: a user and bearer token per role, and rows to aim at."""

    def __init__(self) -> None:
        self.users = {
            role: user_create(
                email=f"{role}@example.com",
                password=None,
                name=f"The {role.title()}",
                user_type=user_type,
            )
            for role, user_type in (
                ("admin", UserType.ADMIN),
                ("owner", UserType.OWNER),
                ("customer", UserType.CUSTOMER),
            )
        }
        self.tokens = {role: access_token_issue(user=user)[0] for role, user in self.users.items()}
        owner = self.users["owner"]
        customer = self.users["customer"]
        category = CategoryFactory(name="Residential")
        CategoryFactory(name="Unused")
        # One AVAILABLE listing of each kind (on sale and for rent in turn), with its record.
        listings = []
        for number, kind in enumerate(PropertyType.values):
            listing = PropertyFactory(
                owner=owner.owner,
                category=category,
                status=PropertyStatus.AVAILABLE,
                transaction_type=(TransactionType.SALE, TransactionType.RENT)[number % 2],
            )
            TypeSpecificRecordFactory(property=listing, kind=kind)
            listings.append(listing)
        # Listings without a record yet (step 2 to come), one public and one in moderation.
        PropertyFactory(owner=owner.owner, category=category, status=PropertyStatus.AVAILABLE)
        PropertyFactory(owner=owner.owner, category=category, status=PropertyStatus.PENDING)
        showcase = listings[0]
        image_upload(
            property=showcase,
            by=owner,
            file=ContentFile(jpeg_bytes(), name="front.jpg"),
            title="Front",
        )
        VideoFactory(property=showcase)
        FavoriteFactory(user=customer, property=showcase)
        AppointmentFactory(
            user=customer, property=showcase, date=timezone.now() + datetime.timedelta(days=5)
        )
        NotificationFactory(user=customer, property=showcase)
        NotificationFactory(user=owner, property=showcase)
        WebhookEndpointFactory(user=owner)


@pytest.fixture
def isolated(settings, tmp_path, throttle_rates):
    """Rates no case reaches, an empty cache, and media files in a folder of the test's own.

    Each test runs in one transaction, rolled back at its end (emptying PostgreSQL's tables
    after each of some 230 tests would take minutes). Like Django's test client, the requests
    must then leave the test's database connection open when they finish.
    """
    throttle_rates(**FUZZ_RATES)
    settings.MEDIA_ROOT = tmp_path / "media"
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    cache.clear()
    yield
    cache.clear()
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def platform(isolated) -> Platform:
    """The data set, made afresh for each operation and role.

    The turns of the picks start over too, so that a test sends the same cases whether it
    runs alone or among the others.
    """
    global _turns
    _turns = itertools.count()
    _aims.clear()
    return Platform()


@pytest.mark.fuzz
@pytest.mark.django_db
@pytest.mark.parametrize("role", ROLES)
@schema.parametrize()
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_every_operation_conforms_to_the_schema(case, role, platform):
    # given a generated case, fitted to the data set when it is a valid one
    meta = case.meta
    aim_at_existing_row(
        case, role, path_is_valid=meta is None or not meta.is_negative_at(ParameterLocation.PATH)
    )
    if meta is not None and meta.generation.mode.is_positive:
        fit_to_data(case, platform.users[role])
    TALLY.cases[role] += 1
    TALLY.operations.add(f"{role} {case.operation.label}")
    bug = KNOWN_BUGS.get((case.method, case.operation.path))
    if bug is not None:
        TALLY.known_bugs[case.operation.label] = bug[1]

    # when it is sent with the role's bearer token,
    # then every check passes on the answer (and on the checks' own follow-up requests)
    case.call_and_validate(headers={"Authorization": f"Bearer {platform.tokens[role]}"})
