"""Benchmark: what one hostile request costs, each case in a
process of its own so that its peak memory is its own.

- ``factoids``: the CPU of checking an assessor's 20,000-factoid draft whose
  marks list every factoid for 3 sentences, and of the largest draft the kind
  takes (every list at its cap); the reference is the straightforward
  ordering, ``sorted(marks, key=factoid_ids.index)``, on
  the same 20,000-factoid draft.
- ``zip``: reading a doccano zip of 20 KB that unpacks to 200 MiB of JSONL
  lines (bzip2): time and peak resident memory.
- ``body``: 8 anonymous requests at once, each a 49 MiB url-encoded POST to
  ``/``, against gunicorn (one process, 8 threads): its resident memory at
  the peak and after.

Run from the project root: ``python -m benchmarks.bounded [--unzipped-mib 200]``.
The same script measures the code before the change when run against an
export of it (``git archive <commit> | tar -x -C /tmp/before``, then
``PYTHONPATH=/tmp/before python -m benchmarks.bounded`` from there). Ends with
``RESULT name=bounded seconds=<factoids draft CPU> reference_seconds=<the old
ordering's CPU> ...``.
"""

from __future__ import annotations

import argparse
import http.client
import io
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FACTOIDS, SENTENCES_MARKED, THREADS, BODY_MIB = 20_000, 3, 8, 49


def _django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
    os.environ["CONCORD_SQLITE_PATH"] = str(Path(tempfile.mkdtemp(prefix="concord-bounded-")) / "db.sqlite3")
    import django

    django.setup()


def _memory_mb(field: str, pid: int | str = "self") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return 0.0


# -- each case, in its own process -----------------------------------------------------


def _factoid_draft() -> tuple[dict, dict]:
    topic = {
        "summaries": [{"id": "M1", "author": "a", "sentences": [{"id": f"s{k}", "text": f"S {k}"} for k in range(26)]}]
    }
    factoids = [{"id": f"f{k}", "text": f"Factoid {k}"} for k in range(FACTOIDS)]
    marks = {f"s{k}": [f"f{j}" for j in reversed(range(FACTOIDS))] for k in range(SENTENCES_MARKED)}
    return topic, {"factoids": factoids, "marks": marks}


def case_factoids() -> dict:
    _django()
    from concord.errors import InvalidInput
    from kinds.registry import KINDS

    kind = KINDS["factoids"].data
    topic, draft = _factoid_draft()
    topic = kind.clean_topic_data(topic)
    started = time.process_time()
    try:
        kind.clean_payload(draft, topic, complete=False)
        outcome = "accepted"
    except InvalidInput as error:
        outcome = f"400 {error.field}"
    draft_cpu = time.process_time() - started
    order = [f["id"] for f in draft["factoids"]]
    started = time.process_time()
    for sentence in draft["marks"].values():
        sorted(sentence, key=order.index)  # what the check did before (kinds/factoids/data.py)
    reference_cpu = time.process_time() - started
    largest = None
    sized = getattr(KINDS["factoids"].examples, "sized", None)
    if sized is not None:  # the largest draft the kind takes: every payload list at its cap
        caps = kind.limits.lists
        data, payload = sized({p: n if p.startswith("payload.") else 1 for p, n in caps.items()})
        data = kind.clean_topic_data(data)
        started = time.process_time()
        kind.clean_payload(payload, data, complete=False)
        largest = time.process_time() - started
    return {"draft_cpu_s": draft_cpu, "outcome": outcome, "reference_cpu_s": reference_cpu, "largest_cpu_s": largest}


