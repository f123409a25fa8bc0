"""Back office of listings: the moderation queue, categories and the moderation log.

Every write calls listings.services (property_create, property_update,
property_change_status, property_delete, category_*): the admin shows the rules'
answers, it never re-implements them.
"""

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import ActionLocation, helpers
from django.contrib.admin.views.main import ChangeList
from django.db import transaction
from django.db.models import Case, Count, Prefetch, QuerySet, Value, When
from django.template.response import TemplateResponse
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from accounts.models import Owner
from config.admin import ReadOnlyModelAdmin, ServiceModelAdmin, adopt_saved
from config.errors import Conflict, DomainError
from listings import services
from listings.models import (
    KIND_FIELDS,
    RECORD_FIELDS,
    DeletedListing,
    MapCell,
    ModerationLog,
    Place,
    PriceChange,
    Property,
    PropertyCategory,
    PropertyDailyViews,
    PropertyStatus,
    PropertyViewsBatch,
    PublicListingDay,
    PublicListingGroup,
    TypeSpecificRecord,
)
from listings.rules import allowed_next_statuses
from media_app import services as media_services
from media_app.admin import ImageInline, VideoInline, image_preview_tag
from media_app.models import GALLERY_ORDER, Image, Video

# Suspending hides a listing from everyone but its owner: the owner is told why (D12).
SUSPEND_REASON_REQUIRED = _("A reason is required to suspend a listing; nothing was suspended.")
REASON_MAX_LENGTH = 1000
BOTH_PLACES = [ActionLocation.CHANGE_LIST, ActionLocation.CHANGE_FORM]


@admin.register(PropertyCategory)
class PropertyCategoryAdmin(ServiceModelAdmin):
    """Categories (D15): created, renamed and deleted through the category services.

    A category that listings use cannot be deleted (D14): the delete page and the bulk
    delete action say so and keep it.
    """

    list_display = ["name", "description", "listing_count"]
    search_fields = ["name", "description"]
    fields = ["name", "description", "created_at", "updated_at"]
    readonly_fields = ["created_at", "updated_at"]

    def get_queryset(self, request) -> QuerySet[PropertyCategory]:
        return super().get_queryset(request).annotate(listing_count=Count("properties"))

    @admin.display(description=_("listings"), ordering="listing_count")
    def listing_count(self, category: PropertyCategory) -> int:
        return category.listing_count

    def save_model(self, request, obj, form, change) -> None:
        if change:
            services.category_update(category=obj, name=obj.name, description=obj.description)
        else:
            created = services.category_create(name=obj.name, description=obj.description)
            adopt_saved(obj, created)

    def get_deleted_objects(self, objs, request):
        # Categories in use are refused before Django's collector walks every listing of
        # them (a large category would make a very long confirmation page).
        in_use = (
            PropertyCategory.objects.filter(pk__in=[category.pk for category in objs])
            .annotate(used_by=Count("properties"))
            .filter(used_by__gt=0)
            .order_by("name")
        )
        protected = [
            ngettext(
                "%(category)s: used by %(count)d listing",
                "%(category)s: used by %(count)d listings",
                category.used_by,
            )
            % {"category": category.name, "count": category.used_by}
            for category in in_use
        ]
        if protected:
            names = ", ".join(f"“{category.name}”" for category in in_use)
            self.message_user(request, f"{names}: {services.CATEGORY_IN_USE}", messages.ERROR)
            return [], {}, set(), protected
        return super().get_deleted_objects(objs, request)

    def delete_model(self, request, obj) -> None:
        services.category_delete(category=obj)

    def delete_queryset(self, request, queryset) -> None:
        # Reached only when none was in use at confirmation; a listing filed under one of
        # them since then makes the service refuse that one, which is reported.
        for category in queryset:
            try:
                services.category_delete(category=category)
            except Conflict as error:
                self.message_user(request, f"“{category.name}”: {error.detail}", messages.ERROR)


