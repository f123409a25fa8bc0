"""Website routes of favorites."""

from django.urls import path

from favorites import views

app_name = "favorites"

urlpatterns = [
    path("me/favorites/", views.my_favorites, name="list"),
    path("listings/<str:pk>/favorite/", views.toggle, name="toggle"),
]
