"""Read settings from the environment, failing loudly on bad values."""

from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured

from concord.digits import whole_number

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str | None = None) -> str | None:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r}: expected one of 1/0, true/false, yes/no, on/off")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = whole_number(raw.strip(), signed=True)
    if value is None:
        raise ImproperlyConfigured(f"{name}={raw!r}: expected a whole number in the digits 0-9")
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name}={value}: must be at least {minimum}")
    return value


def env_seconds(name: str, default: float) -> float:
    """A non-negative number of seconds, such as ``1`` or ``0.25``."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    import re

    if not re.fullmatch(r"[0-9]+(\.[0-9]+)?", raw.strip()):
        raise ImproperlyConfigured(f"{name}={raw!r}: expected a number of seconds such as 1 or 0.25")
    return float(raw.strip())


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    value = os.environ.get(name, default)
    if value not in choices:
        raise ImproperlyConfigured(f"{name}={value!r}: expected one of {', '.join(choices)}")
    return value


def secret_key_file(name: str) -> str | None:
    """The key held in the file the variable ``name`` names (surrounding white space
    stripped), None if the variable is not set; a file that cannot be read, or holds
    nothing, fails loudly."""
    path = os.environ.get(name)
    if path is None:
        return None
    try:
        with open(path, encoding="utf-8") as file:
            key = file.read().strip()
    except (OSError, UnicodeDecodeError) as error:
        raise ImproperlyConfigured(f"{name}={path!r}: cannot read it ({error})") from None
    if not key:
        raise ImproperlyConfigured(f"{name}={path!r}: the file is empty")
    return key
