"""Where a webhook may point: ``https`` URLs whose host resolves to public addresses only.

A webhook's URL is a request the service makes on a stranger's behalf, so server-side request
forgery is the first risk: a URL naming (or resolving to) a loopback, private, link-local, shared
(CGNAT), multicast, reserved or cloud-metadata address would let a player reach what sits beside
the service. :class:`AddressPolicy` checks a URL when the webhook is made and again before every
delivery, and answers the one address the delivery then connects to (:mod:`.transport`), so that a
DNS answer that changes between the check and the connection gains nothing. Every address the name
resolves to must pass: one bad answer refuses the URL.

A refusal after resolving says only that the host is not one deliveries may go to
(:data:`NOT_PUBLIC`): never whether the name resolved, nor to what, since either would let a player
use the service as a resolver of the names its own network knows (under docker-compose ``postgres``
or ``web``). The operator's log has the reason at debug level, with the host (never the path or
query: a URL may carry a token there).

``allowed`` (the operator setting ``WEBHOOK_ALLOW_NETWORKS``) names networks allowed besides the
public ones: the tests' loopback receiver, never a production setting.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

from ..games.errors import ServiceError

__all__ = ["AddressPolicy", "Resolver", "Target", "WebhookUrlRefused", "system_resolver"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
#: A name and port -> the addresses it resolves to (the system's getaddrinfo; the tests' own).
Resolver = Callable[[str, int], list[str]]

log = logging.getLogger(__name__)

MOST_URL = 2048
#: The one refusal for a host that does not resolve or resolves to an address deliveries may not reach.
NOT_PUBLIC = "the URL's host must resolve to public addresses only"
# Refused whatever ``ipaddress`` says (its idea of "global" changes between Python versions): IANA's
# IPv4 and IPv6 Special-Purpose Address Registries, every range not globally reachable, plus the ones
# that reach something beside the service. Left public: the globally reachable anycast services
# (AS112 192.31.196.0/24, 192.175.48.0/24, 2620:4f:8000::/48; AMT 192.52.193.0/24).
DENIED: tuple[IPNetwork, ...] = tuple(
    ipaddress.ip_network(network)
    for network in (
        "0.0.0.0/8",  # "this network"
        "10.0.0.0/8",  # private
        "100.64.0.0/10",  # shared address space (CGNAT), and Alibaba's metadata 100.100.100.200
        "127.0.0.0/8",  # loopback
        "169.254.0.0/16",  # link-local: AWS, GCP, Azure, OpenStack metadata 169.254.169.254
        "168.63.129.16/32",  # Azure's host address
        "172.16.0.0/12",  # private
        "192.0.0.0/24",  # IETF protocol assignments (DS-Lite, NAT64 discovery 192.0.0.170 …)
        "192.0.2.0/24",  # documentation (TEST-NET-1)
        "192.88.99.0/24",  # 6to4 relay anycast, deprecated (RFC 7526): a relay into IPv6
        "192.168.0.0/16",  # private
        "198.18.0.0/15",  # benchmarking
        "198.51.100.0/24",  # documentation (TEST-NET-2)
        "203.0.113.0/24",  # documentation (TEST-NET-3)
        "224.0.0.0/4",  # multicast
        "240.0.0.0/4",  # reserved, and the broadcast 255.255.255.255
        "::/128",  # unspecified
        "::1/128",  # loopback
        "::/96",  # IPv4-compatible, deprecated (IPv4-mapped ::ffff:0:0/96 ones are judged as their IPv4 address)
        "64:ff9b::/96",  # NAT64: an IPv4 address inside
        "64:ff9b:1::/48",  # NAT64, local use
        "100::/64",  # discard-only
        "100:0:0:1::/64",  # dummy prefix (RFC 9780)
        "2001::/23",  # IETF protocol assignments: Teredo 2001::/32 (an IPv4 inside), benchmarking, ORCHID …
        "2001:db8::/32",  # documentation
        "2002::/16",  # 6to4: an IPv4 address inside
        "3fff::/20",  # documentation (RFC 9637)
        "5f00::/16",  # segment routing (SRv6) SIDs
        "fc00::/7",  # unique local, with AWS's metadata fd00:ec2::254
        "fe80::/10",  # link-local
        "fec0::/10",  # site-local, deprecated (RFC 3879) but still routed inside some networks
        "ff00::/8",  # multicast
    )
)
#: The only IPv6 space IANA allocates for global unicast: any other IPv6 address is refused.
GLOBAL_UNICAST = ipaddress.ip_network("2000::/3")


class WebhookUrlRefused(ServiceError):
    """The URL is not one a webhook may have (why, in the message: its form, or :data:`NOT_PUBLIC`,
    never whether its host resolved nor to what)."""

    code = "webhook_url_refused"


@dataclass(frozen=True, slots=True)
class Target:
    """A checked URL: the host name (for TLS and ``Host``), the port, the path with its query,
    and the one address the delivery connects to."""

    host: str
    port: int
    path: str
    address: str


def system_resolver(host: str, port: int) -> list[str]:
    """The addresses ``host`` resolves to, by the system's resolver."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    return [str(info[4][0]) for info in infos]


