"""Writing a matplotlib figure: laid out, saved, closed (a report of many figures keeps none open)."""

from __future__ import annotations

from pathlib import Path


def save_figure(fig, path: str | Path, *, dpi: float | None = None) -> Path:
    """``fig`` laid out (``tight_layout``), written to ``path`` (at ``dpi``; None: matplotlib's
    default) and closed; returns the path."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return Path(path)
