"""Website routes of listings: the listing page and the owner area's listing pages."""

from django.urls import path

from listings import views

app_name = "listings"

urlpatterns = [
    path("listings/<str:pk>/", views.detail, name="detail"),
    path("owner/listings/", views.owner_listings, name="owner-list"),
    path("owner/listings/new/", views.create, name="owner-create"),
    path("owner/listings/<str:pk>/edit/", views.edit, name="owner-edit"),
    path("owner/listings/<str:pk>/details/", views.details, name="owner-details"),
    path("owner/listings/<str:pk>/status/", views.change_status, name="owner-status"),
]
