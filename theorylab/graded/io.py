"""Reading numeric vectors (profiles, candidate grades) from files or inline text.

Accepted forms (documented in docs/graded.md):
* a ``.json`` file holding a list of numbers;
* any other file holding numbers separated by whitespace and/or commas (``#`` starts a comment);
* inline text of the same form, e.g. ``"0.1,0.2,0.7"`` (used when no file of that name exists).

A named file that cannot be used (a directory, a pipe, unreadable, binary, not UTF-8, not a list
of numbers) is refused in one line naming the option (:func:`theorylab._io.read_text`).
"""
from __future__ import annotations

import os
import re

import numpy as np

from theorylab._io import input_cost, parse_json, read_text
from theorylab.errors import ParameterError, describe, real_array
from theorylab.resources import Cost

__all__ = ["VECTOR_BYTES_PER_BYTE", "read_vector_cost", "read_vector"]

VECTOR_BYTES_PER_BYTE = 40.0
"""Peak bytes of the parsed numbers per byte of a vector file (tokens, floats, the array)."""


def read_vector_cost(source: str) -> Cost:
    """Peak memory and time of :func:`read_vector` (inline text is already in memory: no cost; any string is valid
    here, :func:`read_vector` refuses what is not a list of numbers)."""
    if not isinstance(source, str):
        raise ParameterError(f"source must be a file path or a list of numbers as text (got {describe(source)})")
    return input_cost(source, VECTOR_BYTES_PER_BYTE) if source and os.path.lexists(source) else Cost()


def read_vector(name: str, source: str) -> np.ndarray:
    """Return the finite numbers named by ``source`` (a path or inline text) as a float array.

    Examples
    --------
    A profile (GLLM §3, Def. 2) given inline, or the name of a file holding it:

    >>> import theorylab.graded as gr
    >>> gr.read_vector("alpha", "0.5, 0.3 0.2")
    array([0.5, 0.3, 0.2])
    """
    if not isinstance(source, str):
        raise ParameterError(f"{name} must be a file path or a list of numbers as text (got {type(source).__name__})")
    is_file = bool(source) and os.path.lexists(source)
    text = read_text(name, source) if is_file else source
    if is_file and source.lower().endswith(".json"):
        data = parse_json(text, f"{name}: {source!r}")
        if not isinstance(data, list) or not data or not all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                             for x in data):
            raise ParameterError(f"{name}: {source!r} must hold a non-empty JSON list of numbers")
        try:
            return real_array(name, [float(x) for x in data])
        except OverflowError:
            raise ParameterError(f"{name}: {source!r} holds a number beyond the float range") from None
    text = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    tokens = [t for t in re.split(r"[\s,]+", text.strip()) if t]
    try:
        values = [float(t) for t in tokens]
    except ValueError as exc:
        if is_file:
            raise ParameterError(f"{name}: file {source!r} must hold numbers separated by commas or whitespace "
                                 f"({exc})") from None
        raise ParameterError(f"{name} must be a file path or a list of numbers separated by commas or whitespace "
                             f"(got {source[:40]!r})") from None
    if not values:
        raise ParameterError(f"{name}: no numbers found in {source[:40]!r}")
    return real_array(name, values)
