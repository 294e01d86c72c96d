"""``python -m concord.secret_key PATH``: the secret key file ``./run`` keeps, made on
first use and printed as an absolute path (for ``CONCORD_SECRET_KEY_FILE``).

A new file holds a fresh key (Django's ``get_random_secret_key``: 50 characters from
``secrets``), is readable and writable by its owner only, and appears whole or not at
all (written aside, then linked into place), so two starts at once agree on one key.
An existing file keeps its key, and loses any permission beyond its owner's.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from django.core.management.utils import get_random_secret_key


def ensure(path: Path) -> Path:
    path = path.resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or not path.read_text(encoding="utf-8").strip():
        descriptor, aside = tempfile.mkstemp(dir=path.parent, prefix=".secret_key.")  # mode 0600
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as file:
                file.write(get_random_secret_key() + "\n")
            if path.exists():  # empty: replaced
                os.replace(aside, path)
            else:
                try:
                    os.link(aside, path)
                except FileExistsError:
                    pass  # another start made it first: its key is the one
        finally:
            Path(aside).unlink(missing_ok=True)
    path.chmod(0o600)
    return path


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m concord.secret_key PATH")
    print(ensure(Path(sys.argv[1])))
