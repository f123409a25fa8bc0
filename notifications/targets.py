"""Where a webhook may be sent, and sending it there (SSRF protection, decisions D12).

A target URL must be https and every address its host resolves to must be a public one:
not private, loopback, link-local, shared (CGNAT, 100.64/10), multicast, reserved or
unspecified, nor an IPv6 address that embeds such an IPv4 address (IPv4-mapped, -compatible,
6to4, Teredo, NAT64). The host is resolved once with `socket.getaddrinfo`, which also reads
the numeric forms 2130706433, 0x7f000001, 017700000001 and 127.1, so they are checked as the
address they really are. The request then goes to the address that was checked, with the
host name only in SNI and the Host header: a DNS answer that changes between the check and
the connection (DNS rebinding) cannot send it anywhere else.

`WEBHOOKS_ALLOW_PRIVATE_TARGETS` (on in dev and test settings only) allows http and any
address, for receivers on the developer's own machine.
"""

import dataclasses
import ipaddress
import socket
import ssl
import urllib.parse

import urllib3
from django.conf import settings

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# RFC 6052's well-known NAT64 prefix: 64:ff9b::a.b.c.d reaches the IPv4 address a.b.c.d.
NAT64_PREFIX = ipaddress.IPv6Network("64:ff9b::/96")
# Deprecated IPv4-compatible IPv6 addresses, ::a.b.c.d.
IPV4_COMPATIBLE_PREFIX = ipaddress.IPv6Network("::/96")


class TargetRefused(ValueError):
    """The URL may not receive webhooks; the message says why, for the registrant."""


class TargetUnresolved(TargetRefused):
    """The URL's host name does not resolve (now: it may later)."""


@dataclasses.dataclass(frozen=True)
class Target:
    """A checked target: the URL's parts and the one address to connect to."""

    scheme: str
    hostname: str
    port: int
    path: str
    address: str

    @property
    def host_header(self) -> str:
        """The Host header: the name as the URL gives it, with a non-default port."""
        host = f"[{self.hostname}]" if ":" in self.hostname else self.hostname
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
        raise TargetUnresolved("The URL's host name does not resolve.") from error
    addresses: list[IPAddress] = []
    for _family, _type, _protocol, _name, socket_address in answers:
        # An IPv6 link-local answer may carry a zone ("fe80::1%eth0"): it is still link-local.
        address = ipaddress.ip_address(socket_address[0].split("%", 1)[0])
        if address not in addresses:
            addresses.append(address)
    if not addresses:
        raise TargetUnresolved("The URL's host name does not resolve.")
    return addresses


def _split(url: str, *, allow_private: bool) -> tuple[urllib.parse.SplitResult, str, int]:
    """The URL's parts, host name and port, once its scheme and shape are acceptable."""
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    allowed_schemes = ("https", "http") if allow_private else ("https",)
    if scheme not in allowed_schemes:
        raise TargetRefused("The URL must use https.")
    if parts.username is not None or parts.password is not None:
        raise TargetRefused("The URL must not contain a user name or password.")
    hostname = parts.hostname
    if not hostname:
        raise TargetRefused("The URL must name a host.")
    try:
        port = parts.port or (443 if scheme == "https" else 80)
    except ValueError as error:
        raise TargetRefused("The URL's port is not valid.") from error
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
            "The URL's host resolves to a private, loopback, link-local, multicast or "
            "reserved address; webhooks go only to public addresses."
        )
    path = parts.path or "/"
    if parts.query:
        path = f"{path}?{parts.query}"
    return Target(
        scheme=parts.scheme.lower(),
        hostname=hostname,
        port=port,
        path=path,
        address=str(addresses[0]),
    )


def _pool(target: Target, timeout: float) -> urllib3.HTTPConnectionPool:
    """A one-connection pool to the checked address; TLS names and verifies the host name."""
    options = {"timeout": urllib3.Timeout(total=timeout), "retries": False, "maxsize": 1}
    if target.scheme == "https":
        return urllib3.HTTPSConnectionPool(
            target.address,
            target.port,
            server_hostname=target.hostname,
            assert_hostname=target.hostname,
            cert_reqs=ssl.CERT_REQUIRED,
            ssl_context=ssl.create_default_context(cafile=settings.WEBHOOKS_CA_BUNDLE or None),
            **options,
        )
    return urllib3.HTTPConnectionPool(target.address, target.port, **options)


def target_post(
    *, target: Target, body: bytes, headers: dict[str, str], timeout: float
) -> Response:
    """POST the body to the checked address; redirects are returned, never followed.

    Raises urllib3's errors (timeouts, connection and TLS failures) for the caller to sort.
    Only the status line and headers are read: the body is never read, kept or logged.
    """
    pool = _pool(target, timeout)
    try:
        response = pool.urlopen(
            "POST",
            target.path,
            body=body,
            headers={**headers, "Host": target.host_header},
            redirect=False,
            retries=False,
            preload_content=False,
            assert_same_host=False,
        )
        try:
            return Response(
                status_code=response.status, retry_after=response.headers.get("Retry-After")
            )
        finally:
            # Closing drops the connection with the unread body, whatever its size.
            response.close()
    finally:
        pool.close()
