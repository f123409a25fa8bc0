"""SSRF protection (D12): with private targets not allowed, every URL that could reach this
machine, its network or anything not public is refused, at registration as at delivery.

Name resolution is faked (no network is needed): a few names resolve as the table says,
numeric hosts resolve as the system resolver reads them (2130706433 is 127.0.0.1), and
localhost as /etc/hosts says.
"""

import socket

import pytest

from config.errors import ValidationFailed
from notifications.models import WebhookEndpoint
from notifications.services import webhook_register
from notifications.targets import TargetRefused, target_check
from tests.webhooks.support import REGISTER_URL

FAKE_DNS = {
    "public.example.com": ["93.184.216.34"],
    "internal.example.test": ["127.0.0.1"],
    "metadata.example.test": ["169.254.169.254"],
    "mixed.example.com": ["93.184.216.34", "10.0.0.1"],
    "v6.example.com": ["2606:2800:220:1:248:1893:25c8:1946"],
}

REFUSED = [
    "https://127.0.0.1/hook",
    "https://localhost/hook",
    "https://[::1]/hook",
    "https://0.0.0.0/hook",
    "https://10.0.0.1/hook",
    "https://172.16.0.1/hook",
    "https://192.168.1.1/hook",
    "https://169.254.169.254/latest/meta-data/",
    "https://100.64.0.1/hook",
    "https://[fc00::1]/hook",
    "https://[fe80::1]/hook",
    "https://[::ffff:127.0.0.1]/hook",
    "https://2130706433/hook",
    "https://0x7f000001/hook",
    "https://017700000001/hook",
    "https://127.1/hook",
    "https://internal.example.test/hook",
    "https://metadata.example.test/hook",
    "https://mixed.example.com/hook",
    "http://public.example.com/hook",
    "https://224.0.0.1/hook",
    "https://255.255.255.255/hook",
    "https://[::]/hook",
    "https://198.18.0.1/hook",
    "https://240.0.0.1/hook",
    "https://127.0.0.1:8443/hook",
    "https://[2002:7f00:1::1]/hook",
    "https://[64:ff9b::a00:1]/hook",
    "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook",
    "https://[::a00:1]/hook",
    "https://nowhere.example.test/hook",
    "ftp://public.example.com/hook",
    "https://user:password@public.example.com/hook",
]


@pytest.fixture(autouse=True)
def protection_on(settings):
    """The protection as in production: https and public addresses only."""
    settings.WEBHOOKS_ALLOW_PRIVATE_TARGETS = False


@pytest.fixture(autouse=True)
def fake_dns(monkeypatch):
    real_getaddrinfo = socket.getaddrinfo

    def getaddrinfo(host, port, family=0, type=0, proto=0, flags=0):
        if host in FAKE_DNS:
            return [
                answer
                for address in FAKE_DNS[host]
                for answer in real_getaddrinfo(address, port, family, type, proto)
            ]
        if host == "localhost":
            return real_getaddrinfo(host, port, family, type, proto, flags)
        # Numeric forms only: any other name "does not resolve", without asking the network.
        return real_getaddrinfo(host, port, family, type, proto, flags | socket.AI_NUMERICHOST)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


def test_the_table_has_at_least_twenty_targets():
    assert len(REFUSED) >= 20


@pytest.mark.parametrize("url", REFUSED)
def test_the_target_is_refused(url):
    with pytest.raises(TargetRefused):
        target_check(url)


@pytest.mark.django_db
@pytest.mark.parametrize("url", REFUSED)
def test_registering_the_target_is_400_on_url(owner_client, url):
    # when an owner registers it
    response = owner_client.post(
        REGISTER_URL, {"url": url, "events": ["property.created"]}, format="json"
    )

    # then the answer is 400 naming url, and nothing was registered
    assert response.status_code == 400, response.content
    assert [error["field"] for error in response.json()["errors"]] == ["url"]
    assert WebhookEndpoint.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("url", REFUSED)
def test_the_registration_service_refuses_the_target(owner, url):
    # the same rule holds for every caller of the service, not only the API
    with pytest.raises(ValidationFailed) as raised:
        webhook_register(by=owner, url=url, events=["*"])
    assert raised.value.field == "url"


@pytest.mark.parametrize(
    ("url", "address", "port", "path"),
    [
        ("https://public.example.com/hook", "93.184.216.34", 443, "/hook"),
        ("https://public.example.com:8443/in?x=1", "93.184.216.34", 8443, "/in?x=1"),
        ("https://93.184.216.34", "93.184.216.34", 443, "/"),
        (
            "https://v6.example.com/hook",
            "2606:2800:220:1:248:1893:25c8:1946",
            443,
            "/hook",
        ),
    ],
)
def test_a_public_https_target_is_accepted(url, address, port, path):
    target = target_check(url)
    assert (target.address, target.port, target.path, target.scheme) == (
        address,
        port,
        path,
        "https",
    )


@pytest.mark.django_db
def test_registering_a_public_https_target_is_201(owner_client):
    response = owner_client.post(
        REGISTER_URL,
        {"url": "https://public.example.com/hook", "events": ["*"]},
        format="json",
    )
    assert response.status_code == 201, response.content
    assert response.json()["url"] == "https://public.example.com/hook"


def test_with_private_targets_allowed_http_and_loopback_pass(settings):
    settings.WEBHOOKS_ALLOW_PRIVATE_TARGETS = True
    target = target_check("http://127.0.0.1:9000/hook")
    assert (target.scheme, target.address, target.port) == ("http", "127.0.0.1", 9000)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("accept_language", "message"),
    [
        (
            "es",
            "El servidor de la URL se resuelve en una dirección privada, de loopback, de enlace"
            " local, de multidifusión o reservada; los webhooks solo se envían a direcciones"
            " públicas.",
        ),
        (
            "en",
            "The URL's host resolves to a private, loopback, link-local, multicast or reserved"
            " address; webhooks go only to public addresses.",
        ),
    ],
)
def test_a_refused_target_says_why_in_the_language_asked_for(
    owner_client, accept_language, message
):
    response = owner_client.post(
        REGISTER_URL,
        {"url": "https://127.0.0.1/hook", "events": ["*"]},
        format="json",
        headers={"accept-language": accept_language},
    )

    assert response.status_code == 400
    body = response.json()
    assert (body["detail"], body["code"]) == (message, "validation_error")
    assert body["errors"] == [{"field": "url", "message": message, "code": "invalid"}]
