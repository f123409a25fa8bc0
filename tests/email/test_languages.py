"""Each email speaks its recipient's language, whatever the language of the request that
caused it: its subject, its texts and the /en/ or /es/ prefix of its links."""

import pytest

from accounts.models import User
from listings.models import Property, PropertyStatus
from tests.appointments.support import APPOINTMENTS_URL, at, iso
from tests.email.test_visit_and_listing_emails import TITLE, confirm_address
from tests.factories import ListingFactory
from tests.properties.support import property_url
from tests.webhooks.support import run_ready_tasks

pytestmark = pytest.mark.django_db


@pytest.fixture
def pending_listing(owner_record) -> Property:
    """A PENDING listing of `owner`, waiting for moderation."""
    return ListingFactory(owner=owner_record, title=TITLE, status=PropertyStatus.PENDING)


def approve(admin_client, listing: Property, *, accept_language: str) -> None:
    response = admin_client.patch(
        property_url(listing.id),
        {"status": PropertyStatus.AVAILABLE},
        format="json",
        headers={"accept-language": accept_language},
    )
    assert response.status_code == 200, response.content
    run_ready_tasks()


def bodies(message) -> tuple[str, str]:
    text = message.get_body(preferencelist=("plain",)).get_content()
    html = message.get_body(preferencelist=("html",)).get_content()
    return text, html


def test_an_owner_who_reads_spanish_gets_the_approval_in_spanish(
    admin_client, owner, pending_listing, smtp_server, settings
):
    # given an owner whose emails are in Spanish
    User.objects.filter(pk=owner.pk).update(language="es")
    confirm_address(owner)

    # when an administrator, whose browser asks for English, approves the listing
    approve(admin_client, pending_listing, accept_language="en")

    # then the email is in Spanish, and its links open the Spanish pages
    [message] = smtp_server.messages
    assert message["Subject"] == f"Estate: Anuncio aprobado: {TITLE}"
    text, html = bodies(message)
    listing_url = f"{settings.SITE_URL}/es/listings/{pending_listing.id}/{pending_listing.slug}/"
    assert f"Hola, {owner.name}:" in text and f"Hola, {owner.name}:" in html
    assert f"tu anuncio «{TITLE}» ha sido aprobado y ya es público:" in text
    assert listing_url in text and f'href="{listing_url}"' in html
    assert '<html lang="es">' in html
    assert f"Tus preferencias de correo: {settings.SITE_URL}/es/me/email/" in text
    assert message["List-Unsubscribe"].startswith(f"<{settings.SITE_URL}/es/email/unsubscribe/")


def test_an_owner_who_reads_english_gets_english_from_a_spanish_request(
    admin_client, owner, pending_listing, smtp_server, settings
):
    # given an owner whose emails are in English
    confirm_address(owner)

    # when an administrator whose browser asks for Spanish approves the listing
    approve(admin_client, pending_listing, accept_language="es")

    # then the email is in English
    [message] = smtp_server.messages
    assert message["Subject"] == f"Estate: Listing approved: {TITLE}"
    text, html = bodies(message)
    assert f"Hello {owner.name}," in text
    assert f"{settings.SITE_URL}/en/listings/{pending_listing.id}/" in text
    assert '<html lang="en">' in html


def test_a_visit_email_writes_its_date_in_the_recipients_language(
    customer_client, customer, owner, listing, smtp_server
):
    # given an owner whose emails are in Spanish
    User.objects.filter(pk=owner.pk).update(language="es")
    confirm_address(customer, owner)

    # when a customer whose browser asks for English asks for a visit
    response = customer_client.post(
        APPOINTMENTS_URL,
        {"date": iso(at(0)), "propertyId": listing.id},
        format="json",
        headers={"accept-language": "en"},
    )
    run_ready_tasks()

    # then the owner reads its day and time the Spanish way, in UTC
    assert response.status_code == 201, response.content
    [message] = smtp_server.messages
    text, html = bodies(message)
    when = "miércoles, 14 de mayo de 2031, 10:00 UTC"
    assert f"ha pedido visitar «{TITLE}» el {when}." in text
    assert when in html
