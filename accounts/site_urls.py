"""Website routes of accounts."""

from django.contrib.auth.views import PasswordResetCompleteView, PasswordResetDoneView
from django.urls import path

from accounts import views

app_name = "accounts"

urlpatterns = [
    path("accounts/register/", views.register, name="register"),
    path("accounts/login/", views.login_view, name="login"),
    path("accounts/logout/", views.logout_view, name="logout"),
    path("accounts/profile/", views.profile, name="profile"),
    path("accounts/password/", views.password_change, name="password"),
    path(
        "accounts/email/confirmation/",
        views.email_confirmation_again,
        name="email-confirmation",
    ),
    path("accounts/email/confirm/<str:token>/", views.email_confirm, name="email-confirm"),
    path(
        "accounts/password/forgotten/",
        views.PasswordForgottenView.as_view(),
        name="password-reset",
    ),
    path(
        "accounts/password/forgotten/sent/",
        PasswordResetDoneView.as_view(template_name="accounts/password_reset_done.html"),
        name="password-reset-done",
    ),
    path(
        "accounts/password/reset/<uidb64>/<token>/",
        views.PasswordResetSetView.as_view(),
        name="password-reset-confirm",
    ),
    path(
        "accounts/password/reset/done/",
        PasswordResetCompleteView.as_view(template_name="accounts/password_reset_complete.html"),
        name="password-reset-complete",
    ),
]
