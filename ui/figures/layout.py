"""The two ways to draw the same attention matrix.

paper: rows are queries, softmax along each row (Vaswani et al., and the trace itself).
notes: keys are rows, queries are columns, softmax down each column (3Blue1Brown and the lesson notes).
"""

from __future__ import annotations

import numpy as np

LAYOUTS = ("paper", "notes")


def in_layout(matrix: np.ndarray, layout: str) -> np.ndarray:
    """The trace's (..., n_queries, n_keys) matrix as `layout` draws it: the notes' is its transpose."""
    if layout == "paper":
        return matrix
    if layout == "notes":
        return np.swapaxes(matrix, -1, -2)
    raise ValueError(f"Unknown layout '{layout}': choose one of {', '.join(LAYOUTS)}.")
