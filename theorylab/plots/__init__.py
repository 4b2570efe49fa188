"""Matplotlib figures, one module per area. Always the Agg backend; files are written atomically."""
from __future__ import annotations

from theorylab._io import atomic_path
from theorylab.errors import ParameterError


def new_figure(width: float = 5.5, height: float = 4.0):
    """A (figure, axes) pair on the non-interactive Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(width, height), constrained_layout=True)


def save(fig, path: str, dpi: int = 120) -> str:
    """Save ``fig`` to ``path`` (PNG) via a temporary file, so nothing half-written is left."""
    import matplotlib.pyplot as plt

    try:
        with atomic_path(path, suffix=".png") as tmp:
            fig.savefig(tmp, dpi=dpi, format="png")
    finally:
        plt.close(fig)
    return path


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
    import matplotlib.pyplot as plt

    fig, ax = new_figure(1.0, 1.0)
    try:
        ax.set_title(text)
        fig.canvas.draw()
    except (ValueError, RecursionError) as exc:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        detail = (lines[-1] if lines else type(exc).__name__)[:100]
        raise ParameterError(f"{name} is not text matplotlib can draw ({detail}; got {text[:40]!r}; "
                             f"write a literal $ as \\$)") from None
    finally:
        plt.close(fig)
    return text
