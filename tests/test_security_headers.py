"""Security headers on every kind of response: API, problem documents, website, admin, docs."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client

from tests.factories import ListingFactory

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parent.parent
EXPECTED_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "media-src 'self'; connect-src 'self'; font-src 'self'; object-src 'none'; "
    "base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)


def paths() -> dict[str, str]:
    listing = ListingFactory(status="AVAILABLE")
    return {
        "API list": "/api/v1/properties",
        "API detail": f"/api/v1/properties/{listing.pk}",
        "API problem (404)": "/api/v1/nothing-here",
        "API problem (400)": "/api/v1/properties?page=0",
        "OpenAPI schema": "/api/v1/schema",
        "home page": "/en/",
        "listing page": f"/properties/{listing.pk}/",
        "admin login": "/admin/login/",
        "health": "/healthz",
    }


def test_every_kind_of_response_carries_the_security_headers():
    # given an anonymous visitor
    client = Client()

    for what, path in paths().items():
        # when
        response = client.get(path)

        # then
        assert response.status_code < 500, what
        assert response["Content-Security-Policy"] == EXPECTED_POLICY, what
        assert response["X-Content-Type-Options"] == "nosniff", what
        assert response["Referrer-Policy"] == "same-origin", what
        assert response["X-Frame-Options"] == "DENY", what


def test_the_api_docs_page_alone_allows_its_inline_script_and_style():
    # when
    response = Client().get("/api/docs")

    # then
    assert response.status_code == 200
    policy = response["Content-Security-Policy"]
    assert "script-src 'self' 'unsafe-inline'" in policy
    assert "style-src 'self' 'unsafe-inline'" in policy
    assert "frame-ancestors 'none'" in policy


def test_production_settings_add_hsts_and_media_and_tile_sources():
    # given production settings with S3 media behind a CDN and a tile server
    script = (
        "import json; from django.conf import settings as s; "
        "print(json.dumps({'hsts': s.SECURE_HSTS_SECONDS, 'sub': s.SECURE_HSTS_INCLUDE_SUBDOMAINS,"
        " 'redirect': s.SECURE_SSL_REDIRECT, 'img': s.SECURE_CSP['img-src'],"
        " 'media': s.SECURE_CSP['media-src']}))"
    )
    environment = {
        "PATH": "/usr/bin:/bin",
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "SECRET_KEY": "a-long-production-secret-for-this-test-only-0123456789abcdef",
        "ALLOWED_HOSTS": "estate.example",
        "AWS_STORAGE_BUCKET_NAME": "media",
        "AWS_S3_CUSTOM_DOMAIN": "media.estate.example",
        "MAP_TILE_URL": "https://tiles.example.org/{z}/{x}/{y}.png",
    }

    # when
    output = subprocess.run(  # noqa: S603 (this interpreter, a fixed script)
        [sys.executable, "-c", f"import django; django.setup(); {script}"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    ).stdout

    # then
    settings = json.loads(output)
    assert settings["hsts"] == 31_536_000
    assert settings["sub"] is True
    assert settings["redirect"] is True
    assert settings["img"] == [
        "'self'",
        "data:",
        "https://media.estate.example",
        "https://tiles.example.org",
    ]
    assert settings["media"] == ["'self'", "https://media.estate.example"]


def test_hsts_is_sent_over_https_with_the_production_values(settings):
    # given the production HSTS values
    settings.SECURE_HSTS_SECONDS = 31_536_000
    settings.SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    settings.SECURE_HSTS_PRELOAD = True

    # when a request arrives over https
    response = Client().get("/healthz", secure=True)

    # then
    assert response["Strict-Transport-Security"] == ("max-age=31536000; includeSubDomains; preload")