class TypeSpecificRecordForm(forms.ModelForm):
    """A record fills exactly the columns of its kind (KIND_FIELDS, held by a check constraint).

    Said field by field here, because the database's check cannot name the field, and a
    yes/no column left "Unknown" would otherwise reach it.
    """

    class Meta:
        model = TypeSpecificRecord
        fields = ["kind", *RECORD_FIELDS]

    def clean(self):
        cleaned = super().clean()
        kind = cleaned.get("kind") or self.instance.kind
        own = KIND_FIELDS.get(kind, ())
        for name in (name for name in RECORD_FIELDS if name in self.fields):
            if name in own and cleaned.get(name) is None:
                self.add_error(name, gettext("A %(kind)s record needs this.") % {"kind": kind})
            elif name not in own and cleaned.get(name) not in (None, ""):
                self.add_error(
                    name, gettext("A %(kind)s record does not have this.") % {"kind": kind}
                )
        return cleaned


class TypeSpecificRecordInline(admin.StackedInline):
    """The listing's type-specific record (D9), showing only the columns of its kind."""

    model = TypeSpecificRecord
    form = TypeSpecificRecordForm
    extra = 0
    max_num = 1

    def get_fields(self, request, obj=None) -> list[str]:
        kind = obj.type if obj is not None else None
        return ["kind", *(KIND_FIELDS[kind] if kind else RECORD_FIELDS)]

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        if obj is not None and obj.type:
            return fieldsets
        # A new record fills exactly the columns of its kind (a check constraint, D9).
        columns = "; ".join(f"{kind}: {', '.join(fields)}" for kind, fields in KIND_FIELDS.items())
        description = gettext("Fill only the columns of the chosen kind. %(columns)s.") % {
            "columns": columns
        }
        return [(None, {**fieldsets[0][1], "description": description})]

    def get_readonly_fields(self, request, obj=None) -> list[str]:
        # A record's kind fixes which columns it fills (a check constraint): it is not edited.
        return ["kind"] if obj is not None and obj.type else []


class ModerationLogInline(admin.TabularInline):
    """The listing's status history, newest first; written only by property_change_status."""

    model = ModerationLog
    extra = 0
    fields = ["created_at", "actor_email", "from_status", "to_status", "reason"]
    readonly_fields = fields
    can_delete = False
    verbose_name = _("status change")
    verbose_name_plural = _("moderation log")

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


class PriceChangeInline(admin.TabularInline):
    """The listing's price history, newest first; written only by property_update."""

    model = PriceChange
    extra = 0
    fields = ["changed_at", "previous_price", "price"]
    readonly_fields = fields
    can_delete = False
    verbose_name = _("price change")
    verbose_name_plural = _("price history")

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


class OwnerFilter(admin.SimpleListFilter):
    """Listings of one owner, chosen by email; the choices cost one query, not one per owner."""

    title = _("owner")
    parameter_name = "owner"

    def lookups(self, request, model_admin) -> list[tuple[str, str]]:
        owners = Owner.objects.filter(pk__in=Property.objects.values("owner_id"))
        return list(owners.order_by("user__email").values_list("pk", "user__email"))

    def queryset(self, request, queryset) -> QuerySet[Property]:
        if self.value():
            return queryset.filter(owner_id=self.value())
        return queryset


def cover_prefetch() -> Prefetch:
    """Each listing's first photo only (a window function), for the thumbnail column."""
    first = Image.objects.order_by(*GALLERY_ORDER)[:1]
    return Prefetch("images", queryset=first, to_attr="admin_cover")


class ListingChangeList(ChangeList):
    """The listings changelist loads each row's cover photo with one query for the page."""

    def apply_select_related(self, queryset):
        return super().apply_select_related(queryset).prefetch_related(cover_prefetch())


