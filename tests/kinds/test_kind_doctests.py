"""The worked examples in the kinds' modules run and hold: every module of every kind
folder in the registry (its statistics' examples run in tests/stats/test_doctests.py too)."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import numpy as np
import pytest

from kinds import KIND_APPS

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted(
    f"{app}.{path.stem}"
    for app in KIND_APPS
    for path in (ROOT / app.replace(".", "/")).glob("*.py")
    if path.stem != "__init__"
)


def test_every_kind_module_is_collected():
    assert "kinds.pairs.partials" in MODULES and "kinds.ordering.report" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    with np.printoptions(legacy=False):
        result = doctest.testmod(importlib.import_module(name), verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
