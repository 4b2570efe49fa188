"""Matplotlib figures, one module per area. Always the Agg backend; files are written atomically."""
from __future__ import annotations

from theorylab._io import atomic_path


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