class PropertyAdminForm(forms.ModelForm):
    """The listing form; its status changes only through `new_status`, via the service."""

    new_status = forms.ChoiceField(
        required=False,
        label=_("Change status to"),
        help_text=_("Only the moves the state machine allows from the current status."),
    )
    status_reason = forms.CharField(
        required=False,
        max_length=REASON_MAX_LENGTH,
        label=_("Reason"),
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=_("Kept in the moderation log; sent to the owner when suspending (required)."),
    )

    class Meta:
        model = Property
        fields = [*services.PROPERTY_FIELDS, "category", "owner"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        listing = self.instance
        # The choices come from the rule table (listings.rules), read here, enforced by the
        # service: a move that became impossible meanwhile is still refused there.
        allowed = (
            []
            if listing._state.adding
            else allowed_next_statuses(
                current=listing.status, transaction_type=listing.transaction_type
            )
        )
        keep = ("", gettext("Keep %(status)s") % {"status": PropertyStatus(listing.status).label})
        self.fields["new_status"].choices = [
            keep,
            *((status, PropertyStatus(status).label) for status in allowed),
        ]

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("new_status") == PropertyStatus.SUSPENDED and not cleaned.get(
            "status_reason"
        ):
            self.add_error("status_reason", SUSPEND_REASON_REQUIRED)
        return cleaned


def _bare(queryset: QuerySet[Property]) -> QuerySet[Property]:
    """The selected listings with just what an action reports (the service re-reads each)."""
    return queryset.select_related(None).prefetch_related(None).only("id", "title", "status")


class SuspendForm(forms.Form):
    """The reason asked by the Suspend action's confirmation page."""

    reason = forms.CharField(
        label=_("Reason"),
        max_length=REASON_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 4, "cols": 60}),
        help_text=_("Sent to each owner with the notice and kept in the moderation log."),
    )


