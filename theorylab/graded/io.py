"""Reading numeric vectors (profiles, candidate grades) from files or inline text.

Accepted forms (documented in docs/graded.md):
* a ``.json`` file holding a list of numbers;
* any other file holding numbers separated by whitespace and/or commas (``#`` starts a comment);
* inline text of the same form, e.g. ``"0.1,0.2,0.7"`` (used when the string is not a file).
"""
from __future__ import annotations

import json
import os
import re

import numpy as np

from theorylab.errors import ParameterError, real_array


def read_vector(name: str, source: str) -> np.ndarray:
    """Return the finite numbers named by ``source`` (a path or inline text) as a float array."""
    if not isinstance(source, str):
        raise ParameterError(f"{name} must be a file path or a list of numbers as text (got {type(source).__name__})")
    text = source
    if os.path.isfile(source):
        try:
            with open(source, encoding="utf-8") as fh:
                text = fh.read()
        except OSError as exc:
            raise ParameterError(f"{name}: cannot read {source!r} ({exc.strerror})") from None
        except UnicodeDecodeError:
            raise ParameterError(f"{name}: {source!r} is not UTF-8 text") from None
        if source.lower().endswith(".json"):
            try:
                data = json.loads(text)
            except (json.JSONDecodeError, RecursionError) as exc:
                why = getattr(exc, "msg", "too deeply nested")
                raise ParameterError(f"{name}: {source!r} is not valid JSON ({why})") from None
            if not isinstance(data, list) or not data or not all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                                 for x in data):
                raise ParameterError(f"{name}: {source!r} must hold a non-empty JSON list of numbers")
            return real_array(name, data)
    text = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    tokens = [t for t in re.split(r"[\s,]+", text.strip()) if t]
    try:
        values = [float(t) for t in tokens]
    except ValueError:
        what = f"file {source!r}" if os.path.isfile(source) else "a file path or a list of numbers"
        raise ParameterError(f"{name} must be {what} of numbers separated by commas or whitespace "
                             f"(got {source[:40]!r})") from None
    if not values:
        raise ParameterError(f"{name}: no numbers found in {source[:40]!r}")
    return real_array(name, values)
