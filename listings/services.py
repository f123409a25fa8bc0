"""Writes on listings: every face of the platform (API, website, admin) calls these."""

from decimal import Decimal

from django.db import IntegrityError, transaction
from django.db.models import ProtectedError
from django.utils.text import format_lazy
from django.utils.translation import gettext, gettext_lazy

from accounts.models import Owner, User, UserType
from config.errors import (
    Conflict,
    InvalidTransition,
    PermissionRefused,
    ValidationFailed,
)
from config.json import json_value
from config.money import price_format_lazy
from listings.cache import public_reads_changed
from listings.models import (
    KIND_FIELDS,
    DeletedListing,
    ModerationLog,
    PriceChange,
    Property,
    PropertyCategory,
    PropertyStatus,
    TypeSpecificRecord,
    listing_slug,
)
from listings.representations import property_representation
from listings.rules import ADMIN, OWNER, PROPERTY_MOVES, allowed_next_statuses
from media_app.cleanup import media_files_delete_on_commit, media_files_for_deletion
from notifications.alerts import listing_alerts_enqueue, price_drop_emails_enqueue
from notifications.email import absolute_url
from notifications.events import event_record
from notifications.models import EmailTopic, EventType, NotificationStatus
from notifications.services import notification_send, notification_send_bulk, user_email_send

CATEGORY_NAME_TAKEN = gettext_lazy("A category with this name already exists.")
CATEGORY_IN_USE = gettext_lazy("The category is used by listings and cannot be deleted.")


def _category_save(category: PropertyCategory) -> PropertyCategory:
    if PropertyCategory.objects.filter(name__iexact=category.name).exclude(pk=category.pk).exists():
        raise Conflict(CATEGORY_NAME_TAKEN, field="name")
    try:
        with transaction.atomic():
            category.save()
    except IntegrityError as error:
        raise Conflict(CATEGORY_NAME_TAKEN, field="name") from error
    # A listing's detail shows its category's name and description.
    public_reads_changed()
    return category


def category_create(*, name: str, description: str = "") -> PropertyCategory:
    """Create a category (admins, D15); names are unique."""
    return _category_save(PropertyCategory(name=name, description=description))


def category_update(
    *, category: PropertyCategory, name: str | None = None, description: str | None = None
) -> PropertyCategory:
    """Rename or re-describe a category."""
    if name is not None:
        category.name = name
    if description is not None:
        category.description = description
    return _category_save(category)


def category_delete(*, category: PropertyCategory) -> None:
    """Delete a category no listing uses; one in use is a conflict (D14)."""
    try:
        with transaction.atomic():
            category.delete()
    except ProtectedError as error:
        raise Conflict(CATEGORY_IN_USE) from error


# Common fields of a listing that PATCH /properties/:id may change (status has its own service).
PROPERTY_FIELDS = (
    "title",
    "description",
    "price",
    "latitude",
    "longitude",
    "transaction_type",
    "municipality",
    "address",
    "area",
)


def _is_admin(user: User) -> bool:
    return user.is_authenticated and user.user_type == UserType.ADMIN


def property_is_managed_by(*, property: Property, user: User) -> bool:
    """True for the listing's owner and for admins: they may change it (D7)."""
    if _is_admin(user):
        return True
    return user.is_authenticated and property.owner.user_id == user.pk


def _require_manager(*, property: Property, by: User) -> None:
    if not property_is_managed_by(property=property, user=by):
        raise PermissionRefused(gettext_lazy("Only the listing's owner may change it."))


def _record_event(event_type: str, listing: Property) -> None:
    """Record a property.* event (D12) in the caller's transaction.

    Its data is the listing as POST and PATCH /properties answer it; the owner's webhooks
    (and admins') receive it. Every change of a listing or of its record records one, so
    this is also where the cached public reads are made stale (listings.cache).
    """
    public_reads_changed()
    event_record(
        type=event_type,
        payload=property_representation(listing),
        listing_id=listing.pk,
        owner_user_id=listing.owner.user_id,
    )


def _notify_favoriters(*, listing: Property, by: User, title: str, message: str) -> list[User]:
    """Tell every user who saved the listing (but the one who changed it), with one insert;
    returns them."""
    users = list(User.objects.filter(favorites__property=listing).exclude(pk=by.pk).order_by("pk"))
    if users:
        notification_send_bulk(
            users=users,
            property=listing,
            status=NotificationStatus.INFO,
            title=title,
            message=message,
        )
    return users


