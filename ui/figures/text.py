"""How wide text is drawn, measured without a browser: the figures are laid out in pixels by their builders."""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Callable, Sequence
from functools import lru_cache

MINUS_INFINITY = "−∞"  # what a masked cell prints
LINE = 1.25  # a line of text is this many times its font size tall
# Advance widths in em of DejaVu Sans, the figures' font (Arial's are narrower), for what a cell prints in any
# language (a decimal point or comma) and the weights' colour bar's "½".
DEJAVU_EM = {
    **dict.fromkeys("0123456789", 0.636),
    **dict.fromkeys((".", ",", " "), 0.318),
    "-": 0.361,
    "−": 0.838,
    "∞": 0.833,
    "×": 0.838,
    "½": 0.969,
}


def wide(char: str) -> bool:
    """Whether a character is drawn a whole font size wide: Korean, Chinese and Japanese ones."""
    return unicodedata.east_asian_width(char) in "WF"


def dejavu_em(char: str) -> float:
    """A character's advance width in em of the figures' font: exact for what a cell prints, a whole em for a wide
    character, 0.64 for any other."""
    return DEJAVU_EM.get(char, 1.0 if wide(char) else 0.64)


def any_script_em(char: str) -> float:
    """A character's width in em, in any script: a wide character takes a whole font size, others 0.62."""
    return 1.0 if wide(char) else 0.62


# Measured once per text, size and font: a figure's titles, ticks and labels are measured again at each rebuild
@lru_cache(maxsize=8192)
def text_px(text: str, size: float, em: Callable[[str], float] = dejavu_em) -> float:
    """How wide `text` (one line) is drawn at `size` px: its characters' advance widths."""
    return size * sum(em(c) for c in text)


TAG = re.compile(r"<[^>]*>")  # plotly's markup (<sub>, <b>): drawn, not written; user text has its < escaped


@lru_cache(maxsize=8192)
def shown(text: str) -> str:
    """The characters plotly draws for a text as given to it: its tags left out, its entities read."""
    return html.unescape(TAG.sub("", text))


def label_box(text: str, size: int) -> tuple[float, float]:
    """About how wide and tall a one-line label is drawn, in any script (text as plotly shows it)."""
    return text_px(shown(text), size, any_script_em) + 4, LINE * size


def label_px(labels: Sequence[str], font_px: int = 15) -> int:
    """About how wide the longest label is drawn, in pixels, in any script. Margins are set from this rather than
    by plotly's automargin, which redraws a figure again to measure it and made every update slower."""
    widest = max((text_px(shown(lbl), font_px, any_script_em) for lbl in labels), default=0.62 * font_px)
    return int(widest) + 8


def wrap(text: str, width_px: float, size: int) -> list[str]:
    """Words in lines no wider than width_px at `size` px (a longer word keeps a line of its own). Only a plain
    space parts words: a no-break space keeps French « guillemets » and "0,5 %" with what they hold."""
    lines: list[str] = []
    for word in filter(None, text.split(" ")):
        if lines and text_px(shown(f"{lines[-1]} {word}"), size) <= width_px:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines
