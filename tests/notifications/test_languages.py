"""The platform's in-app notifications are written in their recipient's language, whatever
the language of the request that caused them."""

from decimal import Decimal

import pytest

from accounts.models import User
from appointments.models import Appointment
from listings.services import property_update
from notifications.models import Notification
from tests.appointments.support import APPOINTMENTS_URL, at, iso
from tests.email.test_languages import approve, pending_listing  # noqa: F401 (a fixture)
from tests.email.test_visit_and_listing_emails import TITLE
from tests.webhooks.test_automatic_notifications import listing_of, save, savers  # noqa: F401

pytestmark = pytest.mark.django_db


def test_an_owner_who_reads_spanish_is_told_of_the_approval_in_spanish(
    admin_client,
    owner,
    pending_listing,  # noqa: F811
):
    # given an owner who reads Spanish
    User.objects.filter(pk=owner.pk).update(language="es")

    # when an administrator whose browser asks for English approves the listing
    approve(admin_client, pending_listing, accept_language="en")

    # then the owner's notification is in Spanish
    notification = Notification.objects.get(user=owner)
    assert (notification.title, notification.message) == (
        "Anuncio aprobado",
        f"Tu anuncio «{TITLE}» ha sido aprobado y ya es público.",
    )


def test_a_visit_request_is_told_in_the_owners_language_with_its_date(
    customer_client, customer, owner, listing
):
    # given an owner who reads Spanish
    User.objects.filter(pk=owner.pk).update(language="es")

    # when a customer whose browser asks for English asks for a visit
    response = customer_client.post(
        APPOINTMENTS_URL,
        {"date": iso(at(0)), "propertyId": listing.id},
        format="json",
        headers={"accept-language": "en"},
    )

    # then the owner's notification is in Spanish, its day and time written the Spanish way
    assert response.status_code == 201, response.content
    assert Appointment.objects.count() == 1
    notification = Notification.objects.get(user=owner)
    assert (notification.title, notification.message) == (
        "Nueva solicitud de visita",
        f"{customer.name} ha pedido visitar «{listing.title}» el miércoles, 14 de mayo de "
        "2031, 10:00 UTC.",
    )


def test_a_price_drop_tells_each_saver_in_their_own_language(owner, savers):  # noqa: F811
    # given a listing saved by a customer who reads Spanish and one who reads English
    listing = listing_of(owner)
    spanish, english = savers
    User.objects.filter(pk=spanish.pk).update(language="es")
    spanish.refresh_from_db()
    save(listing, savers)

    # when its owner lowers the price
    property_update(property=listing, by=owner, changes={"price": Decimal("240000")})

    # then each is told in their language, prices written their way
    told = dict(Notification.objects.values_list("user_id", "message"))
    assert told == {
        spanish.pk: "«Loft», que guardaste, ahora cuesta 240.000\xa0€ en lugar de 250.000\xa0€.",
        english.pk: "“Loft”, which you saved, now costs €240,000 instead of €250,000.",
    }
    titles = dict(Notification.objects.values_list("user_id", "title"))
    assert titles == {spanish.pk: "Bajada de precio", english.pk: "Price drop"}