def _price_changed(*, listing: Property, previous_price: Decimal, by: User) -> None:
    """Record a new price in the listing's history. A lower price on an AVAILABLE listing
    also tells those who saved it (in-app and by email), records property.price_dropped and
    queues the alerts of the saved searches it may now match."""
    PriceChange.objects.create(property=listing, previous_price=previous_price, price=listing.price)
    if not (listing.price < previous_price and listing.status == PropertyStatus.AVAILABLE):
        return
    favoriters = _notify_favoriters(
        listing=listing,
        by=by,
        title=gettext_lazy("Price drop"),
        message=format_lazy(
            gettext_lazy("“{title}”, which you saved, now costs {price} instead of {previous}."),
            title=listing.title,
            price=price_format_lazy(listing.price),
            previous=price_format_lazy(previous_price),
        ),
    )
    price_drop_emails_enqueue(listing=listing, previous_price=previous_price, users=favoriters)
    event_record(
        type=EventType.PROPERTY_PRICE_DROPPED,
        # The price before is a JSON number, as the listing's own price is.
        payload={**property_representation(listing), "previousPrice": json_value(previous_price)},
        listing_id=listing.pk,
        owner_user_id=listing.owner.user_id,
    )
    listing_alerts_enqueue(listing_id=listing.pk)


def _owner_for_new_listing(*, by: User, owner: Owner | None) -> Owner:
    """ownerId defaults to the caller's Owner record; another owner's is for admins only (D7)."""
    if _is_admin(by):
        if owner is None:
            raise ValidationFailed(
                gettext_lazy("An administrator must say which owner the listing is for."),
                field="ownerId",
            )
        return owner
    if by.user_type != UserType.OWNER:
        raise PermissionRefused(gettext_lazy("Only owners create listings."))
    own = Owner.objects.get(user=by)
    if owner is not None and owner.pk != own.pk:
        raise PermissionRefused(
            gettext_lazy("You may create listings only for yourself."), field="ownerId"
        )
    return own


@transaction.atomic
def property_create(
    *,
    by: User,
    title: str,
    description: str,
    price: Decimal,
    latitude: float,
    longitude: float,
    transaction_type: str,
    municipality: str,
    address: str,
    area: Decimal,
    category: PropertyCategory,
    owner: Owner | None = None,
) -> Property:
    """Step 1 of a listing: the common fields. It starts PENDING moderation (D10)."""
    listing = Property.objects.create(
        owner=_owner_for_new_listing(by=by, owner=owner),
        category=category,
        title=title,
        slug=listing_slug(title=title, kind=None),
        description=description,
        price=price,
        latitude=latitude,
        longitude=longitude,
        transaction_type=transaction_type,
        municipality=municipality,
        address=address,
        area=area,
        status=PropertyStatus.PENDING,
    )
    _record_event(EventType.PROPERTY_CREATED, listing)
    return listing


def _lock(property: Property) -> Property:
    """Re-read the listing under a row lock so concurrent changes apply one after the other.

    Only the listing's row is locked, and with FOR NO KEY UPDATE: rows that merely refer to
    it (a favorite, a visit, a notification being inserted elsewhere) take the weaker key
    share lock, which this one lets through, so they neither wait nor deadlock on it.
    """
    return (
        Property.objects.select_for_update(no_key=True, of=("self",))
        .select_related("owner")
        .get(pk=property.pk)
    )


@transaction.atomic
def property_update(
    *,
    property: Property,
    by: User,
    changes: dict,
    category: PropertyCategory | None = None,
    owner: Owner | None = None,
    status: str | None = None,
) -> Property:
    """Change a listing's common fields, and optionally its status, in one transaction.

    `changes` maps names of PROPERTY_FIELDS to new values. Moving the listing to another
    owner is for admins. A status in the same call goes through property_change_status, so
    a forbidden move leaves every field unchanged.

    A real change records property.updated (D12); a new price is kept in the listing's
    history, and a lower one on an AVAILABLE listing alerts (_price_changed), in the same
    transaction.
    """
    _require_manager(property=property, by=by)
    listing = _lock(property)
    previous_price = listing.price
    unknown = set(changes) - set(PROPERTY_FIELDS)
    if unknown:
        raise ValueError(f"Not common fields of a listing: {sorted(unknown)}")
    new_type = changes.get("transaction_type", listing.transaction_type)
    if new_type != listing.transaction_type and listing.status in (
        PropertyStatus.SOLD,
        PropertyStatus.RENTED,
    ):
        raise Conflict(
            gettext_lazy("The transaction type of a sold or rented listing cannot change."),
            field="transactionType",
        )
    # Only values that differ count as a change: a PATCH that changes nothing (for example
    # only the current status) is a no-op and leaves updatedAt alone (D10).
    changed = False
    for name, value in changes.items():
        if getattr(listing, name) != value:
            setattr(listing, name, value)
            changed = True
    if changed:
        listing.slug = listing_slug(title=listing.title, kind=listing.kind)
    if category is not None and category.pk != listing.category_id:
        listing.category = category
        changed = True
    if owner is not None and owner.pk != listing.owner_id:
        if not _is_admin(by):
            raise PermissionRefused(
                gettext_lazy("Only administrators move a listing to another owner."),
                field="ownerId",
            )
        listing.owner = owner
        changed = True
    if changed:
        listing.save()
        _record_event(EventType.PROPERTY_UPDATED, listing)
        if listing.price != previous_price:
            _price_changed(listing=listing, previous_price=previous_price, by=by)
    if status is not None:
        listing = property_change_status(property=listing, by=by, status=status)
    return listing


