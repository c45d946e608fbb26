"""Where a webhook may point: https only, public addresses only (the SSRF rule), every answer checked."""

from __future__ import annotations

import logging

import pytest

from service.webhooks import AddressPolicy, WebhookUrlRefused

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
    ],
)
def test_urls_of_other_forms_are_refused(url: str) -> None:
    with pytest.raises(WebhookUrlRefused):
        policy(["8.8.8.8"]).target(url)


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
