"""Where a webhook may be sent, and sending it there (SSRF protection, decisions D12).

A target URL must be https and every address its host resolves to must be a public one:
not private, loopback, link-local, shared (CGNAT, 100.64/10), multicast, reserved or
unspecified, nor an IPv6 address that embeds such an IPv4 address (IPv4-mapped, -compatible,
6to4, Teredo, NAT64). The host is resolved once with `socket.getaddrinfo`, which also reads
the numeric forms 2130706433, 0x7f000001, 017700000001 and 127.1, so they are checked as the
address they really are. The request then goes to the address that was checked, with the
host name only in SNI and the Host header: a DNS answer that changes between the check and
the connection (DNS rebinding) cannot send it anywhere else.

Sending has one deadline for the whole attempt (WEBHOOKS_TIMEOUT_SECONDS): connecting, the
TLS handshake, sending, and reading the status line and headers. Every step that may wait
gets only the time left, because a timeout per read starts again with each byte, and a
receiver trickling its answer a byte at a time would hold the worker for hours. At most
RESPONSE_HEAD_MAX_BYTES of the answer are read, never its body. The exchange is written here
on `socket` and `ssl` (HTTP/1.1, one request per connection): urllib3 and http.client give
no way to bound a whole exchange through their public interfaces.

`WEBHOOKS_ALLOW_PRIVATE_TARGETS` (on in dev and test settings only) allows http and any
address, for receivers on the developer's own machine.
"""

import dataclasses
import ipaddress
import re
import socket
import ssl
import string
import time
import urllib.parse

from django.conf import settings
from django.utils.translation import gettext_lazy

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# RFC 6052's well-known NAT64 prefix: 64:ff9b::a.b.c.d reaches the IPv4 address a.b.c.d.
NAT64_PREFIX = ipaddress.IPv6Network("64:ff9b::/96")
# Deprecated IPv4-compatible IPv6 addresses, ::a.b.c.d.
IPV4_COMPATIBLE_PREFIX = ipaddress.IPv6Network("::/96")


# The most of an answer that is read: its status line and headers, with the blank line that
# ends them (interim 1xx answers included). The body is never read.
RESPONSE_HEAD_MAX_BYTES = 16 * 1024
STATUS_LINE = re.compile(rb"HTTP/1\.[01] ([1-9][0-9]{2})(?: .*)?")
HEAD_END = re.compile(rb"\r?\n\r?\n")
# Characters a request path is sent with as they are: printable ASCII. The others (spaces,
# control characters, non-ASCII letters) are percent-encoded.
PATH_SAFE = string.punctuation


class TargetRefused(ValueError):
    """The URL may not receive webhooks; the message says why, for the registrant."""


class TargetUnresolved(TargetRefused):
    """The URL's host name does not resolve (now: it may later)."""


class ResponseInvalid(Exception):
    """The receiver's answer is not an HTTP status line and headers within the limit."""


@dataclasses.dataclass(frozen=True)
class Target:
    """A checked target: the URL's parts and the one address to connect to."""

    scheme: str
    hostname: str
    port: int
    # The request target: path and query, percent-encoded to printable ASCII.
    path: str
    address: str

    @property
    def host_header(self) -> str:
        """The Host header: the name as the URL gives it (IDNA-encoded), with a non-default
        port."""
        name = self.hostname if self.hostname.isascii() else self.hostname.encode("idna").decode()
        host = f"[{name}]" if ":" in name else name
        default_port = 443 if self.scheme == "https" else 80
        return host if self.port == default_port else f"{host}:{self.port}"


@dataclasses.dataclass(frozen=True)
class Response:
    """What an attempt keeps of a response: its status and Retry-After, never its body."""

    status_code: int
    retry_after: str | None


def _embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """IPv4 addresses an IPv6 address carries and may be routed to."""
    embedded = []
    if address.ipv4_mapped is not None:
        embedded.append(address.ipv4_mapped)
    if address.sixtofour is not None:
        embedded.append(address.sixtofour)
    if address.teredo is not None:
        embedded.extend(address.teredo)
    if address in NAT64_PREFIX or (address in IPV4_COMPATIBLE_PREFIX and int(address) > 1):
        embedded.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return embedded