@transaction.atomic
def property_change_status(
    *, property: Property, by: User, status: str, reason: str | None = None
) -> Property:
    """Move a listing along the state machine of D10, and log the move.

    A move the table does not list is 409 invalid_transition (the detail names the allowed
    next statuses); a listed move the caller's role may not make is 403; a move to the
    current status changes nothing and logs nothing.

    In the same transaction as the move: one ModerationLog row (who, from, to, `reason`),
    the owner's notification when the listing is approved or suspended, the notification of
    everyone who saved it when it is sold or rented, and the property.status_changed event
    (D12). A listing that becomes AVAILABLE (approved, or back on the market) queues the
    alerts of the saved searches it matches (notifications.alerts).
    """
    _require_manager(property=property, by=by)
    listing = _lock(property)
    if status == listing.status:
        return listing
    allowed = allowed_next_statuses(
        current=listing.status, transaction_type=listing.transaction_type
    )
    if status not in allowed:
        allowed_text = ", ".join(allowed) if allowed else gettext("none")
        raise InvalidTransition(
            gettext(
                "A %(transaction)s listing cannot move from %(current)s to %(status)s. "
                "Allowed next statuses: %(allowed)s."
            )
            % {
                "transaction": listing.transaction_type,
                "current": listing.status,
                "status": status,
                "allowed": allowed_text,
            },
            field="status",
        )
    role = ADMIN if _is_admin(by) else OWNER
    if role not in PROPERTY_MOVES[listing.status][status].roles:
        raise PermissionRefused(
            gettext("Only an administrator may move a listing from %(current)s to %(status)s.")
            % {"current": listing.status, "status": status},
            field="status",
        )
    previous = listing.status
    listing.status = status
    listing.save(update_fields=["status", "updated_at"])
    ModerationLog.objects.create(
        property=listing,
        actor=by,
        actor_email=by.email,
        from_status=previous,
        to_status=status,
        reason=reason or "",
    )
    _notify_owner_of_moderation(listing=listing, previous=previous, reason=reason)
    if status in CLOSING_MESSAGES:
        title, message = CLOSING_MESSAGES[status]
        _notify_favoriters(
            listing=listing, by=by, title=title, message=format_lazy(message, title=listing.title)
        )
    _record_event(EventType.PROPERTY_STATUS_CHANGED, listing)
    if status == PropertyStatus.AVAILABLE:
        listing_alerts_enqueue(listing_id=listing.pk)
    return listing


# What those who saved a listing are told when it leaves the market (D12).
CLOSING_MESSAGES = {
    PropertyStatus.SOLD: (
        gettext_lazy("Listing sold"),
        gettext_lazy("“{title}”, which you saved, was sold."),
    ),
    PropertyStatus.RENTED: (
        gettext_lazy("Listing rented"),
        gettext_lazy("“{title}”, which you saved, was rented."),
    ),
}


def _notify_owner_of_moderation(*, listing: Property, previous: str, reason: str | None) -> None:
    """Tell the owner that moderation approved (PENDING to AVAILABLE) or suspended the listing:
    an in-app notification and an email (topic listings, docs/email.md)."""
    if previous == PropertyStatus.PENDING and listing.status == PropertyStatus.AVAILABLE:
        notification_send(
            user=listing.owner.user,
            property=listing,
            status=NotificationStatus.SUCCESS,
            title=gettext_lazy("Listing approved"),
            message=format_lazy(
                gettext_lazy("Your listing “{title}” was approved and is now public."),
                title=listing.title,
            ),
        )
        _email_owner_of_moderation(listing=listing, template="listing_approved")
    elif listing.status == PropertyStatus.SUSPENDED:
        because = (
            format_lazy(gettext_lazy("Reason: {reason}"), reason=reason)
            if reason
            else gettext_lazy("No reason was given.")
        )
        notification_send(
            user=listing.owner.user,
            property=listing,
            status=NotificationStatus.WARNING,
            title=gettext_lazy("Listing suspended"),
            message=format_lazy(
                gettext_lazy("Your listing “{title}” was suspended and is hidden. {because}"),
                title=listing.title,
                because=because,
            ),
        )
        _email_owner_of_moderation(listing=listing, template="listing_suspended", reason=reason)


