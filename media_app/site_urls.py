"""Website routes of a listing's photos and videos (owner area)."""

from django.urls import path, re_path

from media_app import site_views

app_name = "media"

KIND = r"(?P<kind>photos|videos)"

urlpatterns = [
    path("owner/listings/<str:pk>/media/", site_views.manage, name="manage"),
    re_path(rf"^owner/listings/(?P<pk>[a-z0-9]+)/{KIND}/$", site_views.upload, name="upload"),
    re_path(
        rf"^owner/listings/(?P<pk>[a-z0-9]+)/{KIND}/(?P<item_id>[a-z0-9]+)/move/$",
        site_views.move,
        name="move",
    ),
    re_path(
        rf"^owner/listings/(?P<pk>[a-z0-9]+)/{KIND}/(?P<item_id>[a-z0-9]+)/delete/$",
        site_views.delete,
        name="delete",
    ),
]
