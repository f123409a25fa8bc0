"""The website's two languages: the URL's prefix, the visitor's first choice, the switcher."""

import re
from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from accounts.models import User
from config.money import price_format
from listings.models import Property
from listings.services import property_delete
from tests.factories import ListingFactory, TypeSpecificRecordFactory
from tests.site.conftest import house

pytestmark = pytest.mark.django_db


def in_language(language: str, view_name: str, *args) -> str:
    """The path of a page in one language."""
    with translation.override(language):
        return reverse(view_name, args=args)


@pytest.mark.parametrize(("accept_language", "home"), [("es-ES,es;q=0.9", "/es/"), ("en", "/en/")])
def test_a_first_visit_to_the_root_goes_to_the_browsers_language(accept_language, home):
    response = Client().get("/", headers={"accept-language": accept_language})

    assert (response.status_code, response["Location"]) == (302, home)
    assert in_language(home.strip("/"), "home") == home


def test_a_browser_asking_for_another_language_gets_english():
    response = Client().get("/", headers={"accept-language": "de-DE,de;q=0.9"})

    assert (response.status_code, response["Location"]) == (302, "/en/")


def test_a_page_without_its_prefix_goes_to_the_prefixed_page():
    response = Client().get("/accounts/login/", headers={"accept-language": "es"})

    assert (response.status_code, response["Location"]) == (302, "/es/accounts/login/")


def test_the_api_the_admin_and_the_health_check_have_no_prefix(admin):
    client = Client()

    assert client.get("/healthz").status_code == 200
    assert client.get("/api/v1/properties").status_code == 200
    assert client.get("/admin/login/").status_code == 200
    assert client.get("/es/api/v1/properties").status_code == 404


def test_the_switcher_links_to_the_same_page_in_each_language(listing):
    login_es = in_language("es", "accounts:login")

    page = Client().get(login_es, {"next": "/es/me/favorites/"}).text

    assert '<html lang="es">' in page
    switcher = re.search(
        r'<nav aria-label="[^"]+" class="language-switcher">(.*?)</nav>', page, re.S
    )
    assert switcher is not None
    links = re.findall(r"<a [^>]*>[^<]*</a>", switcher.group(1))
    assert links == [
        f'<a href="{in_language("en", "accounts:login")}?next=%2Fes%2Fme%2Ffavorites%2F" lang="en" '
        'hreflang="en">English</a>',
        f'<a href="{login_es}?next=%2Fes%2Fme%2Ffavorites%2F" lang="es" hreflang="es" '
        'aria-current="true">Español</a>',
    ]


def test_every_page_names_its_versions_in_the_head(listing, settings):
    path = in_language("en", "listings:detail", listing.pk, listing.slug)

    page = Client().get(path).text

    head = page.split("</head>", 1)[0]
    alternates = re.findall(r'<link rel="alternate" hreflang="([^"]+)" href="([^"]+)">', head)
    assert alternates == [
        ("en", f"{settings.SITE_URL}{path}"),
        ("es", settings.SITE_URL + in_language("es", "listings:detail", listing.pk, listing.slug)),
        ("x-default", f"{settings.SITE_URL}{path.removeprefix('/en')}"),
    ]


def test_an_unknown_page_still_offers_the_other_language():
    page = Client().get("/es/no-such-page/").text

    assert '<a href="/en/no-such-page/" lang="en" hreflang="en">English</a>' in page


@pytest.mark.parametrize(
    ("language", "title", "button", "field"),
    [
        ("en", "<title>Log in · Estate</title>", "Log in</button>", ">Password</label>"),
        (
            "es",
            "<title>Iniciar sesión · Estate</title>",
            "Iniciar sesión</button>",
            ">Contraseña</label>",
        ),
    ],
)
def test_a_page_speaks_the_language_of_its_prefix(language, title, button, field):
    page = Client().get(in_language(language, "accounts:login")).text

    assert f'<html lang="{language}">' in page
    assert title in page
    assert button in page
    assert field in page


def test_a_message_after_a_form_follows_the_language(customer):
    client = Client()
    client.force_login(customer)

    response = client.post(in_language("es", "accounts:logout"), follow=True)

    assert response.redirect_chain[-1][0] == in_language("es", "home")
    assert "Has cerrado la sesión." in response.text


def test_signing_up_in_spanish_sends_spanish_emails():
    response = Client().post(
        in_language("es", "accounts:register"),
        {
            "name": "Lucía",
            "email": "lucia@example.com",
            "user_type": "CUSTOMER",
            "password": "a long passphrase",
            "password_again": "a long passphrase",
        },
    )

    assert (response.status_code, response["Location"]) == (302, in_language("es", "home"))
    assert User.objects.get(email="lucia@example.com").language == "es"


