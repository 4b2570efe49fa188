"""Plausible one-line mutants of the library source, for mutation testing (``theorylab mutate``).

A mutant is one small edit of one file, the kind of slip a careful author still makes. The
edit is located on the file's syntax tree and spliced into its *text* (formatting, comments
and every other line stay as they are), and the mutated text must parse to a different tree.
The data (:class:`Edit`, :class:`Mutant`) and the id's statement digest are
:mod:`theorylab.mutation.ids`, re-exported here; this module generates the mutants.

Mutant ids
----------
``file::scope::operator::statement.k``, e.g. ``theorylab/psa/shear.py::_width::const(4->5)::1f0c9a2e.0``:
``scope`` is the qualified name of the enclosing function or class (``Class.method``,
``outer.inner``; ``<module>`` for module-level code; a default argument belongs to its function),
``statement`` the first 8 hex digits of the SHA-256 of the enclosing statement's normalised
syntax tree (a compound statement: its header only -- the test of an ``if``, the target and
iterable of a ``for``, the signature of a ``def``), and ``k`` the index, in source order, of this
mutant among those of the scope with the same operator and statement digest. The tree is written
out by :func:`normalised` (node types and field values, no positions, no empty fields), so
comments, formatting and the Python version do not enter. An id therefore stays the same when
lines are added, removed or edited anywhere else in the file, and also elsewhere in the same
function; it changes when the statement itself is edited (an equivalence argued for the old
statement has to be argued again) or when an identical statement is added before it in the same
scope. ``line`` and ``col`` (1-based, of the anchor) are display fields (:attr:`Mutant.location`).

Operators (the third field of the mutant id)
--------------------------------------------
``arith(+->-)`` ...   arithmetic operator swaps ``+ <-> -``, ``* <-> /``, ``** -> *``, ``// -> /``
                      (also in augmented assignments, ``aug(+=->-=)``);
``drop(+,right)``     one term of a sum / one factor of a product or quotient dropped;
``const(2->1)``       numeric constants: an integer ``c`` becomes ``c+1`` and ``c-1`` (``c > 0``),
                      a float ``c`` becomes ``2c`` and ``c/2`` (``0.0 -> 1.0``);
``cmp(<-><=)``        comparison flips ``< <-> <=``, ``> <-> >=``;
``unary(-)``          a unary minus (``not``, ``~``) removed;
``call(np.sqrt)``     a one-argument numeric wrapper removed (``np.sqrt(x) -> x``);
``range(stop+1)``     off-by-one in a non-literal ``range`` bound or slice bound (literal bounds
                      are covered by ``const``);
``bool(and->or)``     ``and <-> or``.

Not mutated (not a plausible bug of the mathematics, or not checkable by a certificate)
---------------------------------------------------------------------------------------
strings, docstrings and f-strings; type annotations; decorators; ``raise`` and ``assert``
statements; the condition and body of a validation branch (an ``if`` whose body ends in
``raise``) and the assignment of a flag that only serves as such a condition (``ok = ...;
if not ok: raise``); validation bounds (keyword arguments ``low``, ``high``, ``*_inclusive``,
``allow_empty`` -- in this library they only ever bound a validated parameter); seeds,
tolerances and solver controls (keywords, defaults or assigned names in
:data:`CONTROL_NAMES` or ending in ``tol``); progress bars and printing (calls of
:data:`QUIET_CALLS`, a ``progress``/``bar`` variable, a function that builds a ``tqdm``
bar); ``__repr__``/``__str__``; ``if __name__ == "__main__"``; resource estimates (functions named
``*_cost`` or ``memory_estimate``, ``*_SECONDS`` timing calibrations, the arguments of
:data:`RESOURCE_CALLS`): they decide whether a request is refused as too big, never a result,
and tests/test_cli_limits.py checks them.

Where a mutant can act (``scope``, used to pick the certificates that run it)
-------------------------------------------------------------------------------
``line``: inside a function body -- the lines of its innermost statement (the header of a
compound statement); ``function``: a default argument (evaluated at import) -- the body of
that function; ``module``: module level or a class body -- ``names`` are the names the
top-level statement binds (none for a class body); ``numba``: inside a Numba-compiled (or
Numba-typed) function, never traced line by line -- ``names`` is that function.
:class:`theorylab.mutation.run.Coverage` turns a scope into certificates.
"""
from __future__ import annotations

