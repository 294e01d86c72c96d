"""Python and numpy values made JSON-ready: the one cleaning helper.

Reports and job results are stored as JSON, which has no NaN, no tuples and
no numpy types. Core module (no project imports).

>>> import numpy as np
>>> json_ready({"tau": np.float64(0.5), "ranks": np.arange(3), "ed": float("nan"), "pair": ("a", "b")})
{'tau': 0.5, 'ranks': [0, 1, 2], 'ed': None, 'pair': ['a', 'b']}
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["json_ready"]


def json_ready(value: Any) -> Any:
    """``value`` with numpy arrays and scalars as Python values, named tuples
    as objects, tuples as lists, and floats that are not finite as None
    (JSON, and PostgreSQL's jsonb, have no NaN)."""
    if isinstance(value, np.ndarray):
        return json_ready(value.tolist())
    if isinstance(value, np.generic):
        return json_ready(value.item())
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: json_ready(item) for key, item in value.items()}
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return json_ready(value._asdict())
    if isinstance(value, (list, tuple)):
        return [json_ready(item) for item in value]
    return value