@admin.register(Property)
class PropertyAdmin(ServiceModelAdmin):
    """The moderation queue: PENDING listings first, oldest first.

    Status moves (the Approve and Suspend actions, and "Change status to" on the form)
    go through listings.services.property_change_status one listing at a time, each in
    its own transaction, so one refused move does not stop the others and is reported.
    """

    form = PropertyAdminForm
    list_display = [
        "thumbnail",
        "title",
        "status",
        "kind",
        "transaction_type",
        "municipality",
        "category",
        "owner_email",
        "price",
        "created_at",
    ]
    list_display_links = ["title"]
    list_filter = [
        "status",
        "type_record__kind",
        "transaction_type",
        "municipality",
        "category",
        OwnerFilter,
    ]
    list_select_related = ["type_record", "category", "owner__user"]
    search_fields = ["title", "address", "municipality", "owner__user__email"]
    ordering = [
        Case(When(status=PropertyStatus.PENDING, then=Value(0)), default=Value(1)).asc(),
        "created_at",
        "id",
    ]
    # Counting every listing on each filtered page is the cost this avoids.
    show_full_result_count = False
    raw_id_fields = ["owner"]
    readonly_fields = ["status", "created_at", "updated_at"]
    inlines = [
        TypeSpecificRecordInline,
        ImageInline,
        VideoInline,
        ModerationLogInline,
        PriceChangeInline,
    ]
    actions = ["approve", "suspend"]

    def get_fieldsets(self, request, obj=None):
        fieldsets = [
            (None, {"fields": ["title", "description", "category", "owner"]}),
            (_("Place"), {"fields": ["address", "municipality", "latitude", "longitude"]}),
            (_("Terms"), {"fields": ["transaction_type", "price", "area"]}),
        ]
        if obj is None:
            return fieldsets
        return [
            *fieldsets,
            (_("Status"), {"fields": ["status", "new_status", "status_reason"]}),
            (_("Dates"), {"fields": ["created_at", "updated_at"]}),
        ]

    def get_changelist(self, request, **kwargs):
        return ListingChangeList

    @admin.display(description=_("photo"))
    def thumbnail(self, listing: Property) -> str:
        cover = getattr(listing, "admin_cover", None)
        if not cover:
            return "—"
        return image_preview_tag(
            cover[0], alt=cover[0].title or gettext("Cover of %(title)s") % {"title": listing.title}
        )

    @admin.display(description=_("type"), ordering="type_record__kind")
    def kind(self, listing: Property) -> str | None:
        return listing.type

    @admin.display(description=_("owner"), ordering="owner__user__email")
    def owner_email(self, listing: Property) -> str:
        return listing.owner.user.email

    def save_model(self, request, obj, form, change) -> None:
        common = {name: getattr(obj, name) for name in services.PROPERTY_FIELDS}
        if not change:
            created = services.property_create(
                by=request.user, owner=obj.owner, category=obj.category, **common
            )
            adopt_saved(obj, created)
            return
        changed = set(form.changed_data)
        listing = services.property_update(
            property=obj,
            by=request.user,
            changes={name: value for name, value in common.items() if name in changed},
            category=obj.category if "category" in changed else None,
            owner=obj.owner if "owner" in changed else None,
        )
        if form.cleaned_data.get("new_status"):
            listing = services.property_change_status(
                property=listing,
                by=request.user,
                status=form.cleaned_data["new_status"],
                reason=form.cleaned_data.get("status_reason", ""),
            )
        adopt_saved(obj, listing)

    def save_formset(self, request, form, formset, change) -> None:
        # The inlines write through services too; the moderation log inline writes nothing.
        if formset.model not in (Image, Video, TypeSpecificRecord):
            super().save_formset(request, form, formset, change)
            return
        # What construct_change_message reads from a formset that saved itself.
        formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []
        if formset.model is TypeSpecificRecord:
            self._save_record_formset(request, form.instance, formset)
        else:
            self._save_media_formset(request, formset)

    def _save_record_formset(self, request, listing: Property, formset) -> None:
        """The type-specific record is added, changed or removed by the listings services."""
        for record_form in formset.forms:
            record = record_form.instance
            if record_form in formset.deleted_forms:
                if not record._state.adding:
                    services.type_record_delete(record=record, by=request.user)
                    formset.deleted_objects.append(record)
                continue
            if not record_form.has_changed():
                continue
            kind = record.kind
            changed = [name for name in KIND_FIELDS[kind] if name in record_form.changed_data]
            values = {name: record_form.cleaned_data[name] for name in changed}
            if record._state.adding:
                created = services.type_record_create(
                    property=listing, by=request.user, kind=kind, values=values
                )
                formset.new_objects.append(created)
            else:
                services.type_record_update(record=record, by=request.user, values=values)
                formset.changed_objects.append((record, changed))

    def _save_media_formset(self, request, formset) -> None:
        """Photos and videos are deleted, retitled and reordered by the media services.

        They keep positions 0..n-1 and remove the files once the deletion commits. Deletions
        go first, then moves in the order of their target positions, so that several
        positions edited at once land where they were typed.
        """
        if formset.model is Image:
            update, delete, keyword = (
                media_services.image_update,
                media_services.image_delete,
                "image",
            )
        else:
            update, delete, keyword = (
                media_services.video_update,
                media_services.video_delete,
                "video",
            )
        for item_form in formset.deleted_forms:
            if item_form.instance.pk is not None:
                delete(**{keyword: item_form.instance}, by=request.user)
                formset.deleted_objects.append(item_form.instance)
        deleted = set(formset.deleted_forms)
        changed = [
            item_form
            for item_form in formset.initial_forms
            if item_form not in deleted and item_form.has_changed()
        ]
        for item_form in sorted(changed, key=lambda item_form: item_form.instance.position):
            fields = set(item_form.changed_data) & {"title", "position"}
            update(
                **{keyword: item_form.instance},
                by=request.user,
                fields=fields,
                title=item_form.cleaned_data.get("title"),
                position=item_form.cleaned_data.get("position"),
            )
            formset.changed_objects.append((item_form.instance, sorted(fields)))

    def delete_model(self, request, obj) -> None:
        services.property_delete(property=obj, by=request.user)

    def delete_queryset(self, request, queryset) -> None:
        for listing in queryset:
            services.property_delete(property=listing, by=request.user)

    @admin.action(
        description=_("Approve selected pending listings"),
        permissions=["change"],
        location=BOTH_PLACES,
    )
    def approve(self, request, queryset) -> None:
        """PENDING to AVAILABLE, listing by listing; listings not pending are left as they are."""
        pending = []
        for listing in _bare(queryset):
            if listing.status == PropertyStatus.PENDING:
                pending.append(listing)
            else:
                self.message_user(
                    request,
                    gettext("“%(title)s” is %(status)s, not pending: left as it is.")
                    % {"title": listing.title, "status": PropertyStatus(listing.status).label},
                    messages.WARNING,
                )
        self._move_each(request, pending, status=PropertyStatus.AVAILABLE, reason="")

    @admin.action(
        description=_("Suspend selected listings (asks for a reason)"),
        permissions=["change"],
        location=BOTH_PLACES,
    )
    def suspend(self, request, queryset):
        """Ask for the reason on a confirmation page, then suspend listing by listing.

        Django's action pattern: the page re-posts the selected ids with `post=yes`; a
        re-post without a reason is refused and the page is shown again.
        """
        listings = list(_bare(queryset))
        if request.POST.get("post") == "yes":
            form = SuspendForm(request.POST)
            if form.is_valid():
                self._move_each(
                    request,
                    listings,
                    status=PropertyStatus.SUSPENDED,
                    reason=form.cleaned_data["reason"],
                )
                return None
            self.message_user(request, SUSPEND_REASON_REQUIRED, messages.ERROR)
        else:
            form = SuspendForm()
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Suspend listings"),
            "subtitle": None,
            "opts": self.opts,
            "listings": listings,
            "form": form,
            "action_name": "suspend",
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "media": self.media,
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(
            request, "admin/listings/property/suspend_confirmation.html", context
        )

    def _move_each(self, request, listings, *, status: str, reason: str) -> None:
        """Move each listing through the service in its own transaction; report each result."""
        moved = []
        for listing in listings:
            if listing.status == status:
                self.message_user(
                    request,
                    gettext("“%(title)s” is already %(status)s.")
                    % {"title": listing.title, "status": PropertyStatus(status).label},
                    messages.INFO,
                )
                continue
            try:
                with transaction.atomic():
                    services.property_change_status(
                        property=listing, by=request.user, status=status, reason=reason
                    )
            except DomainError as error:
                self.message_user(request, f"“{listing.title}”: {error.detail}", messages.ERROR)
            else:
                moved.append(gettext("“%(title)s”") % {"title": listing.title})
        if moved:
            self.message_user(
                request,
                ngettext(
                    "%(status)s: %(count)d listing: %(titles)s.",
                    "%(status)s: %(count)d listings: %(titles)s.",
                    len(moved),
                )
                % {
                    "status": PropertyStatus(status).label,
                    "count": len(moved),
                    "titles": ", ".join(moved),
                },
                messages.SUCCESS,
            )


