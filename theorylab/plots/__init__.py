"""Matplotlib figures, one module per area.

Every plot function returns a :class:`matplotlib.figure.Figure` and accepts ``ax=``: the caller's Axes
(a sequence of them for a figure of several panels) to draw into, in which case it returns their
figure.  Figures are made without pyplot, so no plot function selects, changes or needs a backend
(a notebook's inline backend stays the notebook's); nothing is saved or closed by a plot function.
Files are written by :func:`save` (format from the suffix, :data:`DPI`, atomically), the figures of
the command line and the studies drawn in :data:`STYLE` by :func:`write_figure`.
"""
from __future__ import annotations

import contextlib
import os
from typing import Callable, Iterator, Sequence

import numpy as np

from theorylab._io import atomic_path, check_output_path
from theorylab.errors import ParameterError

FIGURE_SUFFIXES: tuple[str, ...] = (".png", ".pdf", ".svg")
"""File suffixes :func:`save` writes; the suffix picks the format."""
DPI = 150
"""Resolution of every saved figure (PNG pixels; PDF and SVG embed raster parts at it)."""
STYLE: dict[str, object] = {
    "font.size": 9.0, "axes.titlesize": 9.0, "axes.labelsize": 9.0, "legend.fontsize": 7.0,
    "xtick.labelsize": 8.0, "ytick.labelsize": 8.0, "lines.markersize": 4.5, "legend.framealpha": 0.85,
    "svg.fonttype": "none", "pdf.fonttype": 42,
}
"""The one style of the figures theorylab writes (an rcParams dict), applied by :func:`style` only
around drawing and saving, never to the session's global rcParams."""


@contextlib.contextmanager
def style() -> Iterator[None]:
    """Context manager: :data:`STYLE` in force inside, the caller's rcParams restored on exit."""
    import matplotlib

    with matplotlib.rc_context(STYLE):
        yield


def panels(n: int, width: float, height: float, ax=None):
    """``(figure, [axes])``: ``n`` side-by-side panels of a new pyplot-free figure, or the caller's.

    Parameters
    ----------
    n : number of panels.
    width, height : size in inches of a new figure (constrained layout).
    ax : None for a new figure; else one Axes (``n == 1``) or a sequence of ``n`` Axes to draw into.

    Raises
    ------
    ParameterError
        When ``ax`` is not an Axes (n = 1) or a sequence of ``n`` Axes.
    """
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    if ax is None:
        fig = Figure(figsize=(width, height), layout="constrained")
        return fig, list(fig.subplots(1, n, squeeze=False)[0])
    if isinstance(ax, Axes):
        axes = [ax]
    elif hasattr(ax, "flat"):                       # a NumPy array of Axes (pyplot.subplots)
        axes = list(ax.flat)
    elif isinstance(ax, Sequence):
        axes = list(ax)
    else:
        axes = None
    if axes is None or len(axes) != n or not all(isinstance(a, Axes) for a in axes):
        raise ParameterError(f"ax must be {'an Axes or ' if n == 1 else ''}a sequence of {n} matplotlib Axes "
                             f"(got {type(ax).__name__}{'' if axes is None else f' of {len(axes)}'})")
    return axes[0].figure, axes


def new_figure(width: float = 5.5, height: float = 4.0, ax=None):
    """``(figure, axes)`` of one panel: a new pyplot-free figure, or ``ax`` and its figure."""
    fig, (axes,) = panels(1, width, height, ax)
    return fig, axes


def plain_ticks(axis, values, most: int = 10) -> None:
    """Major ticks of ``axis`` (an ``ax.xaxis``/``ax.yaxis``) at grid ``values``, labelled as plain numbers
    (integers without a decimal point; a log axis otherwise writes ``6x10^1``); no minor ticks.

    On a dense positive grid the ticks are thinned so that neighbours are at least 1/``most`` of the
    grid's log span apart: powers of two first (16, 32, 64, ...), then the other values that fit."""
    from matplotlib.ticker import FixedFormatter, FixedLocator, NullFormatter, NullLocator

    values = sorted({float(v) for v in values})
    if len(values) > 2 and values[0] > 0:
        logs = np.log10(values)
        gap = (logs[-1] - logs[0]) / most * (1 - 1e-9)
        power2 = [v for v in values if float(np.log2(v)).is_integer()]
        chosen: list[float] = []
        for v in power2 + [v for v in values if v not in power2]:
            if all(abs(np.log10(v) - np.log10(c)) >= gap for c in chosen):
                chosen.append(v)
        values = sorted(chosen)
    axis.set_major_locator(FixedLocator(values))
    axis.set_major_formatter(FixedFormatter([f"{v:.0f}" if v == round(v) else f"{v:g}" for v in values]))
    axis.set_minor_locator(NullLocator())
    axis.set_minor_formatter(NullFormatter())


def check_figure_path(name: str, path: str) -> str:
    """Return ``path`` if :func:`save` can write it (a suffix of :data:`FIGURE_SUFFIXES`, an existing
    writable folder), else raise a one-line :class:`ParameterError` naming ``name`` and the suffixes."""
    return check_output_path(name, path, FIGURE_SUFFIXES)


def save(fig, path: str, name: str = "path") -> str:
    """Write ``fig`` to ``path`` atomically (no half-written file), format from the suffix, :data:`DPI`.

    Parameters
    ----------
    fig : a matplotlib Figure (from pyplot or not; it is not closed).
    path : output file ending in one of :data:`FIGURE_SUFFIXES` (any case).
    name : what to call ``path`` in an error message (a CLI passes its option, e.g. ``"--plot"``).

    Returns
    -------
    ``path``.

    Raises
    ------
    ParameterError
        When the suffix is not one of :data:`FIGURE_SUFFIXES` (one line naming ``name`` and them).
    """
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in FIGURE_SUFFIXES:
        raise ParameterError(f"{name} must name a {' or '.join(FIGURE_SUFFIXES)} file (got {path!r})")
    with atomic_path(path, suffix=suffix) as tmp:
        fig.savefig(tmp, dpi=DPI, format=suffix[1:])
    return path


def write_figure(path: str, plot: Callable, *args, name: str = "path", **kwargs) -> str:
    """Draw ``plot(*args, **kwargs)`` and :func:`save` it to ``path``, both in :data:`STYLE`; return ``path``."""
    with style():
        return save(plot(*args, **kwargs), path, name)


MAX_TEXT = 1000
"""Longest figure text accepted (drawing time grows with the length; a title is a line)."""


def check_text(name: str, text: str) -> str:
    """Return ``text`` if matplotlib can draw it, else raise :class:`ParameterError` naming ``name``.

    Checked before any work (a figure text is drawn only when the file is saved): length (at most
    :data:`MAX_TEXT`), text that cannot be encoded as UTF-8 (lone surrogates), control characters,
    and mathtext matplotlib rejects (``$x^$``, ``$\\foo$``, ``$$``; an odd number of ``$`` is plain
    text, a literal dollar is ``\\$``)."""
    import unicodedata

    if len(text) > MAX_TEXT:
        raise ParameterError(f"{name} must be at most {MAX_TEXT} characters (got {len(text)})")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:      # lone surrogates: bytes that were not UTF-8 (surrogateescape)
        raise ParameterError(f"{name} must be text that can be encoded as UTF-8 (got {text[:40]!r})") from None
    if any(unicodedata.category(c) == "Cc" for c in text):
        raise ParameterError(f"{name} must not contain control characters (got {text[:40]!r})")
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig, ax = new_figure(1.0, 1.0)
    try:
        ax.set_title(text)
        FigureCanvasAgg(fig).draw()      # an explicit canvas: the session's backend is not touched
    except (ValueError, RecursionError) as exc:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        detail = (lines[-1] if lines else type(exc).__name__)[:100]
        raise ParameterError(f"{name} is not text matplotlib can draw ({detail}; got {text[:40]!r}; "
                             f"write a literal $ as \\$)") from None
    return text
