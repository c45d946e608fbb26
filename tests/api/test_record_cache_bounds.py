"""The record cache's bound: the total of its bodies, least recently served out first, under threads."""

from __future__ import annotations

import threading

import pytest

from service.api.record_cache import CachedRecord, RecordCache
from service.config import ConfigError, Settings


def record(size: int, tag: str = "t") -> CachedRecord:
    return CachedRecord(b"x" * size, "application/json", tag)


def test_the_least_recently_served_go_first_once_the_bodies_pass_the_bound():
    cache = RecordCache(100)
    cache.put("a", 1, record(40))
    cache.put("b", 1, record(40))
    assert cache.get("a", 1) is not None  # a is now the most recently served
    cache.put("c", 1, record(40))
    assert cache.get("b", 1) is None
    assert cache.get("a", 1) is not None and cache.get("c", 1) is not None
    assert cache.total_bytes == 80 and len(cache) == 2


@pytest.mark.parametrize(
    ("max_bytes", "size", "kept"),
    [(100, 100, True), (100, 101, False), (0, 1, False), (0, 0, False)],
)
def test_a_body_larger_than_the_whole_bound_is_not_kept(max_bytes, size, kept):
    cache = RecordCache(max_bytes)
    cache.put("a", 1, record(size))
    assert (cache.get("a", 1) is not None) is kept
    assert cache.total_bytes == (size if kept else 0)
    assert cache.enabled is (max_bytes > 0)


def test_a_version_is_its_own_entry_and_putting_it_again_counts_it_once():
    cache = RecordCache(1000)
    cache.put("a", 1, record(10, "a.1"))
    cache.put("a", 1, record(20, "a.1"))
    cache.put("a", 2, record(30, "a.2"))
    assert cache.total_bytes == 50
    assert cache.get("a", 3) is None
    found = cache.get("a", 2)
    assert found is not None and found.etag == "a.2"


def test_threads_putting_and_reading_at_once_keep_the_total_exact_and_bounded():
    cache = RecordCache(10_000)
    start = threading.Barrier(8)

    def work(thread: int) -> None:
        start.wait()
        for n in range(2_000):
            cache.put(f"g{(thread * 7 + n) % 300}", n % 3, record(n % 97 + 1))
            cache.get(f"g{n % 300}", n % 3)

    threads = [threading.Thread(target=work, args=(thread,)) for thread in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    kept = [found for g in range(300) for v in range(3) if (found := cache.get(f"g{g}", v)) is not None]
    assert cache.total_bytes == sum(len(found.body) for found in kept) <= 10_000
    assert len(kept) == len(cache)


@pytest.mark.parametrize(("raw", "expected"), [("0", 0), ("1048576", 1_048_576)])
def test_record_cache_bytes_is_read_from_the_environment(raw, expected):
    assert Settings.from_env({"RECORD_CACHE_BYTES": raw}).record_cache_bytes == expected


@pytest.mark.parametrize("raw", ["-1", "1073741825", "32MiB"])
def test_record_cache_bytes_out_of_range_is_refused(raw):
    with pytest.raises(ConfigError, match="RECORD_CACHE_BYTES"):
        Settings.from_env({"RECORD_CACHE_BYTES": raw})


def test_the_default_keeps_32_mib_of_records():
    assert Settings().record_cache_bytes == 32 * 1024 * 1024
