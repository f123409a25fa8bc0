"""Website routes of notifications."""

from django.urls import path

from notifications import views

app_name = "notifications"

urlpatterns = [
    path("me/notifications/", views.my_notifications, name="list"),
    path("me/notifications/read-all/", views.mark_all_read, name="read-all"),
    path("me/notifications/<str:pk>/read/", views.mark_read, name="read"),
    path("me/saved-searches/", views.my_saved_searches, name="saved-searches"),
    path("me/email/", views.my_email_preferences, name="email-preferences"),
    path("email/unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
    path("me/saved-searches/new/", views.save_search, name="save-search"),
    path("me/saved-searches/<str:pk>/", views.change_saved_search, name="change-saved-search"),
    path(
        "me/saved-searches/<str:pk>/delete/",
        views.delete_saved_search,
        name="delete-saved-search",
    ),
]
