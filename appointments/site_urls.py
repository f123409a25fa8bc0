"""Website routes of visits."""

from django.urls import path, re_path

from appointments import views

app_name = "appointments"

urlpatterns = [
    path("listings/<str:pk>/visit/", views.request_visit, name="request"),
    path("me/visits/", views.my_visits, name="mine"),
    path("owner/visits/", views.owner_visits, name="incoming"),
    path("visits/<str:pk>/reschedule/", views.reschedule, name="reschedule"),
    re_path(
        r"^visits/(?P<pk>[a-z0-9]+)/(?P<action>confirm|cancel|complete)/$",
        views.move,
        name="move",
    ),
]
