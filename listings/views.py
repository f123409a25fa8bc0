"""Website pages of listings: search, the listing page, and the owner area's listing pages.

Visibility comes from listings.selectors (property_visible_to: the API's rule), the search
from listings.search (the API's own), every write from listings.services. A service's
refusal is shown on the page; nothing here re-decides it.
"""

import copy
from dataclasses import replace
from urllib.parse import urlencode

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from appointments.forms import VisitRequestForm
from config.api.throttling import REQUEST_THROTTLES, page_request_wait
from config.errors import DomainError
from config.routers import replica_reads
from config.website import add_domain_error, owner_required
from favorites.selectors import favorite_visible_to
from listings import selectors, seo, services, statistics
from listings.forms import (
    KindForm,
    PropertyForm,
    SearchForm,
    type_record_form_class,
)
from listings.models import (
    Property,
    PropertyStatus,
    PropertyType,
    TypeSpecificRecord,
    listing_url,
)
from listings.rules import OWNER, PROPERTY_MOVES, allowed_next_statuses
from listings.search import listing_search, search_matches, search_query
from listings.search.params import result_window
from media_app.selectors import photo_sources
from notifications.forms import SaveSearchForm, criteria_query, suggested_name
from notifications.models import AlertFrequency

SEARCH_PAGE_SIZE = 12
# The map shows at most this many markers of the current results (one query, whatever the size).
MAP_MARKER_LIMIT = 300
OWNER_PAGE_SIZE = 20


def _map_markers(matches) -> list[dict]:
    """Id, title, price and position of the results for the map: one query of a few columns."""
    rows = matches.values(
        "id", "title", "slug", "price", "transaction_type", "latitude", "longitude"
    )
    return [
        {
            "id": row["id"],
            "title": row["title"],
            "price": str(row["price"]),
            "transactionType": row["transaction_type"],
            "lat": row["latitude"],
            "lng": row["longitude"],
            "url": listing_url(pk=row["id"], slug=row["slug"]),
        }
        for row in rows[:MAP_MARKER_LIMIT]
    ]


def _clusters_url(params) -> str:
    """GET /properties/clusters of the search, for the map when it is zoomed out (the map
    adds its zoom and view, which it intersects with the search's own `bbox`)."""
    query = search_query(replace(params, sort=None))
    return f"{reverse('properties-clusters')}?{urlencode(query)}"


def _save_search_form(params) -> SaveSearchForm | None:
    """ "Save this search" for a search that filters something (a saved search alerts of
    new matches, so one of every listing is not offered)."""
    criteria = search_query(replace(params, sort=None))
    if not criteria:
        return None
    return SaveSearchForm(
        initial={
            "name": suggested_name(params),
            "criteria": criteria_query(criteria),
            "frequency": AlertFrequency.DAILY,
        }
    )