import ast
import bisect
import io
import math
import tokenize
from dataclasses import replace

from theorylab.mutation.callgraph import bound_names, is_numba
from theorylab.mutation.ids import MODULE, Edit, Mutant, _splice, normalised, statement_digest  # noqa: F401

ARITH_SWAPS = {ast.Add: ("+", ["-"]), ast.Sub: ("-", ["+"]), ast.Mult: ("*", ["/"]),
               ast.Div: ("/", ["*"]), ast.Pow: ("**", ["*"]), ast.FloorDiv: ("//", ["/"])}
DROPPABLE = (ast.Add, ast.Sub, ast.Mult, ast.Div)
COMPARE_FLIPS = {ast.Lt: ("<", "<="), ast.LtE: ("<=", "<"), ast.Gt: (">", ">="), ast.GtE: (">=", ">")}
WRAPPERS = frozenset("""sqrt cbrt exp exp2 expm1 log log2 log10 log1p abs fabs square sin cos tan tanh sinh cosh
    arctan arcsin arccos arctanh atan asin acos floor ceil round rint trunc sign conj conjugate real sum mean
    prod cumsum cumprod max min amax amin diag trace transpose sort expit sigmoid silu""".split())
"""Numeric one-argument wrappers whose removal is a plausible slip (``np.sqrt(x) -> x``)."""
VALIDATION_KEYWORDS = frozenset({"low", "high", "low_inclusive", "high_inclusive", "allow_empty"})
CONTROL_NAMES = frozenset({"seed", "tol", "rtol", "atol", "xtol", "maxiter", "max_iter", "maxfev", "limit",
                           "epsabs", "epsrel", "delay", "prec", "dps"})
"""Keyword arguments / parameters that are seeds or numerical-solver controls, not mathematics."""
QUIET_CALLS = frozenset({"print", "tqdm", "warn", "debug", "info", "warning", "error", "exception"})
PROGRESS_NAMES = frozenset({"progress", "bar", "pbar"})
RESOURCE_CALLS = frozenset({"check_memory", "check_cost"})
"""Calls that refuse a request too big for the machine: their arguments are resource estimates."""


def _is_resource_estimate(name: str) -> bool:
    """A function or constant that estimates memory or time (``*_cost``, ``memory_estimate``,
    ``*_SECONDS`` calibrations): it decides refusals, never a result."""
    return name.endswith(("_cost", "_SECONDS")) or name in ("memory_estimate", "_RATE_GUESS")


def _tree(segment: str) -> str:
    """The syntax tree of an expression or slice, as text (``_[...]`` parses both, on any lines)."""
    return ast.dump(ast.parse(f"_[{segment}\n]", mode="eval"))


class _Source:
    """Offsets and tokens of one file (AST columns are UTF-8 byte offsets; edits are characters)."""

    def __init__(self, text: str):
        self.text = text
        self.lines = [ln + "\n" for ln in text.split("\n")]   # AST and tokenize split lines at \n only
        self.starts = [0]
        for ln in self.lines:
            self.starts.append(self.starts[-1] + len(ln))
        self.tokens = [(self.starts[t.start[0] - 1] + t.start[1], t.string)
                       for t in tokenize.generate_tokens(io.StringIO(text).readline)
                       if t.type in (tokenize.OP, tokenize.NAME)]
        self.token_starts = [t[0] for t in self.tokens]

    def offset(self, line: int, byte_col: int) -> int:
        return self.starts[line - 1] + len(self.lines[line - 1].encode()[:byte_col].decode(errors="ignore"))

    def start(self, node) -> int:
        return self.offset(node.lineno, node.col_offset)

    def end(self, node) -> int:
        return self.offset(node.end_lineno, node.end_col_offset)

    def segment(self, node) -> str:
        return self.text[self.start(node):self.end(node)]

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a character offset."""
        line = bisect.bisect_right(self.starts, offset) - 1
        return line + 1, offset - self.starts[line] + 1

    def token_between(self, start: int, end: int, strings) -> tuple[int, int] | None:
        """First OP/NAME token in ``[start, end)`` whose text is one of ``strings``: its (start, end)."""
        for a, text in self.tokens[bisect.bisect_left(self.token_starts, start):]:
            if a >= end:
                return None
            if text in strings:
                return a, a + len(text)
        return None


def _name(node) -> str:
    """Dotted name of a call target (``np.sqrt``), or ''."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _name(node.value)
        return f"{inner}.{node.attr}" if inner else node.attr
    return ""


