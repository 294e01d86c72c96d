"""The work one import or preview may spend reading its file: CPU time, cells, memory.

Every reader of an upload is bounded by the file's bytes (concord.reading,
annotate.imports.xlsx); this is the backstop over all of them together, so that one
request's file never takes more than its share of a web worker whatever the
readers miss. A view that imports or previews a file runs it in
:func:`scope`; the readers spend from the budget as they go (:meth:`Budget.spend`
for each cell or line, :meth:`Budget.hold` for what they keep) and the first
budget exceeded is refused, 400 naming it:

- ``CONCORD_IMPORT_CPU_SECONDS`` (default 30): CPU time of the request's
  thread since the import started (``time.thread_time``), checked every
  ``CHECK_EVERY`` cells;
- ``CONCORD_IMPORT_MAX_CELLS`` (default 20,000,000): cells read or made (a
  spreadsheet's, a table's, one per line of a text file), blank cells a row is
  padded with included;
- ``CONCORD_IMPORT_MEMORY_BYTES`` (default 512 MiB): what the readers hold
  (a spreadsheet's shared strings, a table converted to CSV), and the
  process's resident memory's growth since the import started (Linux:
  ``/proc/self/statm``), checked with the CPU.

A reader called outside any scope (a management command, a test) starts a
budget of its own (:func:`get`); text read line by line is counted only inside
a scope (:func:`active`), so ``manage.py import_*`` reads files of any length.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from django.conf import settings

from concord.errors import InvalidInput

#: Cells spent between two checks of the CPU time and the resident memory.
CHECK_EVERY = 16_384

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _resident() -> int:
    """This process's resident memory in bytes (0 where /proc is not there)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


@dataclass
class Budget:
    cpu_seconds: float
    cells: int
    memory: int
    cells_used: int = 0
    rows_read: int = 0
    held: int = 0
    cpu_start: float = field(default_factory=time.thread_time)
    resident_start: int = field(default_factory=_resident)
    _next_check: int = CHECK_EVERY

    @classmethod
    def from_settings(cls) -> Budget:
        return cls(
            cpu_seconds=settings.CONCORD_IMPORT_CPU_SECONDS,
            cells=settings.CONCORD_IMPORT_MAX_CELLS,
            memory=settings.CONCORD_IMPORT_MEMORY_BYTES,
        )

    def spend(self, cells: int = 1) -> None:
        """Count ``cells`` of work; refuse past the cells budget, and check the
        CPU and the memory every ``CHECK_EVERY``."""
        self.cells_used += cells
        if self.cells_used > self.cells:
            raise InvalidInput(
                "file",
                f"more than {self.cells:,} cells to read (the import's work budget, CONCORD_IMPORT_MAX_CELLS): "
                "split the file, or import it with manage.py",
            )
        if self.cells_used >= self._next_check:
            self._next_check = self.cells_used + CHECK_EVERY
            self.check()

    def row(self) -> None:
        """Count a row read (for the record: tests and benchmarks read it)."""
        self.rows_read += 1

    def hold(self, size: int) -> None:
        """Count ``size`` bytes a reader keeps until the import ends."""
        self.held += size
        if self.held > self.memory:
            self._refuse_memory()

    def check(self) -> None:
        if time.thread_time() - self.cpu_start > self.cpu_seconds:
            raise InvalidInput(
                "file",
                f"reading it took more than {self.cpu_seconds:g} s of CPU (the import's CPU budget, "
                "CONCORD_IMPORT_CPU_SECONDS): split the file, or import it with manage.py",
            )
        if self.resident_start and _resident() - self.resident_start > self.memory:
            self._refuse_memory()

    def _refuse_memory(self) -> None:
        raise InvalidInput(
            "file",
            f"reading it takes more than {self.memory / 2**20:.3g} MiB of memory (the import's memory budget, "
            "CONCORD_IMPORT_MEMORY_BYTES): split the file, or import it with manage.py",
        )


_current: ContextVar[Budget | None] = ContextVar("concord_import_budget", default=None)


@contextmanager
def scope() -> Iterator[Budget]:
    """Run an import or a preview within one budget (the one already running, if any)."""
    running = _current.get()
    if running is not None:
        yield running
        return
    budget = Budget.from_settings()
    token = _current.set(budget)
    try:
        yield budget
    finally:
        _current.reset(token)


def active() -> Budget | None:
    """The budget of the import running, if any."""
    return _current.get()


def get() -> Budget:
    """The budget of the import running, or a new one for a reader called outside any."""
    return _current.get() or Budget.from_settings()
