"""Where a webhook may point: https only, public addresses only (the SSRF rule), every answer checked."""

from __future__ import annotations

import ipaddress
import logging

import pytest

from service.webhooks import AddressPolicy, WebhookUrlRefused
from service.webhooks.addresses import DENIED

NOT_PUBLIC = [
    "127.0.0.1",
    "127.9.9.9",
    "0.0.0.0",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",  # cloud metadata
    "100.64.0.1",  # shared (CGNAT)
    "100.100.100.200",  # Alibaba's metadata
    "168.63.129.16",  # Azure's host
    "224.0.0.1",
    "239.255.255.250",
    "255.255.255.255",
    "198.18.0.1",
    "::1",
    "::",
    "fd00:ec2::254",  # AWS's IPv6 metadata
    "fe80::1",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:169.254.169.254",
    "64:ff9b::a00:1",
    "2002:7f00:1::",
    "not an address",
]


#: A representative address of every network in DENIED (a test checks that none is missing): IANA's
#: IPv4 and IPv6 Special-Purpose Address Registries, and what reaches beside the service.
REPRESENTATIVES = {
    "0.0.0.0/8": "0.1.2.3",
    "10.0.0.0/8": "10.200.0.1",
    "100.64.0.0/10": "100.127.255.254",
    "127.0.0.0/8": "127.0.1.1",
    "169.254.0.0/16": "169.254.0.1",
    "168.63.129.16/32": "168.63.129.16",
    "172.16.0.0/12": "172.31.255.1",
    "192.0.0.0/24": "192.0.0.170",
    "192.0.2.0/24": "192.0.2.10",
    "192.88.99.0/24": "192.88.99.1",
    "192.168.0.0/16": "192.168.0.1",
    "198.18.0.0/15": "198.19.255.1",
    "198.51.100.0/24": "198.51.100.7",
    "203.0.113.0/24": "203.0.113.9",
    "224.0.0.0/4": "233.252.0.1",
    "240.0.0.0/4": "240.0.0.1",
    "::/128": "::",
    "::1/128": "::1",
    "::/96": "::7f00:1",
    "64:ff9b::/96": "64:ff9b::808:808",
    "64:ff9b:1::/48": "64:ff9b:1::a00:1",
    "100::/64": "100::1",
    "100:0:0:1::/64": "100:0:0:1::1",
    "2001::/23": "2001:2::1",
    "2001:db8::/32": "2001:db8::1",
    "2002::/16": "2002:808:808::1",
    "3fff::/20": "3fff::1",
    "5f00::/16": "5f00::1",
    "fc00::/7": "fc00::1",
    "fe80::/10": "febf::1",
    "fec0::/10": "fec0::1",
    "ff00::/8": "ff0e::1",
}


def test_every_denied_network_has_a_representative() -> None:
    assert sorted(REPRESENTATIVES) == sorted(str(network) for network in DENIED)
    for network, address in REPRESENTATIVES.items():
        assert ipaddress.ip_address(address) in ipaddress.ip_network(network)


@pytest.mark.parametrize("address", sorted(REPRESENTATIVES.values()))
def test_every_special_purpose_range_is_refused(address: str) -> None:
    assert not AddressPolicy().is_allowed(address)
    with pytest.raises(WebhookUrlRefused):
        policy([address]).target("https://hooks.example.com/x")


@pytest.mark.parametrize(
    "address",
    [
        "feff::1",  # site-local's last /16
        "2001::1",  # Teredo
        "2001:4:112::1",  # AS112 inside the IETF's /23
        "4000::1",  # IPv6 outside 2000::/3, unallocated
        "e000::1",
        "::ffff:192.88.99.1",
        "::ffff:0:7f00:1",  # IPv4-translated
    ],
)
def test_more_addresses_that_are_not_public_are_refused(address: str) -> None:
    assert not AddressPolicy().is_allowed(address)


@pytest.mark.parametrize(
    "address",
    ["192.88.100.1", "192.0.3.1", "100.128.0.1", "2001:4860:4860::8888", "2a00:1450:4001::1", "::ffff:8.8.8.8"],
)
def test_public_neighbours_of_the_denied_ranges_pass(address: str) -> None:
    assert AddressPolicy().is_allowed(address)


def policy(answers: list[str], allowed: tuple[str, ...] = ()) -> AddressPolicy:
    return AddressPolicy(allowed, resolver=lambda host, port: answers)


