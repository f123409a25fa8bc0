"""factory_boy factories for every model; they write rows directly, for test setup only."""

import datetime
from decimal import Decimal

import factory
from django.utils import timezone

from accounts.models import Admin, Customer, Owner, User, UserType
from appointments.models import Appointment
from favorites.models import Favorite
from listings.models import (
    ActivityType,
    LandType,
    Property,
    PropertyCategory,
    PropertyStatus,
    PropertyType,
    TransactionType,
    TypeSpecificRecord,
    listing_slug,
)
from listings.search import search_params
from media_app.models import Image, Video
from notifications.matching import saved_search_columns
from notifications.models import (
    AlertFrequency,
    Notification,
    NotificationStatus,
    SavedSearch,
    WebhookEndpoint,
)

DEFAULT_PASSWORD = "correct-horse-battery-staple"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        skip_postgeneration_save = True

    email = factory.Sequence(lambda number: f"user{number}@example.com")
    name = factory.Faker("name")
    phone = factory.Sequence(lambda number: f"+1555{number:07d}")
    user_type = UserType.CUSTOMER
    password = factory.django.Password(DEFAULT_PASSWORD)


class CustomerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Customer

    user = factory.SubFactory(UserFactory, user_type=UserType.CUSTOMER)


class OwnerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Owner

    user = factory.SubFactory(UserFactory, user_type=UserType.OWNER)


class AdminFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Admin

    user = factory.SubFactory(
        UserFactory, user_type=UserType.ADMIN, is_staff=True, is_superuser=True
    )


class CategoryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = PropertyCategory
        django_get_or_create = ["name"]

    name = factory.Sequence(lambda number: f"Category {number}")
    description = "Listings of this category."


class PropertyFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Property

    title = factory.Sequence(lambda number: f"Listing {number}")
    # As property_create writes it (the kind comes later, with the type-specific record).
    slug = factory.LazyAttribute(lambda listing: listing_slug(title=listing.title, kind=None))
    description = "A bright place with a view."
    price = Decimal("250000.00")
    latitude = 40.4168
    longitude = -3.7038
    transaction_type = TransactionType.SALE
    municipality = "Madrid"
    address = factory.Sequence(lambda number: f"{number} Gran Via")
    area = Decimal("120.50")
    status = PropertyStatus.AVAILABLE
    owner = factory.SubFactory(OwnerFactory)
    category = factory.SubFactory(CategoryFactory, name="Residential")


# Valid column values for each kind of type-specific record.
RECORD_VALUES: dict[str, dict[str, object]] = {
    PropertyType.HOUSE: {
        "rooms": 5,
        "bedrooms": 3,
        "bathrooms": 2,
        "swimming_pool": True,
        "parking_space": True,
    },
    PropertyType.APARTMENT: {
        "rooms": 3,
        "bedrooms": 2,
        "bathrooms": 1,
        "parking_space": False,
        "swimming_pool": False,
        "floors": 1,
        "balcony": True,
        "elevator": True,
    },
    PropertyType.LAND: {"serviced": True, "land_type": LandType.BUILDABLE},
    PropertyType.OFFICE: {
        "floors": 2,
        "parking_space": True,
        "elevators": True,
        "type_of_activity": ActivityType.COMMERCIAL,
    },
    PropertyType.COMMERCIAL: {
        "floors": 1,
        "elevators": False,
        "parking_space": True,
        "type_of_activity": ActivityType.RETAIL,
    },
    PropertyType.HOTEL: {"rooms": 40, "floors": 5, "parking_space": True, "swimming_pool": True},
    PropertyType.DEVELOPMENT: {
        "number_of_units": 24,
        "type_of_activity": ActivityType.RESIDENTIAL,
    },
}


class TypeSpecificRecordFactory(factory.django.DjangoModelFactory):
    """Pass `kind`; the columns of that kind are filled with valid values."""

    class Meta:
        model = TypeSpecificRecord

    property = factory.SubFactory(PropertyFactory)
    kind = PropertyType.HOUSE

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        values = {**RECORD_VALUES[kwargs["kind"]], **kwargs}
        record = super()._create(model_class, *args, **values)
        # As listings.services.type_record_create does: the listing keeps a copy of the kind.
        Property.objects.filter(pk=record.property_id).update(
            kind=record.kind, bedrooms=record.bedrooms
        )
        record.property.kind = record.kind
        record.property.bedrooms = record.bedrooms
        return record


class ImageFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Image

    property = factory.SubFactory(PropertyFactory)
    file = factory.django.ImageField(color="blue", width=64, height=48)
    title = "Living room"
    width = 64
    height = 48


class VideoFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Video

    property = factory.SubFactory(PropertyFactory)
    file = factory.django.FileField(data=b"\x1a\x45\xdf\xa3webm", filename="tour.webm")
    title = "Tour"
    content_type = "video/webm"


class AppointmentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Appointment

    property = factory.SubFactory(PropertyFactory)
    user = factory.SubFactory(UserFactory)
    owner = factory.SelfAttribute("property.owner")
    date = factory.LazyFunction(lambda: timezone.now() + datetime.timedelta(days=3))
    duration = 30
    ends_at = factory.LazyAttribute(
        lambda appointment: appointment.date + datetime.timedelta(minutes=appointment.duration)
    )


class FavoriteFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Favorite

    property = factory.SubFactory(PropertyFactory)
    user = factory.SubFactory(UserFactory)


class NotificationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Notification

    property = factory.SubFactory(PropertyFactory)
    user = factory.SubFactory(UserFactory)
    status = NotificationStatus.INFO
    title = "Visit requested"
    message = "A customer asked to visit your listing."


class SavedSearchFactory(factory.django.DjangoModelFactory):
    """A saved search with its criteria's columns, as the services store it."""

    class Meta:
        model = SavedSearch

    user = factory.SubFactory(UserFactory)
    name = factory.Sequence(lambda number: f"Flats in Madrid {number}")
    criteria = factory.LazyFunction(lambda: {"type": "apartment", "municipality": "Madrid"})
    frequency = AlertFrequency.DAILY

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        kwargs.update(saved_search_columns(search_params(kwargs["criteria"])))
        return super()._create(model_class, *args, **kwargs)


class WebhookEndpointFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = WebhookEndpoint

    user = factory.SubFactory(UserFactory, user_type=UserType.OWNER)
    url = "https://hooks.example.com/estate"
    events = factory.LazyFunction(lambda: ["property.created"])
    secret = "whsec_dGVzdC1zZWNyZXQtdGVzdC1zZWNyZXQtdGVzdC1zZWNyZXQ="


class PasswordlessOwnerFactory(OwnerFactory):
    """An owner whose user has an unusable password: no password hashing, so quick in bulk."""

    user = factory.SubFactory(
        UserFactory, user_type=UserType.OWNER, password=factory.django.Password(None)
    )


class ListingFactory(PropertyFactory):
    """A PropertyFactory listing whose owner is made by PasswordlessOwnerFactory."""

    owner = factory.SubFactory(PasswordlessOwnerFactory)
