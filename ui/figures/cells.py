"""The values printed in a matrix's cells: the most precise format, and the largest type, that fit a cell, written
as the page's language writes numbers (0.26 in English, 0,26 in French)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ui.figures.text import LINE, MINUS_INFINITY, text_px
from ui.words import locales
from ui.words.locales import Words

CELL_AIR = 4  # px left free beside a printed number: the cell's gap and some air
MASKED_MARK = "×"  # a masked cell's mark where −∞ does not fit: the mask is told by more than the cell's grey
SMALLEST_MARK = 8  # px: a smaller × is not seen as a mark


def _weight_text(code: str, fmt: str, w: float) -> str:
    """A weight (0 to 1) written in `fmt` in the language `code`: "0.26", or without its leading zero (".26"; 1 as
    "1") where cells are narrow, as tables of correlations do for values that cannot pass 1."""
    text = locales.formatted(code, w, ".2f", minus=False)
    if fmt == "0.00":
        return text
    return "1" if round(w, 2) >= 1 else text.removeprefix("0")


# The most precise first. Fewer digits than these tell a class nothing (a row of ".0", scores of ±2 as "0"):
# the values are then left out. Whole scores only where the largest has two digits.
WEIGHT_FORMATS = ("0.00", ".00")


SCORE_FORMATS = (".1f", ".0f")


def weight_formats(*, words: Words) -> tuple[str, ...]:
    """WEIGHT_FORMATS in a language whose decimal mark is a point; with a comma, a weight keeps its leading zero
    (",89" reads as a typo in French): a smaller type, or no numbers where even that does not fit."""
    from babel.numbers import get_decimal_symbol

    return WEIGHT_FORMATS if get_decimal_symbol(words.code) == "." else WEIGHT_FORMATS[:1]


WHOLE_SCORES_FROM = 10.0


def _write(m: np.ndarray, kind: str, fmt: str, *, words: Words) -> list[list[str]]:
    code = words.code  # once: the cells are many
    if kind == "weights":
        return [[_weight_text(code, fmt, float(v)) for v in row] for row in m]
    return [[MINUS_INFINITY if np.isneginf(v) else _score_text(code, fmt, float(v)) for v in row] for row in m]


def _score_text(code: str, fmt: str, s: float) -> str:
    if float(format(s, fmt)) == 0:  # a small negative rounds to 0, not to "-0.0"
        s = 0.0
    return locales.formatted(code, s, fmt, minus=False)


@dataclass(frozen=True)
class CellFormat:
    """How values are printed in cells: a format, a font size, and whether a −∞ fits too."""

    fmt: str
    size: int
    infinity: bool

    def write(self, m: np.ndarray, kind: str, *, words: Words) -> list[list[str]]:
        """One string per cell of the matrix m (× for a −∞ that does not fit)."""
        text = _write(m, kind, self.fmt, words=words)
        return text if self.infinity else [[MASKED_MARK if t == MINUS_INFINITY else t for t in row] for row in text]


def masked_marks(m: np.ndarray, cell_px: float, largest: int) -> tuple[list[list[str]], int] | None:
    """Where no value is printed: a × in each −∞ cell of m, and its size (as large as the cell holds, up to
    `largest`); None when m has no −∞ or its cells are too small for a mark."""
    masked = np.isneginf(m)
    size = min(largest, int((cell_px - CELL_AIR) / text_px(MASKED_MARK, 1)), int((cell_px - 2) / LINE))
    if not masked.any() or size < SMALLEST_MARK:
        return None
    return [[MASKED_MARK if cell else "" for cell in row] for row in masked], size


def _widest(m: np.ndarray, kind: str, fmt: str, *, words: Words) -> float:
    """The width in em of the widest value of m written in `fmt` (−∞ aside): that of its largest or smallest."""
    finite = m[np.isfinite(m)]
    if finite.size == 0:
        return 0.0
    ends = [float(finite.min()), float(finite.max())]
    texts = _write(np.array([ends]), kind, fmt, words=words)[0]
    return max(text_px(t, 1) for t in texts)


def cell_format(
    m: np.ndarray, kind: str, cell_px: float, smallest: int, largest: int, *, words: Words
) -> CellFormat | None:
    """How to print the values of m (any shape) so that each fits inside its cell (cell_px square): the most
    decimals that fit at `smallest` px or more, in the largest font up to `largest` that holds them; None when
    nothing fits."""
    if cell_px < smallest * LINE + 2:
        return None
    finite = np.abs(m[np.isfinite(m)])
    for fmt in weight_formats(words=words) if kind == "weights" else SCORE_FORMATS:
        if fmt == ".0f" and (finite.size == 0 or finite.max() < WHOLE_SCORES_FROM):
            return None
        widest = _widest(m, kind, fmt, words=words)
        if widest == 0:
            return None
        size = min(largest, int((cell_px - CELL_AIR) / widest), int((cell_px - 2) / LINE))
        if size >= smallest:
            return CellFormat(fmt, size, text_px(MINUS_INFINITY, size) <= cell_px - CELL_AIR)
    return None


def needed_cell_px(m: np.ndarray, kind: str, smallest: int, *, words: Words) -> float:
    """The smallest cell that holds every value of m at `smallest` px, in the most compact format it may take."""
    finite = np.abs(m[np.isfinite(m)])
    whole = finite.size > 0 and finite.max() >= WHOLE_SCORES_FROM
    fmt = WEIGHT_FORMATS[-1] if kind == "weights" else SCORE_FORMATS[-1 if whole else 0]
    widest = _widest(m, kind, fmt, words=words) * smallest
    return max(widest + CELL_AIR, smallest * LINE + 2)
