"""A mutant as data -- its edits, where it can act -- and its stable id (``theorylab mutate``).

The id ``file::scope::operator::statement.k`` and the ``scope`` a mutant can act in are described
in :mod:`theorylab.mutation.mutants`, which generates the mutants and re-exports every name here.
:func:`statement_digest` is the ``statement`` field: it depends on the statement's syntax tree
only (:func:`normalised`), so an id survives edits elsewhere and a move of the code to another
file changes only its ``file`` field.
"""
from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass

MODULE = "<module>"
"""The scope of module-level code in a mutant id."""


def normalised(node) -> str:
    """The syntax tree ``node`` written out without positions or empty fields (``None``, ``[]``):
    the same text for the same code on every Python version this library supports."""
    if isinstance(node, ast.AST):
        fields = [(name, getattr(node, name, None)) for name in node._fields]
        inner = ",".join(f"{name}={normalised(value)}" for name, value in fields if value not in (None, []))
        return f"{type(node).__name__}({inner})"
    if isinstance(node, list):
        return "[" + ",".join(normalised(v) for v in node) + "]"
    return repr(node)


def statement_digest(stmt) -> str:
    """First 8 hex digits of the SHA-256 of a statement's :func:`normalised` tree; a compound statement
    counts with its header only (its bodies are statements of their own)."""
    header = [f"{name}={normalised(value)}" for name, value in ast.iter_fields(stmt)
              if value not in (None, []) and not (isinstance(value, list) and isinstance(
                  value[0], (ast.stmt, ast.excepthandler, getattr(ast, "match_case", ast.stmt))))]
    text = f"{type(stmt).__name__}({','.join(header)})"
    return hashlib.sha256(text.encode()).hexdigest()[:8]


@dataclass(frozen=True)
class Edit:
    """Replace characters ``start:end`` of the source by ``text``."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Mutant:
    """One mutant of one file. ``lines`` are the source lines whose execution selects
    certificates (``scope`` says how to read them, see the module docstring)."""

    file: str
    line: int
    col: int
    operator: str
    edits: tuple[Edit, ...]
    scope: str
    lines: tuple[int, int]
    before: str
    after: str
    names: tuple[str, ...] = ()
    qualname: str = MODULE
    statement: str = ""
    k: int = 0

    @property
    def id(self) -> str:
        """Id ``file::scope::operator::statement.k``, stable under edits elsewhere (module docstring)."""
        return f"{self.file}::{self.qualname}::{self.operator}::{self.statement}.{self.k}"

    @property
    def location(self) -> str:
        """``file:line:col`` of the anchor (display only: it moves with every edit above it)."""
        return f"{self.file}:{self.line}:{self.col}"

    @property
    def package(self) -> str:
        """The library package (``psa`` for ``theorylab/psa/shear.py``; ``rng`` for the shared module
        ``theorylab/rng.py``)."""
        parts = self.file.split("/")
        return parts[1] if len(parts) > 2 else parts[-1].removesuffix(".py")

    def apply(self, source: str) -> str:
        """The mutated source."""
        return _splice(source, self.edits)


def _splice(text: str, edits) -> str:
    out, pos = [], 0
    for e in sorted(edits, key=lambda e: e.start):
        out += [text[pos:e.start], e.text]
        pos = e.end
    return "".join(out + [text[pos:]])


__all__ = ["MODULE", "normalised", "statement_digest", "Edit", "Mutant"]