@admin.register(PriceChange)
class PriceChangeAdmin(ReadOnlyModelAdmin):
    """Every change of every listing's price, newest first; written only by property_update."""

    list_display = ["changed_at", "listing", "previous_price", "price"]
    list_select_related = ["property"]
    search_fields = ["property__title"]
    date_hierarchy = "changed_at"
    show_full_result_count = False
    fields = ["changed_at", "property", "previous_price", "price"]

    @admin.display(description=_("listing"), ordering="property__title")
    def listing(self, change: PriceChange) -> str:
        return change.property.title


@admin.register(ModerationLog)
class ModerationLogAdmin(ReadOnlyModelAdmin):
    """Every status change of every listing, newest first, whoever made it; read only."""

    list_display = [
        "created_at",
        "listing",
        "from_status",
        "to_status",
        "actor_email",
        "short_reason",
    ]
    list_filter = ["to_status", "from_status"]
    list_select_related = ["property"]
    search_fields = ["property__title", "actor_email", "reason"]
    date_hierarchy = "created_at"
    show_full_result_count = False
    fields = [
        "created_at",
        "property",
        "from_status",
        "to_status",
        "actor",
        "actor_email",
        "reason",
    ]

    @admin.display(description=_("listing"), ordering="property__title")
    def listing(self, log: ModerationLog) -> str:
        return log.property.title

    @admin.display(description=_("reason"))
    def short_reason(self, log: ModerationLog) -> str:
        return log.reason if len(log.reason) <= 80 else f"{log.reason[:79]}…"


