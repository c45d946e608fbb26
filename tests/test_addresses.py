"""Client addresses as keyed hashes (service.addresses): one address one hash, none without the key, an IPv6
client by its /64, an IPv4-mapped address as its IPv4 one."""

from __future__ import annotations

from collections.abc import Callable

from service import KeysWarmUp
from service.addresses import AddressHasher, address_hash

KEY = b"k" * 32


def test_one_address_one_hash_and_another_key_another() -> None:
    first = address_hash("203.0.113.7", KEY)
    assert first == address_hash("203.0.113.7", KEY) and first is not None and len(first) == 32
    assert first != address_hash("203.0.113.8", KEY)
    assert first != address_hash("203.0.113.7", b"x" * 32)
    assert "203" not in first


def test_an_ipv6_client_is_its_64_network() -> None:
    assert address_hash("2001:db8:1:2::1", KEY) == address_hash("2001:db8:1:2:ffff::9", KEY)
    assert address_hash("2001:db8:1:2::1", KEY) != address_hash("2001:db8:1:3::1", KEY)
    assert address_hash("::ffff:203.0.113.7", KEY) == address_hash("203.0.113.7", KEY)


def test_no_address_no_hash() -> None:
    assert address_hash(None, KEY) is None and address_hash("", KEY) is None and address_hash("unix", KEY) is None


def test_the_key_is_read_once_and_a_failure_waits_for_the_next_try() -> None:
    calls = []

    def key() -> bytes:
        calls.append(1)
        if len(calls) == 1:
            raise ConnectionError("the database is down")
        return KEY

    hasher = AddressHasher(key)
    assert hasher.warm() is False  # fails, logged
    assert hasher.warm() is True
    assert hasher.warm() is True
    assert hasher("203.0.113.7") == address_hash("203.0.113.7", KEY) and len(calls) == 2


def test_the_keys_warm_up_before_requests_until_each_is_in_hand_then_no_more() -> None:
    tries: dict[str, int] = {"addresses": 0, "webhooks": 0}

    def step(name: str, fails: int) -> Callable[[], bool]:
        def warm() -> bool:
            tries[name] += 1
            return tries[name] > fails

        return warm

    warm_up = KeysWarmUp(step("addresses", fails=0), step("webhooks", fails=2))
    for _ in range(5):  # five requests: the webhooks' key is out of reach for the first two
        warm_up()
    assert tries == {"addresses": 1, "webhooks": 3} and warm_up.steps == []
