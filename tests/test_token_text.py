"""How tokens are written on screen: right-to-left pieces kept in reading order, the unknown token explained."""

import unicodedata

import plotly.graph_objects as go

from app_driver.apptest import run_page
from ui import figures
from ui.figures.base import LEFT_TO_RIGHT_ISOLATE, POP_ISOLATE, isolated
from ui.words import i18n

ARABIC = "مرحبا بالعالم"


def test_right_to_left_pieces_are_isolated_and_other_text_is_left_alone() -> None:
    assert isolated("##ed") == "##ed" and isolated("[CLS]") == "[CLS]" and isolated("🤖") == "🤖"
    piece = isolated("##ا")
    assert piece == LEFT_TO_RIGHT_ISOLATE + "##ا" + POP_ISOLATE
    assert unicodedata.bidirectional(LEFT_TO_RIGHT_ISOLATE) == "LRI" and unicodedata.bidirectional(POP_ISOLATE) == "PDI"


def test_a_repeated_right_to_left_piece_keeps_its_position_after_it() -> None:
    labels = figures.token_labels(["##ا", "x", "##ا"])
    assert labels[0] == LEFT_TO_RIGHT_ISOLATE + "##ا" + POP_ISOLATE + " (0)"  # "(0)" outside the isolate
    assert labels[1] == "x"


def test_the_token_chips_isolate_right_to_left_text() -> None:
    fig = go.Figure(  # as plotly reads it
        figures.token_chips(
            ["[CLS]", "م", "##ر", "[SEP]"], [True, False, False, True], [False, False, True, False], words=i18n.words()
        )
    )
    texts = [t for trace in fig.data if trace.mode == "text" for t in (trace.text or ())]
    assert LEFT_TO_RIGHT_ISOLATE + "##ر" + POP_ISOLATE in texts and "[CLS]" in texts


def test_the_unknown_token_is_explained_where_it_appears() -> None:
    at = run_page(text=f"I love 🤖 and {ARABIC}")
    assert not at.exception
    notes = " ".join(c.value for c in at.caption)
    assert "[UNK]** is the unknown token" in notes and "🤖" in notes
    assert "unknown token" not in " ".join(c.value for c in run_page().caption)  # only where it appears