class AddressPolicy:
    """The rule for webhook URLs (see the module's docstring)."""

    def __init__(self, allowed: Sequence[str] = (), resolver: Resolver = system_resolver) -> None:
        self.allowed: tuple[IPNetwork, ...] = tuple(ipaddress.ip_network(network) for network in allowed)
        self.resolver = resolver

    def check_url(self, url: str) -> SplitResult:
        """``url`` parsed, if its form is one a webhook may have (no resolution)."""
        if len(url) > MOST_URL:
            raise WebhookUrlRefused(f"the URL is longer than {MOST_URL} characters")
        if any(character.isspace() or not character.isprintable() for character in url):
            # a space or a control character (CR, LF …) cannot go into a request line: never deliverable
            raise WebhookUrlRefused("the URL must not contain spaces or control characters")
        if not url.isascii():
            # No request line carries it (the path, the query), and an internationalized host has
            # more than one ASCII form (IDNA 2003, Python's codec, and IDNA 2008 differ on ß, ς …):
            # the player gives the very one to contact.
            raise WebhookUrlRefused(
                "the URL must be ASCII: percent-encode its path and query, write an internationalized host as xn--"
            )
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError:
            raise WebhookUrlRefused("the URL cannot be read") from None
        if parts.scheme != "https":
            raise WebhookUrlRefused("the URL must be https")
        if not parts.hostname:
            raise WebhookUrlRefused("the URL has no host")
        if parts.username is not None or parts.password is not None:
            raise WebhookUrlRefused("the URL must not carry credentials")
        if parts.fragment:
            raise WebhookUrlRefused("the URL must not have a fragment")
        if port == 0:
            raise WebhookUrlRefused("the URL's port cannot be 0")
        return parts

    def target(self, url: str) -> Target:
        """Check ``url`` now (its form, then every address its host resolves to) and answer the
        address to connect to; :class:`WebhookUrlRefused` otherwise."""
        parts = self.check_url(url)
        host = parts.hostname  # ASCII (check_url saw to it); an IPv6 literal bare
        assert host is not None  # check_url refused a URL without one
        port = parts.port or 443
        try:
            found = self.resolver(host, port)
        except (OSError, UnicodeError) as error:
            log.debug("webhook host %r refused: it does not resolve (%s)", host, type(error).__name__)
            raise WebhookUrlRefused(NOT_PUBLIC) from None
        if not found:
            log.debug("webhook host %r refused: no address", host)
            raise WebhookUrlRefused(NOT_PUBLIC)
        for text in found:
            if not self.is_allowed(text):
                log.debug("webhook host %r refused: it resolves to %s, not public", host, text)
                raise WebhookUrlRefused(NOT_PUBLIC)
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        return Target(host, port, path, found[0])

    def is_allowed(self, text: str) -> bool:
        """Whether a delivery may connect to the address ``text``."""
        try:
            address: IPAddress = ipaddress.ip_address(text.split("%", 1)[0])
        except ValueError:
            return False
        if any(address in network for network in self.allowed):
            return True
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            return self.is_allowed(str(address.ipv4_mapped))
        if any(address in network for network in DENIED if network.version == address.version):
            return False
        if isinstance(address, ipaddress.IPv6Address) and address not in GLOBAL_UNICAST:
            return False
        return (
            address.is_global
            and not (address.is_private or address.is_loopback or address.is_link_local or address.is_multicast)
            and not (address.is_reserved or address.is_unspecified)
        )
