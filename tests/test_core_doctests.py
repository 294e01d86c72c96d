"""The worked examples in the core modules' docstrings (concord/*.py, and a few generic helpers) run and hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

CORE = [
    "concord.digits",
    "concord.jsonready",
    "concord.help",
    "concord.markdown",
    "concord.paramforms",
    "concord.typed",
    "annotate.allocation",
    "annotate.organiser_views",
    "annotate.templatetags.annotate_tags",
    "scoring.fields",
    "scoring.progress",
]


@pytest.mark.parametrize("name", CORE)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted, f"{name} has no examples: take it off the list"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
