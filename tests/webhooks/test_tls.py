"""https targets: the checked address is connected to, the host name goes in SNI, and the
receiver's certificate must be valid for that name."""

import pytest

from accounts.models import Owner
from listings.services import property_update
from notifications.models import DeliveryErrorKind, DeliveryStatus, WebhookDelivery
from notifications.services import webhook_register
from tests.factories import ListingFactory
from tests.webhooks.support import HOST_NAME, SECRET, Receiver, run_ready_tasks

pytestmark = pytest.mark.django_db


@pytest.fixture
def tls_receiver(server_tls):
    """An https receiver on 127.0.0.1 with that certificate; `server_names` records SNI."""
    server_names: list[str | None] = []
    server_tls.sni_callback = lambda _socket, name, _context: server_names.append(name)
    server = Receiver(tls=server_tls)
    server.server_names = server_names
    server.start()
    yield server
    server.stop()


def deliver_once(owner, url: str) -> WebhookDelivery:
    endpoint = webhook_register(by=owner, url=url, events=["*"], secret=SECRET)
    listing = ListingFactory(owner=Owner.objects.get(user=owner))
    property_update(property=listing, by=owner, changes={"title": "Renamed"})
    run_ready_tasks()
    return WebhookDelivery.objects.get(endpoint=endpoint)


def test_https_goes_to_the_checked_address_with_the_name_in_sni(
    owner, tls_receiver, certificate, settings, host_name_resolves_to_loopback
):
    # given receivers' certificates trusted from the receiver's own certificate
    settings.WEBHOOKS_CA_BUNDLE = str(certificate[0])

    # when an event is delivered to https://hooks.example.test:<port>/hook
    delivery = deliver_once(owner, tls_receiver.url(host=HOST_NAME))

    # then it arrived over TLS for that name
    assert delivery.status == DeliveryStatus.SUCCEEDED
    assert tls_receiver.server_names == [HOST_NAME]
    [request] = tls_receiver.received()
    assert request.headers["host"] == f"{HOST_NAME}:{tls_receiver.port}"


def test_an_untrusted_certificate_is_a_tls_error(
    owner, tls_receiver, settings, host_name_resolves_to_loopback
):
    # given the system's CAs only, which do not know the receiver's certificate
    settings.WEBHOOKS_CA_BUNDLE = ""
    settings.WEBHOOKS_RETRY_SCHEDULE = [60.0]

    # when an event is delivered
    delivery = deliver_once(owner, tls_receiver.url(host=HOST_NAME))

    # then the handshake failed and nothing was sent
    assert delivery.last_error == DeliveryErrorKind.TLS_ERROR
    assert delivery.status == DeliveryStatus.PENDING
    assert tls_receiver.requests == []


def test_a_certificate_for_another_name_is_a_tls_error(owner, tls_receiver, certificate, settings):
    # given a trusted certificate for hooks.example.test, reached as 127.0.0.1
    settings.WEBHOOKS_CA_BUNDLE = str(certificate[0])
    settings.WEBHOOKS_RETRY_SCHEDULE = [60.0]

    # when an event is delivered to https://127.0.0.1:<port>/hook
    delivery = deliver_once(owner, tls_receiver.url())

    # then the name check failed and nothing was sent
    assert delivery.last_error == DeliveryErrorKind.TLS_ERROR
    assert tls_receiver.requests == []
