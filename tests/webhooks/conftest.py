"""Fixtures of the webhook tests: users of each role, signed-in clients, receivers, TLS."""

import datetime
import socket
import ssl

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from django.core.cache import cache
from rest_framework.test import APIClient

from accounts.models import User, UserType
from accounts.services import access_token_issue, user_create
from tests.webhooks.support import HOST_NAME, Receiver


def signed_in_client(user: User) -> APIClient:
    """An API client sending a fresh bearer token of this user."""
    token, _access_token = access_token_issue(user=user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


def make_user(email: str, name: str, user_type: str) -> User:
    """A user made through the service, with the role record of its type and no password."""
    return user_create(email=email, password=None, name=name, user_type=user_type)


@pytest.fixture(autouse=True)
def empty_cache():
    """Throttle counters live in the cache: start and end every test with none."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def quick_retries(settings):
    """Retries after 0 s (no jitter) twice, then failed: the schedule's shape, fast."""
    settings.WEBHOOKS_RETRY_SCHEDULE = [0.0, 0.0]
    settings.WEBHOOKS_RETRY_JITTER = 0.0


@pytest.fixture
def receiver():
    """An HTTP receiver on 127.0.0.1 that records requests (see Receiver)."""
    server = Receiver()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def certificate(tmp_path):
    """A self-signed certificate for HOST_NAME: (certificate file, key file)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, HOST_NAME)])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(HOST_NAME)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    certificate_file = tmp_path / "receiver.pem"
    key_file = tmp_path / "receiver.key"
    certificate_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return certificate_file, key_file


@pytest.fixture
def server_tls(certificate) -> ssl.SSLContext:
    """The TLS context of an https receiver serving that certificate."""
    certificate_file, key_file = certificate
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate_file, key_file)
    return context


@pytest.fixture
def host_name_resolves_to_loopback(monkeypatch):
    """HOST_NAME resolves to 127.0.0.1, where the tests' receivers listen."""
    real_getaddrinfo = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        target = "127.0.0.1" if host == HOST_NAME else host
        return real_getaddrinfo(target, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.fixture
def customer(db) -> User:
    """A CUSTOMER: books visits and saves listings, registers no webhook."""
    return make_user("carla.customer@example.com", "Carla Customer", UserType.CUSTOMER)


@pytest.fixture
def owner(db) -> User:
    """An OWNER user; the listings of most tests are theirs."""
    return make_user("oscar.owner@example.com", "Oscar Owner", UserType.OWNER)


@pytest.fixture
def other_owner(db) -> User:
    """A second OWNER, who owns none of the listings of a test unless it says so."""
    return make_user("olga.owner@example.com", "Olga Owner", UserType.OWNER)


@pytest.fixture
def admin(db) -> User:
    """An ADMIN user."""
    return make_user("ada.admin@example.com", "Ada Admin", UserType.ADMIN)


@pytest.fixture
def anonymous_client() -> APIClient:
    return APIClient()


@pytest.fixture
def customer_client(customer) -> APIClient:
    return signed_in_client(customer)


@pytest.fixture
def owner_client(owner) -> APIClient:
    return signed_in_client(owner)


@pytest.fixture
def other_owner_client(other_owner) -> APIClient:
    return signed_in_client(other_owner)


@pytest.fixture
def admin_client(admin) -> APIClient:
    return signed_in_client(admin)