# The subjects of the moderation emails, in the owner's language (email_compose).
MODERATION_SUBJECTS = {
    "listing_approved": gettext_lazy("Listing approved: {title}"),
    "listing_suspended": gettext_lazy("Listing suspended: {title}"),
}


def _email_owner_of_moderation(
    *, listing: Property, template: str, reason: str | None = None
) -> None:
    """Queue the email of a moderation decision to the listing's owner, when they may get it;
    it links the listing's page, which its owner sees even while it is hidden."""
    url = absolute_url("listings:detail", listing.pk, listing.slug)
    user_email_send(
        user=listing.owner.user,
        topic=EmailTopic.LISTINGS,
        subject=format_lazy(MODERATION_SUBJECTS[template], title=listing.title),
        template=template,
        context={"listing_title": listing.title, "listing_url": url, "reason": reason or ""},
    )


@transaction.atomic
def property_delete(*, property: Property, by: User) -> None:
    """Delete a listing and everything on it (D14); its media files go after the commit.

    The property.deleted event carries the listing as it was; its id is kept as a
    DeletedListing, so its page answers 410 Gone.
    """
    _require_manager(property=property, by=by)
    # The file names are read (under the listing's lock) before the rows cascade away.
    files = media_files_for_deletion(properties=Property.objects.filter(pk=property.pk))
    _record_event(EventType.PROPERTY_DELETED, property)
    # Its page answers 410 Gone from now on (listings.views.detail).
    DeletedListing.objects.get_or_create(pk=property.pk)
    property.delete()
    media_files_delete_on_commit(files)


def _copy_record_facts(listing: Property, record: TypeSpecificRecord | None) -> None:
    """Keep the listing's copies of its record's kind and bedrooms (None without a record),
    and its slug, which may come from the kind.

    The `type` and `minBedrooms` filters read them from the listing, without a join; they
    are written here, in the record's transaction, and nowhere else.
    """
    kind = record.kind if record else None
    copies = {
        "kind": kind,
        "bedrooms": record.bedrooms if record else None,
        # A title without a Latin letter takes its slug from the kind.
        "slug": listing_slug(title=listing.title, kind=kind),
    }
    if all(getattr(listing, name) == value for name, value in copies.items()):
        return
    Property.objects.filter(pk=listing.pk).update(**copies)
    for name, value in copies.items():
        setattr(listing, name, value)


def _record_values(*, kind: str, values: dict) -> dict:
    unknown = set(values) - set(KIND_FIELDS[kind])
    if unknown:
        raise ValueError(f"Not fields of a {kind}: {sorted(unknown)}")
    return values


@transaction.atomic
def type_record_create(
    *, property: Property, by: User, kind: str, values: dict
) -> TypeSpecificRecord:
    """Step 2 of a listing: its type-specific record; at most one per listing, of any kind (D9)."""
    _require_manager(property=property, by=by)
    listing = _lock(property)
    if TypeSpecificRecord.objects.filter(property=listing).exists():
        raise Conflict(
            gettext_lazy("This listing already has its type-specific record."), field="propertyId"
        )
    try:
        with transaction.atomic():
            record = TypeSpecificRecord.objects.create(
                property=listing, kind=kind, **_record_values(kind=kind, values=values)
            )
    except IntegrityError as error:
        raise Conflict(
            gettext_lazy("This listing already has its type-specific record."), field="propertyId"
        ) from error
    _copy_record_facts(listing, record)
    # The listing's `type` changed: its webhooks hear property.updated.
    _record_event(EventType.PROPERTY_UPDATED, listing)
    return record


@transaction.atomic
def type_record_update(*, record: TypeSpecificRecord, by: User, values: dict) -> TypeSpecificRecord:
    """Change some facts of a type-specific record (the listing's property.updated)."""
    _require_manager(property=record.property, by=by)
    for name, value in _record_values(kind=record.kind, values=values).items():
        setattr(record, name, value)
    record.save()
    listing = _lock(record.property)
    _copy_record_facts(listing, record)
    _record_event(EventType.PROPERTY_UPDATED, listing)
    return record


@transaction.atomic
def type_record_delete(*, record: TypeSpecificRecord, by: User) -> None:
    """Remove a type-specific record; the listing's type becomes null (property.updated)."""
    _require_manager(property=record.property, by=by)
    listing = _lock(record.property)
    record.delete()
    _copy_record_facts(listing, None)
    _record_event(EventType.PROPERTY_UPDATED, listing)
