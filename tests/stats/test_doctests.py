"""The worked examples in the statistics' docstrings run and hold.

Every public function of the shared statistics (``stats/``) and of each kind's
own (``kinds/<kind>/stats.py``) carries a doctest (rule 1 of
docs/architecture.md); this runs them all as part of the suite, one test per
module, so an example that drifts from the code fails here.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import numpy as np
import pytest

import stats
from kinds import KIND_APPS

MODULES = sorted(info.name for info in pkgutil.iter_modules(stats.__path__, "stats."))
MODULES += [f"{app}.stats" for app in KIND_APPS]


def test_every_module_is_collected():
    assert "stats.agreement" in MODULES and "kinds.pairs.stats" in MODULES and len(MODULES) >= 20


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    with np.printoptions(legacy=False):
        result = doctest.testmod(module, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
    if not name.split(".")[-1].startswith("_"):
        assert result.attempted > 0, f"{name} has no worked example"