def test_the_profile_changes_the_language_of_the_emails(customer):
    client = Client()
    client.force_login(customer)
    profile = in_language("en", "accounts:profile")

    chosen = client.post(profile, {"name": customer.name, "phone": "", "language": "es"})
    refused = client.post(profile, {"name": customer.name, "phone": "", "language": "fr"})

    assert (chosen.status_code, chosen["Location"]) == (302, profile)
    assert refused.status_code == 400
    assert "Select a valid choice. fr is not one of the available choices." in refused.text
    customer.refresh_from_db()
    assert customer.language == "es"


@pytest.mark.parametrize(
    ("language", "amount", "shown"),
    [
        ("en", "1250000", "€1,250,000"),
        ("en", "1250000.50", "€1,250,000.50"),
        ("es", "1250000", "1.250.000\xa0€"),
        ("es", "1250000.50", "1.250.000,50\xa0€"),
    ],
)
def test_a_price_is_written_in_the_languages_way_with_the_currency(language, amount, shown):
    with translation.override(language):
        assert price_format(Decimal(amount)) == shown


def test_the_currency_is_a_setting(settings):
    settings.CURRENCY = "USD"

    with translation.override("en"):
        assert price_format(Decimal("250000")) == "$250,000"


@pytest.mark.parametrize(("language", "shown"), [("en", "€1,250,000"), ("es", "1.250.000\xa0€")])
def test_a_listing_page_shows_its_price_in_the_pages_language(listing, language, shown):
    Property.objects.filter(pk=listing.pk).update(price=Decimal("1250000"))

    page = Client().get(in_language(language, "listings:detail", listing.pk, listing.slug)).text

    assert f'<p class="listing__price">{shown} ' in page


def test_a_sold_listing_and_a_removed_one_speak_spanish(listing, owner):
    Property.objects.filter(pk=listing.pk).update(status="SOLD")
    removed = house(owner, title="Gone flat")
    removed_id = removed.pk
    property_delete(property=removed, by=owner)

    sold = Client().get(in_language("es", "listings:detail", listing.pk, listing.slug))
    gone = Client().get(in_language("es", "listings:short", removed_id))

    assert sold.status_code == 200
    assert (
        "<strong>Vendido.</strong> Este anuncio ya no está en el mercado; su página se "
        "mantiene como referencia."
    ) in sold.text
    assert gone.status_code == 410
    assert "<h1>Este anuncio se ha retirado</h1>" in gone.text


def test_a_services_refusal_on_a_spanish_form_is_in_spanish(customer):
    response = Client().post(
        in_language("es", "accounts:register"),
        {
            "name": "Carla",
            "email": "CARLA@example.com",
            "user_type": "CUSTOMER",
            "password": "a long passphrase",
            "password_again": "a long passphrase",
        },
    )

    assert response.status_code == 409
    assert "Ya existe una cuenta con este correo electrónico." in response.text
    assert "An account with this email already exists." not in response.text


def test_a_listings_facts_and_its_card_speak_spanish():
    record = TypeSpecificRecordFactory(
        kind="house",
        rooms=4,
        bedrooms=1,
        bathrooms=2,
        swimming_pool=True,
        parking_space=False,
        property__status="AVAILABLE",
        property__title="Casa del río",
    )
    listing = record.property

    page = Client().get(in_language("es", "listings:detail", listing.pk, listing.slug)).text
    results = Client().get(in_language("es", "home")).text

    for label, value in [
        ("Habitaciones", "4"),
        ("Dormitorios", "1"),
        ("Baños", "2"),
        ("Piscina", "Sí"),
        ("Plaza de aparcamiento", "No"),
    ]:
        assert f"<dt>{label}</dt><dd>{value}</dd>" in page
    assert "<li>1 dormitorio</li><li>2 baños</li><li>4 habitaciones</li>" in results


def test_step_two_labels_the_facts_in_spanish(owner):
    listing = ListingFactory(owner=owner.owner, status="PENDING")
    client = Client()
    client.force_login(owner)

    page = client.get(
        in_language("es", "listings:owner-details", listing.pk), {"kind": "apartment"}
    ).text

    assert re.findall(r'<label for="id_[a-z_]+"[^>]*>([^<]+)</label>', page) == [
        "Habitaciones",
        "Dormitorios",
        "Baños",
        "Plantas",
    ]
    assert re.findall(r"<legend>([^<]+)</legend>", page) == [
        "Plaza de aparcamiento",
        "Piscina",
        "Balcón",
        "Ascensor",
    ]


def test_the_scripts_catalog_speaks_the_language_of_its_prefix():
    spanish = Client().get(in_language("es", "javascript-catalog"))
    english = Client().get(in_language("en", "javascript-catalog"))

    assert in_language("es", "javascript-catalog") == "/es/jsi18n/"
    assert spanish.status_code == 200
    assert spanish["Content-Type"] == 'text/javascript; charset="utf-8"'
    assert '"Showing each listing.": "Se muestra cada anuncio."' in spanish.text
    assert english.status_code == 200
    assert "Se muestra cada anuncio." not in english.text
    again = Client().get(
        in_language("es", "javascript-catalog"),
        headers={"if-modified-since": spanish["Last-Modified"]},
    )
    assert again.status_code == 304
