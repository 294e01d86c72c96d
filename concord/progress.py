"""The progress callback long work reports through: ``progress(fraction, message)``.

Core module (no project imports): jobs, recomputes and the kinds' analyses
all take one.
"""

from __future__ import annotations

from collections.abc import Callable

#: ``progress(fraction done in [0, 1], a short message for the page)``.
Progress = Callable[[float, str], None]
