"""Website routes of listings: the listing page and the owner area's listing pages."""

from django.urls import path, re_path

from listings import views
from listings.models import RESERVED_SLUGS

# A listing's id, then its slug unless the segment is one of the routes that follow an id
# (POST /listings/<id>/favorite/ and /visit/, in favorites and appointments).
RESERVED = "|".join(sorted(RESERVED_SLUGS))
DETAIL = rf"^listings/(?P<pk>[a-z0-9]+)/(?!(?:{RESERVED})/)(?P<slug>[-a-zA-Z0-9_]+)/$"

app_name = "listings"

urlpatterns = [
    # The canonical address carries a readable slug (listings.models.listing_url); the
    # short one and a wrong slug answer 301 to it.
    re_path(DETAIL, views.detail, name="detail"),
    path("listings/<str:pk>/", views.detail, name="short"),
    path("owner/listings/", views.owner_listings, name="owner-list"),
    path("owner/listings/new/", views.create, name="owner-create"),
    path("owner/listings/<str:pk>/edit/", views.edit, name="owner-edit"),
    path("owner/listings/<str:pk>/details/", views.details, name="owner-details"),
    path("owner/listings/<str:pk>/status/", views.change_status, name="owner-status"),
]
