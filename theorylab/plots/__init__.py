"""Matplotlib figures, one module per area. Always the Agg backend; files are written atomically."""
from __future__ import annotations

import os
import tempfile


def new_figure(width: float = 5.5, height: float = 4.0):
    """A (figure, axes) pair on the non-interactive Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(width, height), constrained_layout=True)


def save(fig, path: str, dpi: int = 120) -> str:
    """Save ``fig`` to ``path`` (PNG) via a temporary file, so nothing half-written is left."""
    import matplotlib.pyplot as plt

    folder = os.path.dirname(os.path.abspath(path)) or "."
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".theorylab-", suffix=".png")
    os.close(fd)
    try:
        fig.savefig(tmp, dpi=dpi, format="png")
        os.replace(tmp, path)
    finally:
        plt.close(fig)
        if os.path.exists(tmp):
            os.remove(tmp)
    return path
