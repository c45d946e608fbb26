"""The Web Push settings: VAPID_PRIVATE_KEY is a P-256 private key in base64url, VAPID_SUBJECT a
contact URL; anything else stops the service at start, naming the setting (never its value)."""

from __future__ import annotations

import pytest

from service.config import ConfigError, Settings
from service.push import b64url

GOOD_KEY = b64url((12345).to_bytes(32, "big"))


@pytest.mark.parametrize(
    ("env", "ok"),
    [
        ({"VAPID_PRIVATE_KEY": GOOD_KEY}, True),
        ({"VAPID_PRIVATE_KEY": GOOD_KEY + "="}, True),
        ({"VAPID_PRIVATE_KEY": b64url(bytes(32))}, False),  # 0 is no key
        ({"VAPID_PRIVATE_KEY": b64url(b"\xff" * 32)}, False),  # above P-256's order
        ({"VAPID_PRIVATE_KEY": b64url(bytes(31) + b"\x01")[:-2]}, False),
        ({"VAPID_PRIVATE_KEY": "not a key!"}, False),
        ({"VAPID_SUBJECT": "mailto:ops@coins.example"}, True),
        ({"VAPID_SUBJECT": "https://coins.example/contact"}, True),
        ({"VAPID_SUBJECT": "mailto:nobody"}, False),
        ({"VAPID_SUBJECT": "http://coins.example"}, False),
        ({"VAPID_SUBJECT": "ops@coins.example"}, False),
    ],
)
def test_vapid_settings(env: dict[str, str], ok: bool) -> None:
    full = {"DATABASE_URL": "sqlite:///:memory:", **env}
    if ok:
        Settings.from_env(full)
        return
    with pytest.raises(ConfigError, match="VAPID_") as refused:
        Settings.from_env(full)
    assert env.get("VAPID_PRIVATE_KEY", "\0") not in str(refused.value)


def test_the_private_key_is_kept_out_of_the_settings_repr() -> None:
    assert GOOD_KEY not in repr(Settings(database_url="sqlite://", vapid_private_key=GOOD_KEY))
