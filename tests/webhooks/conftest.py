"""Fixtures of the webhook tests: receivers, TLS, quick retries.

The users and their signed-in clients come from tests/fixtures.py.
"""

import datetime
import socket
import ssl

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.webhooks.support import HOST_NAME


@pytest.fixture(autouse=True)
def quick_retries(settings):
    """Retries after 0 s (no jitter) twice, then failed: the schedule's shape, fast."""
    settings.WEBHOOKS_RETRY_SCHEDULE = [0.0, 0.0]
    settings.WEBHOOKS_RETRY_JITTER = 0.0


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
