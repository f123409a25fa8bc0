"""Website routes of notifications."""

from django.urls import path

from notifications import views

app_name = "notifications"

urlpatterns = [
    path("me/notifications/", views.my_notifications, name="list"),
    path("me/notifications/read-all/", views.mark_all_read, name="read-all"),
    path("me/notifications/<str:pk>/read/", views.mark_read, name="read"),
]
