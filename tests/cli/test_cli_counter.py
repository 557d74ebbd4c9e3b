"""The atomic counter from a shell: ``tallydb counter add`` / ``counter get``."""

from __future__ import annotations

from conftest import Store

KEY = '{"PK": "VID#9f3a", "SK": "STATS#TOTAL"}'


def test_add_prints_the_new_value(store: Store) -> None:
    table = store.table()
    assert store.ok("counter", "add", table, KEY, "play_count") == "1\n"
    assert store.ok("counter", "add", table, KEY, "play_count", "5") == "6\n"
    assert store.ok("counter", "add", table, KEY, "play_count", "-2") == "4\n"
    assert store.ok("counter", "get", table, KEY, "play_count") == "4\n"


def test_get_of_a_counter_never_set_is_0(store: Store) -> None:
    table = store.table()
    assert store.ok("counter", "get", table, KEY, "play_count") == "0\n"


def test_fractional_delta_is_exact(store: Store) -> None:
    table = store.table()
    store.ok("counter", "add", table, KEY, "score", "0.1")
    assert store.ok("counter", "add", table, KEY, "score", "0.2") == "0.3\n"


def test_idempotency_key_adds_once(store: Store) -> None:
    table = store.table()
    for _ in range(3):
        out = store.ok("counter", "add", table, KEY, "play_count", "--idempotency-key", "play-7f3")
        assert out == "1\n"
    assert store.ok("counter", "get", table, KEY, "play_count") == "1\n"


def test_a_delta_that_is_not_a_number_is_a_usage_error(store: Store) -> None:
    result = store.run("counter", "add", "t", KEY, "play_count", "lots")
    assert result.exit_code == 2
    assert "'lots' is not a number" in result.stderr