def address_is_public(address: IPAddress) -> bool:
    """True for a globally routable unicast address that embeds no address that is not."""
    if (
        address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
        or not address.is_global
    ):
        return False
    if isinstance(address, ipaddress.IPv6Address):
        return all(address_is_public(inner) for inner in _embedded_ipv4(address))
    return True


def _resolve(hostname: str, port: int) -> list[IPAddress]:
    """Every address the host name resolves to (numeric forms included), in order."""
    try:
        answers = socket.getaddrinfo(hostname, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as error:
        raise TargetUnresolved(gettext_lazy("The URL's host name does not resolve.")) from error
    addresses: list[IPAddress] = []
    for _family, _type, _protocol, _name, socket_address in answers:
        # An IPv6 link-local answer may carry a zone ("fe80::1%eth0"): it is still link-local.
        address = ipaddress.ip_address(socket_address[0].split("%", 1)[0])
        if address not in addresses:
            addresses.append(address)
    if not addresses:
        raise TargetUnresolved(gettext_lazy("The URL's host name does not resolve."))
    return addresses


def _split(url: str, *, allow_private: bool) -> tuple[urllib.parse.SplitResult, str, int]:
    """The URL's parts, host name and port, once its scheme and shape are acceptable."""
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    allowed_schemes = ("https", "http") if allow_private else ("https",)
    if scheme not in allowed_schemes:
        raise TargetRefused(gettext_lazy("The URL must use https."))
    if parts.username is not None or parts.password is not None:
        raise TargetRefused(gettext_lazy("The URL must not contain a user name or password."))
    hostname = parts.hostname
    if not hostname:
        raise TargetRefused(gettext_lazy("The URL must name a host."))
    try:
        port = parts.port or (443 if scheme == "https" else 80)
    except ValueError as error:
        raise TargetRefused(gettext_lazy("The URL's port is not valid.")) from error
    return parts, hostname, port


def target_check(url: str, *, allow_private: bool | None = None) -> Target:
    """Resolve the URL's host once and check every address; the first one is connected to.

    Raises TargetRefused naming the reason. `allow_private` defaults to the setting.
    """
    if allow_private is None:
        allow_private = settings.WEBHOOKS_ALLOW_PRIVATE_TARGETS
    parts, hostname, port = _split(url, allow_private=allow_private)
    addresses = _resolve(hostname, port)
    if not allow_private and not all(address_is_public(address) for address in addresses):
        raise TargetRefused(
            gettext_lazy(
                "The URL's host resolves to a private, loopback, link-local, multicast or "
                "reserved address; webhooks go only to public addresses."
            )
        )
    path = parts.path or "/"
    if parts.query:
        path = f"{path}?{parts.query}"
    path = urllib.parse.quote(path, safe=PATH_SAFE)
    return Target(
        scheme=parts.scheme.lower(),
        hostname=hostname,
        port=port,
        path=path,
        address=str(addresses[0]),
    )


class Deadline:
    """The moment an attempt must be over by; each step that may wait is given what is left."""

    def __init__(self, seconds: float) -> None:
        self.ends = time.monotonic() + seconds

    def remaining(self) -> float:
        """Seconds left; raises TimeoutError when none are, so nothing starts waiting."""
        left = self.ends - time.monotonic()
        if left <= 0:
            raise TimeoutError("The attempt's deadline passed.")
        return left


def _tls(connection: socket.socket, target: Target, deadline: Deadline) -> ssl.SSLSocket:
    """TLS over the connection, naming and verifying the host name; the handshake waits at
    most what is left (its timeout bounds the whole handshake, not each read)."""
    context = ssl.create_default_context(cafile=settings.WEBHOOKS_CA_BUNDLE or None)
    connection.settimeout(deadline.remaining())
    # A name's trailing dot is not part of the names a certificate is valid for.
    return context.wrap_socket(connection, server_hostname=target.hostname.rstrip("."))


def _request(target: Target, body: bytes, headers: dict[str, str]) -> bytes:
    """The HTTP/1.1 POST: request line, headers, and body; the connection closes after it.

    The path is percent-encoded to printable ASCII (target_check), the host name is one
    that resolved, and the other headers are the platform's own: no line can be broken.
    """
    lines = [
        f"POST {target.path} HTTP/1.1",
        f"Host: {target.host_header}",
        *(f"{name}: {value}" for name, value in headers.items()),
        f"Content-Length: {len(body)}",
        "Connection: close",
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii") + body


def _send(connection: socket.socket, data: bytes, deadline: Deadline) -> None:
    """Send all of `data`; each send waits at most what is left of the deadline."""
    unsent = memoryview(data)
    while unsent:
        connection.settimeout(deadline.remaining())
        unsent = unsent[connection.send(unsent) :]


def _status_code(line: bytes) -> int:
    """The status code of an HTTP/1.x status line; ResponseInvalid for anything else."""
    match = STATUS_LINE.fullmatch(line.rstrip(b"\r"))
    if match is None:
        raise ResponseInvalid("The answer does not start with an HTTP status line.")
    return int(match[1])


def _retry_after(header_lines: list[bytes]) -> str | None:
    """The first Retry-After header's value, if any."""
    for line in header_lines:
        name, colon, value = line.partition(b":")
        if colon and name.strip().lower() == b"retry-after":
            return value.strip().decode("latin-1")
    return None


def _read_answer(connection: socket.socket, deadline: Deadline) -> Response:
    """Read the status line and headers of the final answer (interim 1xx ones are skipped),
    at most RESPONSE_HEAD_MAX_BYTES in all, each read waiting at most what is left of the
    deadline. The body is not read."""
    received = b""
    budget = RESPONSE_HEAD_MAX_BYTES
    while True:
        first_line, line_end, _rest = received.partition(b"\n")
        if line_end:
            # Known at the first line: an answer that is not HTTP is not waited for.
            status_code = _status_code(first_line)
        end = HEAD_END.search(received)
        if end is not None:
            header_lines = received[: end.start()].split(b"\n")[1:]
            if 100 <= status_code < 200:
                received = received[end.end() :]
                continue
            return Response(status_code=status_code, retry_after=_retry_after(header_lines))
        if budget == 0:
            raise ResponseInvalid(
                f"The answer's status line and headers exceed {RESPONSE_HEAD_MAX_BYTES} bytes."
            )
        connection.settimeout(deadline.remaining())
        chunk = connection.recv(budget)
        if not chunk:
            raise ResponseInvalid("The receiver closed the connection before its answer ended.")
        received += chunk
        budget -= len(chunk)


def target_post(
    *, target: Target, body: bytes, headers: dict[str, str], timeout: float
) -> Response:
    """POST the body to the checked address, all within `timeout` seconds; redirects are
    returned, never followed.

    Connecting, the TLS handshake, sending, and reading the status line and headers share
    one deadline: every step that may wait is given only the time left, so a receiver that
    answers a byte at a time cannot stretch the attempt (a timeout per read would start
    again with every byte). At most RESPONSE_HEAD_MAX_BYTES are read, and never the body:
    it is never read, kept or logged.

    Raises TimeoutError when the deadline passes, ssl.SSLError when TLS fails,
    ResponseInvalid when the answer is not HTTP or its head is too long, and OSError when
    the connection fails, for the caller to sort.
    """
    deadline = Deadline(timeout)
    request = _request(target, body, headers)
    connection = socket.create_connection(
        (target.address, target.port), timeout=deadline.remaining()
    )
    try:
        if target.scheme == "https":
            connection = _tls(connection, target, deadline)
        _send(connection, request, deadline)
        return _read_answer(connection, deadline)
    finally:
        # Closing drops the connection with whatever of the answer was not read.
        connection.close()