@pytest.mark.parametrize("address", NOT_PUBLIC)
def test_addresses_that_are_not_public_are_refused(address: str) -> None:
    assert not AddressPolicy().is_allowed(address)
    with pytest.raises(WebhookUrlRefused):
        policy([address]).target("https://hooks.example.com/x")


@pytest.mark.parametrize("address", ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111"])
def test_public_addresses_pass_and_are_the_ones_connected_to(address: str) -> None:
    target = policy([address]).target("https://hooks.example.com:8443/x?y=1")
    assert (target.host, target.port, target.path, target.address) == ("hooks.example.com", 8443, "/x?y=1", address)


def test_one_private_answer_among_public_ones_refuses_the_url() -> None:
    with pytest.raises(WebhookUrlRefused):
        policy(["8.8.8.8", "10.0.0.1"]).target("https://hooks.example.com/")


@pytest.mark.parametrize(
    "url",
    [
        "http://hooks.example.com/",
        "ftp://hooks.example.com/",
        "https:///nohost",
        "https://user:pass@hooks.example.com/",
        "https://hooks.example.com:0/",
        "https://hooks.example.com:99999/",
        "https://hooks.example.com/#fragment",
        "https://hooks.example.com/" + "a" * 2048,
        "https://hooks.example.com/a b",  # a space, a CR, a LF: no request line can carry them
        "https://hooks.example.com/a\r\nX-Injected: 1",
        "https://hooks.example.com/\x00",
        "https://hooks.example.com/h\u00e9",  # not ASCII: no request line carries it
        "https://hooks.example.com/?q=\u2713",
        "https://hooks.example.com/\U0001f0a1",
        "https://stra\u00dfe.example/",  # an internationalized host: give its xn-- form
        "https://\u24dbocalhost/",
        "https://\uff18.\uff18.\uff18.\uff18/",  # fullwidth digits
    ],
)
def test_urls_of_other_forms_are_refused(url: str) -> None:
    with pytest.raises(WebhookUrlRefused):
        policy(["8.8.8.8"]).target(url)


def test_percent_encoded_paths_and_ascii_forms_of_internationalized_hosts_pass() -> None:
    target = policy(["8.8.8.8"]).target("https://xn--strae-oqa.example/h%C3%A9?q=%E2%9C%93")
    assert (target.host, target.path) == ("xn--strae-oqa.example", "/h%C3%A9?q=%E2%9C%93")


def test_a_name_that_does_not_resolve_is_refused() -> None:
    def nowhere(host: str, port: int) -> list[str]:
        raise OSError("no such name")

    with pytest.raises(WebhookUrlRefused):
        AddressPolicy(resolver=nowhere).target("https://nowhere.example/")


def test_a_refusal_after_resolving_names_neither_the_address_nor_whether_the_name_exists(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The refusal is no resolver for a player: an internal name (its private address), an unknown
    one and a public-and-private mix are refused alike; the operator's debug log says why, with the
    host and never the path, which may hold a token."""
    table = {"postgres": ["172.18.0.3"], "web": ["8.8.8.8", "10.0.0.5"]}

    def internal(host: str, port: int) -> list[str]:
        if host not in table:
            raise OSError("no such name")
        return table[host]

    details = set()
    with caplog.at_level(logging.DEBUG, logger="service.webhooks.addresses"):
        for host in ("postgres", "web", "no-such-name", "172.18.0.3"):
            with pytest.raises(WebhookUrlRefused) as refused:
                AddressPolicy(resolver=internal).target(f"https://{host}/hook/tok3n?s=s3cret")
            details.add(str(refused.value))
    [detail] = details
    assert "172.18" not in detail and "10.0" not in detail and "resolve" in detail
    assert "postgres" not in detail and "no-such-name" not in detail
    logged = caplog.text
    assert "'postgres'" in logged and "172.18.0.3" in logged and "'no-such-name'" in logged
    assert "tok3n" not in logged and "s3cret" not in logged


def test_the_operators_networks_are_allowed_besides_public_ones() -> None:
    assert policy(["127.0.0.1"], ("127.0.0.0/8",)).target("https://hooks.test/").address == "127.0.0.1"
    with pytest.raises(WebhookUrlRefused):
        policy(["10.0.0.1"], ("127.0.0.0/8",)).target("https://hooks.test/")