def _last(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def _is_validation_branch(node) -> bool:
    return isinstance(node, ast.If) and bool(node.body) and isinstance(node.body[-1], ast.Raise)


def _mentions(node, names) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def _builds_progress_bar(fn) -> bool:
    return any(isinstance(n, ast.Call) and _last(_name(n.func)) == "tqdm" for n in ast.walk(fn))


def _is_control(name: str | None) -> bool:
    return name is not None and (name.lower() in CONTROL_NAMES or name.lower().endswith("tol"))


def _validation_flags(fn) -> set[str]:
    """Variables of ``fn`` that only ever serve as the test of a validation branch (``ok = ...;
    if not ok: raise``): their assignments are validation too."""
    tests, flags = [], set()
    for node in ast.walk(fn):
        if _is_validation_branch(node):
            test = node.test.operand if isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not) \
                else node.test
            if isinstance(test, ast.Name):
                flags.add(test.id)
                tests.append(test)
    loads = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in flags]
    return {f for f in flags if all(any(n is t for t in tests) for n in loads if n.id == f)}


def _is_textual(node) -> bool:
    return isinstance(node, (ast.JoinedStr, ast.List, ast.Tuple, ast.ListComp)) or (
        isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)))


def _header_lines(stmt) -> tuple[int, int]:
    """Lines of a statement that run when its expression(s) are evaluated (compound: the header)."""
    if isinstance(stmt, (ast.If, ast.While)):
        return stmt.lineno, stmt.test.end_lineno
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        return stmt.lineno, stmt.iter.end_lineno
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return stmt.lineno, stmt.items[-1].context_expr.end_lineno
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Try)):
        return stmt.lineno, stmt.lineno
    return stmt.lineno, stmt.end_lineno


def _const_variants(value) -> list:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return []
    if isinstance(value, int):
        return [value + 1] + ([value - 1] if value > 0 else [])
    return [v for v in ([2 * value, value / 2] if value != 0 else [1.0]) if math.isfinite(v) and v != value]


