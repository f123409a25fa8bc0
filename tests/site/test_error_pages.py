"""Error pages in the site's style; under /api/ the answers stay problem documents."""

import pytest
from django.test import Client
from django.urls import path

from config import urls as root_urls

pytestmark = pytest.mark.django_db


def explode(request):
    raise RuntimeError("a bug")


# The project's routes plus one that fails, to see the 500 handlers at work.
urlpatterns = [
    path("boom/", explode),
    *root_urls.urlpatterns,
]
handler404 = root_urls.handler404
handler403 = root_urls.handler403
handler500 = root_urls.handler500


def test_unknown_page_is_the_sites_404(client):
    response = client.get("/no-such-page/")

    assert response.status_code == 404
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert "<h1>Page not found</h1>" in response.text
    assert 'class="site-header"' in response.text


def test_unknown_api_path_is_still_a_problem_document(client):
    response = client.get("/api/v1/no-such-thing")

    assert response.status_code == 404
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "not_found"


def test_unknown_listing_is_the_sites_404(client):
    response = client.get("/en/listings/doesnotexist00000000000000/")

    assert response.status_code == 404
    assert "<h1>Page not found</h1>" in response.text


def test_forbidden_page_says_why(customer_session):
    response = customer_session.get("/en/owner/listings/")

    assert response.status_code == 403
    assert "<h1>Not allowed</h1>" in response.text


def test_a_bug_shows_the_sites_500_page_without_details(settings):
    settings.ROOT_URLCONF = __name__
    client = Client(raise_request_exception=False)

    response = client.get("/boom/")

    assert response.status_code == 500
    assert "<h1>Something went wrong</h1>" in response.text
    assert "a bug" not in response.text