def _deepest_page() -> int:
    """The last page number the search's result window reaches."""
    return max(1, result_window() // SEARCH_PAGE_SIZE)


def _page_number(value: str | None) -> int:
    """The page asked for, from 1, no deeper than the search's result window."""
    try:
        number = int(value or 1)
    except ValueError:
        number = 1
    return min(max(number, 1), _deepest_page())


def _search_description(params) -> str:
    """A filtered search's meta description: what it looks for ("Apartments for rent in
    Madrid"), as a saved search would be named."""
    return _("%(search)s: listings with photos, prices and a map.") % {
        "search": suggested_name(params)
    }


def _search_canonical(request: HttpRequest) -> str:
    """The search's canonical address: its criteria and page, without the order (a sorted
    search shows the same listings)."""
    query = request.GET.copy()
    query.pop("sort", None)
    address = seo.absolute(request.path)
    return f"{address}?{query.urlencode()}" if query else address


@require_GET
@replica_reads()
def search(request: HttpRequest) -> HttpResponse:
    """Home and search page: the API's parameters in the URL, results as cards and on a map.

    The results are listing_search's, the API's own (its count, exact up to a limit and an
    estimate past it, and its pages); queries do not grow with the results. Each search
    counts against the API's rate limits of its reader.
    """
    wait = page_request_wait(request, REQUEST_THROTTLES)
    if wait is not None:
        response = render(request, "429.html", {"seconds": wait}, status=429)
        response["Retry-After"] = str(wait)
        return response
    form = SearchForm(request.GET)
    valid = form.is_valid()
    context = {
        "form": form,
        "kept": form.kept_values(),
        "result": None,
        "listings": [],
        "markers": [],
        "bbox": "",
        "polygon": "",
        "clusters_url": "",
        "save_search": None,
        "filtered": any(value for key, value in request.GET.items() if key != "page"),
    }
    if valid:
        page = _page_number(request.GET.get("page"))
        search = {"viewer": request.user, "params": form.params, "limit": SEARCH_PAGE_SIZE}
        result = listing_search(**search, page=page, read=selectors.property_cards)
        last_page = min(result.pages, _deepest_page())
        if result.total and page > last_page:
            # Past the end: the last page instead.
            result = listing_search(**search, page=last_page, read=selectors.property_cards)
        matches = search_matches(viewer=request.user, params=form.params)
        context.update(
            result=result,
            last_page=last_page,
            listings=result.rows,
            markers=_map_markers(matches) if result.total else [],
            bbox=request.GET.get("bbox", ""),
            polygon=form.params.polygon.as_parameter() if form.params.polygon else "",
            clusters_url=_clusters_url(form.params),
            save_search=_save_search_form(form.params),
            structured_data=seo.search_structured_data(
                listings=result.rows, first_position=(result.page - 1) * SEARCH_PAGE_SIZE + 1
            ),
            page_description=_search_description(form.params) if context["filtered"] else "",
            canonical_url=_search_canonical(request),
        )
    return render(request, "listings/search.html", context, status=200 if valid else 400)


def listing_page(
    request: HttpRequest, listing: Property, *, visit_form=None, status: int = 200
) -> HttpResponse:
    """Render a listing's page; the visit view shows it again with its form's errors."""
    user = request.user
    is_owner = user.is_authenticated and listing.owner.user_id == user.pk
    is_favorite = (
        user.is_authenticated
        and favorite_visible_to(viewer=user).filter(user_id=user.pk, property=listing).exists()
    )
    record = listing.type_record if listing.type else None
    images = list(listing.images.all())
    context = {
        "listing": listing,
        "record": record,
        "images": images,
        # The gallery shows the photos whose files are stored, with their srcset.
        "photos": photo_sources(images),
        "videos": list(listing.videos.all()),
        "is_owner": is_owner,
        "is_favorite": is_favorite,
        # Booking is for AVAILABLE listings and not their owner (D10); the service decides,
        # the page only avoids offering a form that could not succeed.
        "can_request_visit": listing.status == PropertyStatus.AVAILABLE and not is_owner,
        "visit_form": visit_form or VisitRequestForm(),
        "marker": {
            "id": listing.pk,
            "title": listing.title,
            "price": str(listing.price),
            "transactionType": listing.transaction_type,
            "lat": listing.latitude,
            "lng": listing.longitude,
            "url": "",
        },
        # Search engines and link previews (listings.seo): the canonical address whatever
        # address showed the page (a visit form's errors are shown at /visit/).
        "canonical_url": seo.absolute(listing.get_absolute_url()),
        "structured_data": seo.listing_structured_data(
            listing=listing, record=record, images=images
        ),
        "share_image": seo.photo_addresses(images[:1])[0] if images else "",
        "share_image_alt": (images[0].title or listing.title) if images else "",
    }
    return render(request, "listings/detail.html", context, status=status)


def visible_listing(request: HttpRequest, pk: str, *, detail: bool = False) -> Property:
    """A listing the viewer may see, else 404: hidden listings do not exist for others (D7)."""
    listings = selectors.property_visible_to(viewer=request.user)
    if detail:
        listings = selectors.property_detail_loading(listings)
    else:
        listings = listings.select_related("owner")
    return get_object_or_404(listings, pk=pk)


@require_GET
@replica_reads()
def detail(request: HttpRequest, pk: str, slug: str | None = None) -> HttpResponse:
    """A listing's page: gallery, videos, every fact, a map, favorite and visit forms.

    Only the canonical address (listing_url, with the listing's slug) shows it: the short
    one and a wrong slug answer 301 to it, keeping the query. A listing others may not see
    is 404 as in the API (before its slug is told), a deleted one 410 Gone. A sold or rented
    one keeps its page, with a banner saying so.
    """
    try:
        listing = visible_listing(request, pk, detail=True)
    except Http404:
        if selectors.listing_was_deleted(pk=pk):
            return render(request, "410.html", status=410)
        raise
    if slug != listing.slug:
        location = listing.get_absolute_url()
        if request.GET:
            location = f"{location}?{request.GET.urlencode()}"
        return HttpResponsePermanentRedirect(location)
    statistics.property_view_count(
        property=listing, viewer=request.user, user_agent=request.headers.get("User-Agent", "")
    )
    return listing_page(request, listing)


# --- Owner area ------------------------------------------------------------------------


def owned_listing(request: HttpRequest, pk: str) -> Property:
    """One of the signed-in owner's listings (any status), else 404."""
    listings = selectors.property_visible_to(viewer=request.user).filter(
        owner__user_id=request.user.pk
    )
    return get_object_or_404(listings.select_related("owner", "category", "type_record"), pk=pk)


def owner_status_moves(listing: Property) -> list[str]:
    """The statuses the owner may move this listing to, read from the state machine (D10)."""
    return [
        status
        for status in allowed_next_statuses(
            current=listing.status, transaction_type=listing.transaction_type
        )
        if OWNER in PROPERTY_MOVES[listing.status][status].roles
    ]


@owner_required
@require_GET
def owner_listings(request: HttpRequest) -> HttpResponse:
    """My listings, newest first, with their status and what can be done with each."""
    listings = selectors.property_visible_to(viewer=request.user).filter(
        owner__user_id=request.user.pk
    )
    page = Paginator(
        selectors.property_list_loading(listings).order_by("-created_at", "-id"), OWNER_PAGE_SIZE
    ).get_page(request.GET.get("page"))
    rows = [(listing, owner_status_moves(listing)) for listing in page]
    figures = statistics.property_statistics(property_ids=[listing.pk for listing in page])
    context = {
        "page": page,
        "rows": rows,
        "statistics": [(listing, figures[listing.pk]) for listing in page],
    }
    return render(request, "listings/owner/list.html", context)


@owner_required
@require_http_methods(["GET", "POST"])
def create(request: HttpRequest) -> HttpResponse:
    """Step 1 of a new listing: the common fields (property_create); it starts PENDING."""
    form = PropertyForm(request.POST or None)
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            data = dict(form.cleaned_data)
            try:
                listing = services.property_create(
                    by=request.user, category=data.pop("category"), **data
                )
            except DomainError as error:
                add_domain_error(form, error)
                status = error.status_code
            else:
                messages.success(
                    request, _("Step 1 saved. Now tell us what kind of property it is.")
                )
                return redirect("listings:owner-details", pk=listing.pk)
    context = {"form": form, "step": 1, "listing": None}
    return render(request, "listings/owner/form.html", context, status=status)


@owner_required
@require_http_methods(["GET", "POST"])
def edit(request: HttpRequest, pk: str) -> HttpResponse:
    """Change a listing's common fields (property_update)."""
    listing = owned_listing(request, pk)
    # The form validates a copy: the page's heading keeps the saved title while errors show.
    form = PropertyForm(request.POST or None, instance=copy.copy(listing))
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            # The service re-reads the listing under a lock; the form's instance is not saved.
            try:
                services.property_update(
                    property=Property.objects.select_related("owner").get(pk=listing.pk),
                    by=request.user,
                    changes=form.changes(),
                    category=form.cleaned_data["category"],
                )
            except DomainError as error:
                add_domain_error(form, error)
                status = error.status_code
            else:
                messages.success(request, _("Listing saved."))
                return redirect("listings:owner-list")
    context = {"form": form, "step": None, "listing": listing}
    return render(request, "listings/owner/form.html", context, status=status)


@owner_required
@require_http_methods(["GET", "POST"])
def details(request: HttpRequest, pk: str) -> HttpResponse:
    """Step 2: the type-specific facts, with the form of the chosen kind.

    A listing without its record first chooses the kind (?kind=house), then fills that kind's
    form (type_record_create). A listing with one edits it (type_record_update).
    """
    listing = owned_listing(request, pk)
    record: TypeSpecificRecord | None = listing.type_record if listing.type else None
    kind = record.kind if record else request.GET.get("kind") or request.POST.get("kind")
    kind_form = KindForm({"kind": kind} if kind else None)
    if record is None and not kind_form.is_valid():
        context = {"listing": listing, "kind_form": KindForm(), "form": None, "record": None}
        return render(request, "listings/owner/details.html", context)
    form = type_record_form_class(kind)(request.POST or None, instance=record)
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            values = {name: form.cleaned_data[name] for name in form.fields}
            try:
                if record is None:
                    services.type_record_create(
                        property=listing, by=request.user, kind=kind, values=values
                    )
                else:
                    services.type_record_update(record=record, by=request.user, values=values)
            except DomainError as error:
                add_domain_error(form, error)
                status = error.status_code
            else:
                if record is None:
                    messages.success(
                        request, _("Listing created. It is pending review; add photos meanwhile.")
                    )
                    return redirect("media:manage", pk=listing.pk)
                messages.success(request, _("Details saved."))
                return redirect("listings:owner-list")
    context = {
        "listing": listing,
        "kind": kind,
        "kind_label": PropertyType(kind).label,
        "form": form,
        "record": record,
    }
    return render(request, "listings/owner/details.html", context, status=status)


@owner_required
@require_POST
def change_status(request: HttpRequest, pk: str) -> HttpResponse:
    """Mark a listing SOLD or RENTED, or available again (property_change_status)."""
    listing = owned_listing(request, pk)
    status = request.POST.get("status", "")
    try:
        services.property_change_status(property=listing, by=request.user, status=status)
    except DomainError as error:
        messages.error(request, error.detail)
    else:
        label = PropertyStatus(status).label.lower()
        messages.success(
            request, _("“%(title)s” is now %(status)s.") % {"title": listing.title, "status": label}
        )
    return redirect("listings:owner-list")
