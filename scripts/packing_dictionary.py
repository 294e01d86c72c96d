"""Build a preset dictionary for the packed reports and partials (scoring/fields.py).

    .venv/bin/python scripts/packing_dictionary.py NAME

A topic report is a few hundred bytes once compressed, too little for zlib to
find the repeats it would find in a long text: the same keys ("kappa_ci",
"units", "method": "too few", ...) in every report. zlib's preset dictionary
(``zdict``) gives it those repeats before the first byte. This builds one from
what each kind's reports look like: in a scratch SQLite database, every kind's
example topic (the KindSpec's ``examples``) judged by four assessors with the
kind's example payloads, its topic report (as stored: ``concord.typed.dump``
then MessagePack) and its partial, kind after kind, cut to zlib's 32 KiB
window. The assessors are named after the kind (``pairs-ann``), so the
dictionary carries no name a real campaign or a benchmark uses.

The file goes to ``scoring/zdicts/NAME.zdict`` and is never overwritten: every
value packed with it names it (its Adler-32, in the zlib header), so it must
stay readable for as long as such a value may be stored. To pack with a new
one, add its file and make it ``scoring.fields.CURRENT``; keep the old files.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: The assessors of every kind's example topic (four, so every kind has pairs and a majority).
NAMES = ("ann", "ben", "cat", "dan")
#: zlib's window: only the dictionary's last 32 KiB are used.
WINDOW = 32 * 1024


def build() -> bytes:
    os.environ["CONCORD_SQLITE_PATH"] = str(Path(tempfile.mkdtemp(prefix="concord-zdict-")) / "zdict.sqlite3")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
    os.environ.pop("DATABASE_URL", None)
    import django

    django.setup()
    import msgspec
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from benchmarks.incremental import synthetic_campaign
    from concord import typed
    from kinds.registry import KINDS
    from scoring.selectors import report_input

    call_command("migrate", verbosity=0)
    users = get_user_model().objects
    samples = []
    for kind in sorted(KINDS):
        campaign = synthetic_campaign(kind, 1, len(NAMES))
        for index, name in enumerate(NAMES):
            users.filter(username=f"assessor{index}").update(username=f"{kind}-{name}")
        given = report_input(campaign)
        reports = KINDS[kind].reports
        topic = given.topics[0]
        built = reports.topic(given, topic)
        samples.append(msgspec.msgpack.encode(typed.dump(built)))
        if reports.partial:
            samples.append(typed.pack(reports.partial(given, topic, built)))
    return b"".join(samples)[-WINDOW:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("name", help="the file's name in scoring/zdicts/, without .zdict")
    args = parser.parse_args()
    target = ROOT / "scoring" / "zdicts" / f"{args.name}.zdict"
    if target.exists():
        sys.exit(f"{target} exists: a dictionary in use is never changed (values packed with it name it)")
    data = build()
    target.write_bytes(data)
    print(f"{target}: {len(data)} bytes, id {zlib.adler32(data)}")


if __name__ == "__main__":
    main()