class _Generator(ast.NodeVisitor):
    """Walks one module and collects mutants; context (scope, skipping) is kept on a stack."""

    def __init__(self, file: str, src: _Source):
        self.file, self.src = file, src
        self.mutants: list[Mutant] = []
        self.scope = ("module", (1, len(src.lines)))
        self.skip = 0
        self.names: tuple[str, ...] = ()     # the top-level statement's bound names / the Numba function
        self.flags: set[str] = set()
        self.qualname = MODULE                # the id's scope
        self.statement = ""                   # the id's statement digest

    def visit_Module(self, node):
        for stmt in node.body:
            self.names = () if isinstance(stmt, ast.ClassDef) else bound_names(stmt)
            self.visit(stmt)

    # -- context ---------------------------------------------------------------------------
    def _with(self, nodes, *, scope=None, skip=False):
        saved = (self.scope, self.skip)
        if scope is not None:
            self.scope = scope
        self.skip += bool(skip)
        for node in nodes:
            if node is not None:
                self.visit(node)
        self.scope, self.skip = saved

    def generic_visit(self, node):
        if isinstance(node, ast.stmt):
            self._statement(node)
        else:
            self._mutate(node)
            super().generic_visit(node)

    def _statement(self, node):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AugAssign, ast.AnnAssign)) else []
        bound = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        skip = isinstance(node, (ast.Raise, ast.Assert, ast.Import, ast.ImportFrom)) or bool(
            bound & (PROGRESS_NAMES | self.flags)) or any(_is_control(b) or _is_resource_estimate(b) for b in bound) \
            or (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                and _last(_name(node.value.func)) in RESOURCE_CALLS)
        if isinstance(node, ast.If) and (_is_validation_branch(node) or _mentions(node.test, PROGRESS_NAMES)
                                         or "__name__" in ast.dump(node.test)):
            self._with([node.test] + node.body, skip=True)
            self._with(node.orelse)
            return
        children = list(ast.iter_child_nodes(node))
        inner = ("line", _header_lines(node)) if self.scope[0] == "line" else None
        saved, self.statement = self.statement, statement_digest(node)
        self._with([c for c in children if not isinstance(c, ast.stmt)], skip=skip, scope=inner)
        self.statement = saved
        self._with([c for c in children if isinstance(c, ast.stmt)], skip=skip)

    def visit_FunctionDef(self, node):
        skip = node.name in ("__repr__", "__str__", "__format__") or _builds_progress_bar(node) \
            or _is_resource_estimate(node.name)
        body = (node.body[0].lineno, node.end_lineno)
        if self.scope[0] == "numba" or is_numba(node):
            inner = ("numba", body)
        else:
            inner = ("line", body)
        a = node.args
        positional = a.posonlyargs + a.args
        params = list(zip(a.defaults, positional[len(positional) - len(a.defaults):])) + list(
            zip(a.kw_defaults, a.kwonlyargs))
        defaults = [d for d, p in params if d is not None and not _is_control(p.arg)]
        saved = self.flags, self.qualname, self.statement
        self.flags = _validation_flags(node)
        self.qualname = node.name if self.qualname == MODULE else f"{self.qualname}.{node.name}"
        self.statement = statement_digest(node)
        self._with(defaults, scope=("numba", body) if inner[0] == "numba" else ("function", body), skip=skip)
        self._with(node.body, scope=inner, skip=skip)
        self.flags, self.qualname, self.statement = saved

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        saved = self.qualname
        self.qualname = node.name if self.qualname == MODULE else f"{self.qualname}.{node.name}"
        self._with(node.body)
        self.qualname = saved

    def visit_arg(self, node):
        pass  # annotations

    def visit_AnnAssign(self, node):
        saved, self.statement = self.statement, statement_digest(node)
        self._with([node.value], scope=("line", _header_lines(node)) if self.scope[0] == "line" else None)
        self.statement = saved

    def visit_JoinedStr(self, node):
        pass

    def visit_keyword(self, node):
        if node.arg in VALIDATION_KEYWORDS or _is_control(node.arg):
            return
        self.visit(node.value)

    def visit_Call(self, node):
        name = _name(node.func)
        receiver = _name(node.func.value) if isinstance(node.func, ast.Attribute) else ""
        if _last(name) in QUIET_CALLS or receiver in PROGRESS_NAMES or "logging" in name or "logger" in name:
            return
        if _last(name) in ("default_rng", "SeedSequence"):
            return
        self._mutate(node)
        ast.NodeVisitor.generic_visit(self, node)

    # -- mutants -----------------------------------------------------------------------------
    def _add(self, anchor: int, operator: str, edits, node):
        """Record a mutant whose edits all lie inside ``node`` -- if the edited node still parses
        and differs from the original node as a tree."""
        if self.skip:
            return
        start, before = self.src.start(node), self.src.segment(node)
        after = _splice(before, [Edit(e.start - start, e.end - start, e.text) for e in edits])
        try:
            if _tree(after) == _tree(before):
                return
        except SyntaxError:
            return
        line, col = self.src.position(anchor)
        kind, lines = self.scope
        self.mutants.append(Mutant(self.file, line, col, operator, tuple(edits), kind, lines,
                                   _short(before), _short(after), self.names if kind in ("numba", "module") else (),
                                   self.qualname, self.statement))

    def _mutate(self, node):
        if self.skip:
            return
        src = self.src
        if isinstance(node, ast.BinOp) and type(node.op) in ARITH_SWAPS:
            if _is_textual(node.left) or _is_textual(node.right):
                return
            sym, news = ARITH_SWAPS[type(node.op)]
            tok = src.token_between(src.end(node.left), src.start(node.right), {sym})
            if tok is None:
                return
            a, b = tok
            for new in news:
                if isinstance(node.op, ast.Pow):  # keep the tree's grouping: (L) * (R)
                    edits = [Edit(src.start(node), src.end(node),
                                  f"({src.segment(node.left)}) * ({src.segment(node.right)})")]
                else:
                    edits = [Edit(a, b, new)]
                self._add(a, f"arith({sym}->{new})", edits, node)
            if isinstance(node.op, DROPPABLE):
                self._add(a, f"drop({sym},right)", [Edit(src.start(node), src.end(node),
                                                          f"({src.segment(node.left)})")], node)
                family = (ast.Add, ast.Sub) if isinstance(node.op, (ast.Add, ast.Sub)) else (ast.Mult, ast.Div)
                chained = isinstance(node.left, ast.BinOp) and isinstance(node.left.op, family)
                if not chained and not isinstance(node.op, ast.Div):
                    sign = "-" if isinstance(node.op, ast.Sub) else ""
                    self._add(a, f"drop({sym},left)", [Edit(src.start(node), src.end(node),
                                                             f"({sign}({src.segment(node.right)}))")], node)
        elif isinstance(node, ast.Constant):
            for new in _const_variants(node.value):
                text = repr(new)
                self._add(src.start(node), f"const({node.value!r}->{text})",
                          [Edit(src.start(node), src.end(node), text)], node)
        elif isinstance(node, ast.Compare):
            for op, left, right in zip(node.ops, [node.left] + node.comparators[:-1], node.comparators):
                if type(op) in COMPARE_FLIPS:
                    old, new = COMPARE_FLIPS[type(op)]
                    tok = src.token_between(src.end(left), src.start(right), {old})
                    if tok:
                        self._add(tok[0], f"cmp({old}->{new})", [Edit(tok[0], tok[1], new)], node)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Not, ast.Invert)):
            sym = {ast.USub: "-", ast.Not: "not", ast.Invert: "~"}[type(node.op)]
            self._add(src.start(node), f"unary({sym})",
                      [Edit(src.start(node), src.end(node), f"({src.segment(node.operand)})")], node)
        elif isinstance(node, ast.Call):
            name = _name(node.func)
            if (_last(name) in WRAPPERS and len(node.args) == 1 and not node.keywords
                    and not isinstance(node.args[0], ast.Starred)):
                self._add(src.start(node), f"call({name})",
                          [Edit(src.start(node), src.end(node), f"({src.segment(node.args[0])})")], node)
            if name == "range" and not node.keywords:
                for arg, label in zip(node.args[:2], ("stop",) if len(node.args) == 1 else ("start", "stop")):
                    self._off_by_one(arg, f"range({label}", node)
        elif isinstance(node, ast.Slice):
            for arg, label in ((node.lower, "lower"), (node.upper, "upper")):
                if arg is not None:
                    self._off_by_one(arg, f"slice({label}", node)
        elif isinstance(node, ast.BoolOp):
            old, new = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
            edits, pos = [], None
            for left, right in zip(node.values, node.values[1:]):
                tok = src.token_between(src.end(left), src.start(right), {old})
                if tok:
                    edits.append(Edit(tok[0], tok[1], new))
                    pos = tok[0] if pos is None else pos
            if edits:
                self._add(pos, f"bool({old}->{new})", edits, node)

    def _off_by_one(self, arg, label, node):
        if isinstance(arg, ast.Constant) or (isinstance(arg, ast.UnaryOp) and isinstance(arg.operand, ast.Constant)):
            return  # literal bounds: the const operator covers them
        src = self.src
        for delta in ("+1", "-1"):
            self._add(src.start(arg), f"{label}{delta})",
                      [Edit(src.start(arg), src.end(arg), f"({src.segment(arg)}) {delta[0]} 1")], arg)


def _short(text: str, width: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def generate(file: str, source: str) -> list[Mutant]:
    """Every mutant of one file (``file`` is its path relative to the library root, with ``/``).

    Each edited node must parse and differ from the original node as a tree; ids (module docstring)
    are unique (a duplicate id is an error of this module). In source order.
    """
    gen = _Generator(file, _Source(source))
    gen.visit(ast.parse(source))
    counts: dict[tuple[str, str, str], int] = {}
    mutants = []
    for m in sorted(gen.mutants, key=lambda m: (m.line, m.col)):   # stable: ties keep the visiting order
        group = (m.qualname, m.operator, m.statement)
        mutants.append(replace(m, k=counts.get(group, 0)))
        counts[group] = counts.get(group, 0) + 1
    ids = [m.id for m in mutants]
    if len(set(ids)) != len(ids):
        raise AssertionError(f"duplicate mutant ids in {file}: {sorted({i for i in ids if ids.count(i) > 1})[:3]}")
    return mutants