def _bomb(unzipped_mib: int) -> bytes:
    line = json.dumps({"id": 1, "text": "The same sentence, again and again.", "label": ["match"]}) + "\n"
    content = line.encode() * (unzipped_mib * 2**20 // len(line))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_BZIP2) as archive:
        archive.writestr("alice.jsonl", content)
    return buffer.getvalue()


def case_zip(path: str) -> dict:
    _django()
    from annotate.imports import interchange
    from concord.errors import InvalidInput

    raw = Path(path).read_bytes()
    before = _memory_mb("VmRSS")
    started = time.perf_counter()
    try:
        outcome = f"{len(interchange.read_doccano(raw))} lines read"
    except InvalidInput as error:
        outcome = f"400 {error.field}: {error.message[:60]}"
    return {
        "seconds": time.perf_counter() - started,
        "peak_mb": _memory_mb("VmHWM") - before,
        "outcome": outcome,
        "zip_kb": len(raw) / 1024,
    }


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _post(port: int, size: int, statuses: list) -> None:
    body_head = b"a="
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    try:
        connection.putrequest("POST", "/")
        connection.putheader("Content-Type", "application/x-www-form-urlencoded")
        connection.putheader("Content-Length", str(size))
        connection.endheaders()
        connection.send(body_head)
        chunk = b"x" * 2**20
        sent = len(body_head)
        while sent < size:
            piece = chunk[: min(len(chunk), size - sent)]
            connection.send(piece)
            sent += len(piece)
        statuses.append(connection.getresponse().status)
    except OSError:  # the server answered and closed before the body was sent
        try:
            statuses.append(connection.getresponse().status)
        except (OSError, http.client.HTTPException):
            statuses.append("closed")
    finally:
        connection.close()


def case_body() -> dict:
    scratch = Path(tempfile.mkdtemp(prefix="concord-bounded-"))
    port = _free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "concord.settings",
        "CONCORD_SQLITE_PATH": str(scratch / "db.sqlite3"),
        "PYTHONPATH": os.environ.get("PYTHONPATH", str(ROOT)),
    }
    env.pop("DATABASE_URL", None)
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "concord.wsgi:application",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "1",
            "--worker-class",
            "gthread",
            "--threads",
            str(THREADS),
            "--timeout",
            "600",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        worker = None
        for _ in range(300):
            time.sleep(0.1)
            children = Path(f"/proc/{server.pid}/task/{server.pid}/children")
            pids = children.read_text().split() if children.exists() else []
            if pids:
                try:
                    probe = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                    probe.request("GET", "/accounts/login/")
                    probe.getresponse().read()
                    probe.close()
                    worker = int(pids[0])
                    break
                except OSError:
                    continue
        if worker is None:
            raise RuntimeError("gunicorn did not start")
        idle = _memory_mb("VmRSS", worker)
        statuses: list = []
        threads = [threading.Thread(target=_post, args=(port, BODY_MIB * 2**20, statuses)) for _ in range(THREADS)]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        seconds = time.perf_counter() - started
        time.sleep(1)
        return {
            "seconds": seconds,
            "idle_mb": idle,
            "peak_mb": _memory_mb("VmHWM", worker),
            "kept_mb": _memory_mb("VmRSS", worker),
            "statuses": sorted(map(str, statuses)),
        }
    finally:
        server.terminate()
        server.wait(30)


# -- the run -------------------------------------------------------------------------------


def _in_a_process(case: str, *args: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.bounded", "--case", case, *args],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", str(ROOT))},
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--unzipped-mib", type=int, default=200, help="what the doccano zip bomb unpacks to")
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("--zip", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.case:
        result = {"factoids": case_factoids, "body": case_body}.get(options.case)
        print(json.dumps(result() if result else case_zip(options.zip)))
        return
    factoids = _in_a_process("factoids")
    with tempfile.NamedTemporaryFile(suffix=".zip") as bomb:
        bomb.write(_bomb(options.unzipped_mib))
        bomb.flush()
        unzipped = _in_a_process("zip", "--zip", bomb.name)
    body = _in_a_process("body")
    largest = factoids["largest_cpu_s"]
    print(f"factoids: a {FACTOIDS:,}-factoid draft ({SENTENCES_MARKED} sentences marking every factoid)")
    print(f"  check: {factoids['draft_cpu_s']:.3f} s of CPU, {factoids['outcome']}")
    print(f"  the old ordering of its marks alone: {factoids['reference_cpu_s']:.3f} s of CPU")
    if largest is not None:
        print(f"  the largest draft the kind takes, checked: {largest:.3f} s of CPU")
    print(f"zip: {unzipped['zip_kb']:.0f} KB unpacking to {options.unzipped_mib} MiB")
    print(f"  {unzipped['seconds']:.2f} s, {unzipped['peak_mb']:.0f} MB at the peak, {unzipped['outcome']}")
    print(f"body: {THREADS} anonymous {BODY_MIB} MiB POSTs at once, answered {', '.join(body['statuses'])}")
    print(
        f"  gunicorn worker: {body['idle_mb']:.0f} MB idle, {body['peak_mb']:.0f} MB at the peak, "
        f"{body['kept_mb']:.0f} MB after; {body['seconds']:.1f} s"
    )
    print(
        f"RESULT name=bounded seconds={factoids['draft_cpu_s']:.4f} "
        f"reference_seconds={factoids['reference_cpu_s']:.4f} "
        f"ratio={factoids['reference_cpu_s'] / max(factoids['draft_cpu_s'], 1e-9):.0f} "
        f"peak_mb={max(unzipped['peak_mb'], body['peak_mb']):.0f} "
        f"largest_factoids_cpu_s={largest if largest is None else round(largest, 4)} "
        f"zip_seconds={unzipped['seconds']:.3f} zip_peak_mb={unzipped['peak_mb']:.0f} "
        f"body_idle_mb={body['idle_mb']:.0f} body_peak_mb={body['peak_mb']:.0f} body_kept_mb={body['kept_mb']:.0f}"
    )


if __name__ == "__main__":
    main()
