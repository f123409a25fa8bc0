"""Small model-level facts: id format (D2), the derived `type` (D9), kind managers, emails."""

import re

import pytest

from accounts.models import User
from listings.models import KIND_MODELS, Property, PropertyType, TypeSpecificRecord
from tests.factories import (
    AdminFactory,
    AppointmentFactory,
    CategoryFactory,
    CustomerFactory,
    FavoriteFactory,
    ImageFactory,
    NotificationFactory,
    OwnerFactory,
    PropertyFactory,
    TypeSpecificRecordFactory,
    UserFactory,
    VideoFactory,
    WebhookEndpointFactory,
)

CUID_PATTERN = re.compile(r"[a-z][a-z0-9]{24}")

ROW_FACTORIES = [
    UserFactory,
    OwnerFactory,
    CustomerFactory,
    AdminFactory,
    CategoryFactory,
    PropertyFactory,
    TypeSpecificRecordFactory,
    ImageFactory,
    VideoFactory,
    AppointmentFactory,
    FavoriteFactory,
    NotificationFactory,
    WebhookEndpointFactory,
]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "row_factory", ROW_FACTORIES, ids=lambda row_factory: row_factory._meta.model.__name__
)
def test_every_row_gets_a_distinct_cuid2_id(row_factory):
    # given nothing
    # when two rows of the model are created without an id
    first, second = row_factory(), row_factory()

    # then both ids are a lowercase letter and 24 lowercase letters or digits, and differ
    stored_ids = set(row_factory._meta.model.objects.values_list("pk", flat=True))
    assert {first.pk, second.pk} <= stored_ids
    assert CUID_PATTERN.fullmatch(first.pk)
    assert CUID_PATTERN.fullmatch(second.pk)
    assert first.pk != second.pk


@pytest.mark.django_db
def test_type_is_none_until_the_type_specific_record_exists():
    # given a property created in step 1 only
    listing = PropertyFactory()

    # when it is read back from the database
    stored = Property.objects.get(pk=listing.pk)

    # then it has no type
    assert stored.type is None


@pytest.mark.django_db
@pytest.mark.parametrize("kind", PropertyType.values)
def test_type_is_the_kind_of_the_type_specific_record(kind):
    # given a property with a record of the kind
    listing = PropertyFactory()
    TypeSpecificRecordFactory(property=listing, kind=kind)

    # when it is read back from the database
    stored = Property.objects.get(pk=listing.pk)

    # then its type is that kind
    assert stored.type == kind


@pytest.mark.django_db
@pytest.mark.parametrize("kind", PropertyType.values)
def test_each_kind_model_sees_only_the_records_of_its_kind(kind):
    # given one record of every kind
    records = {
        record_kind: TypeSpecificRecordFactory(kind=record_kind)
        for record_kind in PropertyType.values
    }

    # when the records are listed through the model of one kind
    listed = list(KIND_MODELS[kind].objects.values_list("pk", flat=True))

    # then only the record of that kind is listed, while the base model sees them all
    assert listed == [records[kind].pk]
    assert TypeSpecificRecord.objects.count() == len(PropertyType.values)


@pytest.mark.django_db
def test_create_user_stores_the_email_in_lower_case():
    # given an email written with capitals and surrounding spaces
    # when a user is created through the manager
    user = User.objects.create_user(" Ann@Example.COM ", password="a-long-password")

    # then the stored email is lower-cased and trimmed
    assert User.objects.get(pk=user.pk).email == "ann@example.com"