@admin.register(TypeSpecificRecord)
class TypeSpecificRecordAdmin(ReadOnlyModelAdmin):
    """All type-specific records by kind; they are edited on their listing's page."""

    list_display = ["id", "kind", "listing"]
    list_filter = ["kind"]
    list_select_related = ["property"]
    search_fields = ["property__title"]

    @admin.display(description=_("listing"))
    def listing(self, record: TypeSpecificRecord) -> str:
        return record.property.title


@admin.register(PublicListingGroup)
class PublicListingGroupAdmin(ReadOnlyModelAdmin):
    """How many public listings each search group holds (listings.search.groups): kept by the
    database with every write, never by hand; read here to see the public market."""

    list_display = [
        "transaction_type",
        "kind",
        "municipality_key",
        "category_key",
        "bedrooms_key",
        "price_band",
        "listings",
    ]
    list_filter = ["transaction_type", "kind"]
    search_fields = ["municipality_key"]
    ordering = ["transaction_type", "kind", "municipality_key", "price_band"]


@admin.register(PublicListingDay)
class PublicListingDayAdmin(ReadOnlyModelAdmin):
    """How many public listings were created each day (listings.search.days): kept by the
    database with every write, never by hand."""

    list_display = ["day", "listings"]
    date_hierarchy = "day"
    ordering = ["-day"]


@admin.register(MapCell)
class MapCellAdmin(ReadOnlyModelAdmin):
    """The public listings in each cell of the stored map grids (listings.search.cells):
    kept by the database with every write, never by hand."""

    list_display = [
        "level",
        "row",
        "column",
        "transaction_type",
        "kind",
        "listings",
        "lowest_price",
    ]
    list_filter = ["level", "transaction_type", "kind"]
    ordering = ["level", "row", "column", "transaction_type", "kind"]


@admin.register(Place)
class PlaceAdmin(ReadOnlyModelAdmin):
    """The towns the search box suggests, with their public listings (listings.places): kept
    by the database with every write, never by hand."""

    list_display = ["name", "listings", "folded"]
    search_fields = ["folded"]
    ordering = ["-listings", "key"]


@admin.register(PropertyDailyViews)
class PropertyDailyViewsAdmin(ReadOnlyModelAdmin):
    """Views of each listing's page a day (owner statistics, listings.statistics): written
    only by the flush of the counted views."""

    list_display = ["day", "property", "views"]
    list_select_related = ["property"]
    search_fields = ["property__title"]
    date_hierarchy = "day"
    show_full_result_count = False
    ordering = ["-day", "property"]


@admin.register(PropertyViewsBatch)
class PropertyViewsBatchAdmin(ReadOnlyModelAdmin):
    """The batches of views already added to the daily table, so that none is added twice
    (listings.statistics)."""

    list_display = ["id", "created_at"]
    ordering = ["-created_at"]


@admin.register(DeletedListing)
class DeletedListingAdmin(ReadOnlyModelAdmin):
    """The ids of deleted listings, whose addresses answer 410 Gone (docs/website.md)."""

    list_display = ["id", "deleted_at"]
    search_fields = ["id"]
    ordering = ["-deleted_at"]
