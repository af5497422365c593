"""What the user chose, kept in the session and mirrored in the URL, valid on every page.

Values live under plain keys in st.session_state ("text", "layer", ...), which survive page
switches; each widget gets its own key ("w:text") seeded from the plain one and copied back
when it changes, because Streamlit forgets a widget's state on pages that do not draw it.
Every page calls `init()` first, so the same works when a page runs alone (AppTest's
pages-folder mode) and when app.py's navigation runs it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote_plus

import streamlit as st

import attention
import attention.menu
import attention.sources
import attention.tokens
from attention.lessons import budget, geometry, masking, similarity
from ui import internals
from ui.figures.layout import LAYOUTS
from ui.figures.theme import DEFAULT_EXPORT, EXPORT_FORMATS
from ui.words import i18n

FLUFFY = "a fluffy blue creature roamed the verdant forest"  # the lesson's sentence, the text a link may leave out


@dataclass(frozen=True)
class Param:
    default: Any
    parse: Callable[[str], Any]  # raises ValueError on a bad value
    dump: Callable[[Any], str] = str


def _one_of(*choices: str) -> Callable[[str], str]:
    def parse(raw: str) -> str:
        if raw not in choices:
            raise ValueError(raw)
        return raw

    parse.edges = (choices[0], choices[-1])  # what a link may hold at each end (the edge tests set them)
    return parse


def _bool(raw: str) -> bool:
    if raw not in ("0", "1"):
        raise ValueError(raw)
    return raw == "1"


_bool.edges = ("0", "1")


def _position(raw: str) -> int:
    """A token's position, or -1 for the default token; the upper bound is the text's, checked when the text is accepted."""
    value = int(raw)
    if value < -1:
        raise ValueError(raw)
    return value


TEMPERATURES = (0.1, 2.0, 0.1)  # the next-word panel's temperature slider: lowest, highest, step


# --- the chapters' controls: parsers that refuse what a widget could not show ---------------------------

# chapter "cross-attention": the keys' sentence, in English, of which the French and Korean opening sentences are
# translations: on their pages the chapter shows a translation, English source, the page's language as target
CROSS_SOURCE = "a small blue animal lived in the green forest"
D_K_WIDTHS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)  # chapter "scaling": the widths the slider offers
QK_GROWTH = (1, 2, 5, 10, 100)  # chapter "scaling": how many times larger the vectors entering a layer are made
SINUSOID_WIDTHS = (16, 32, 64, 128, 256, 512)  # chapter "position": d_model of the sinusoidal picture


def _dump_flag(value: bool) -> str:
    return "1" if value else "0"


def _int_in(low: int, high: int) -> Callable[[str], int]:
    def parse(raw: str) -> int:
        value = int(raw)
        if not low <= value <= high:
            raise ValueError(raw)
        return value

    parse.edges = (str(low), str(high))
    return parse


def _int_of(*choices: int) -> Callable[[str], int]:
    def parse(raw: str) -> int:
        value = int(raw)
        if value not in choices:
            raise ValueError(raw)
        return value

    parse.edges = (str(min(choices)), str(max(choices)))
    return parse


def _float_in(low: float, high: float, step: float) -> Callable[[str], float]:
    """A slider's value: within its range and on its steps (a slider cannot show any other)."""

    def parse(raw: str) -> float:
        value = float(raw)  # "nan" fails the range check
        if not low <= value <= high or abs(value / step - round(value / step)) > 1e-6:
            raise ValueError(raw)
        return round(round(value / step) * step, 6)

    parse.edges = (f"{low:g}", f"{high:g}")
    return parse


def _text_up_to(limit: int) -> Callable[[str], str]:
    def parse(raw: str) -> str:
        if len(raw) > limit:
            raise ValueError(raw[:40])
        return raw

    return parse


def _scores(raw: str) -> tuple[float, ...]:
    """The masking chapter's 4 × 4 table, row by row: 16 numbers, "-inf" where a score is masked."""
    values = tuple(float(v) for v in raw.split(","))
    if len(values) != 16 or any(v != v or v == float("inf") for v in values):  # no NaN, no +∞
        raise ValueError(raw)
    return values


def _dump_scores(values: tuple[float, ...]) -> str:
    return ",".join(f"{v:g}" for v in values)


def _answers(raw: str) -> str:
    parts = [p for p in raw.split(",") if p]
    if len(parts) > 60 or not all(re.fullmatch(r"\d{1,2}\.\d:\d{1,2}", p) for p in parts):
        raise ValueError(raw)
    return ",".join(parts)


def _flag_param(default: bool) -> Param:
    return Param(default, _bool, _dump_flag)


PARAMS: dict[str, Param] = {
    "lang": Param(i18n.SOURCE, _one_of(*i18n.offered())),  # the page's language; a new session takes the browser's
    "text": Param(FLUFFY, str),  # any length: the engine cuts what the model cannot read, and says so
    "layer": Param(1, int),  # 1-based in the URL and on screen; ranges checked against the model
    "head": Param(1, int),
    "mask": Param("none", _one_of(*attention.MASKS)),  # how the encoder really runs
    "layout": Param("paper", _one_of(*LAYOUTS)),
    "specials": Param(True, _bool, lambda v: "1" if v else "0"),
    "presenter": Param(False, _bool, lambda v: "1" if v else "0"),  # projector type, prose hidden
    "notes": _flag_param(True),  # the chapters' asides on where the lesson notes' numbers differ (chapter.notes_aside)
    "step": Param(0, _int_in(0, 4)),  # presenter mode: the step of the four shown alone, 0 for all four
    # weights coloured 0 to 1, one scale a class can compare across rows, or each query's own (0 to its largest)
    "colours": Param("unit", _one_of("unit", "row")),
    "numbers": Param(False, _bool, lambda v: "1" if v else "0"),  # values in every cell, the cells grown to fit
    "token": Param(-1, _position),  # a position; -1: the example's token or the last word
    "win": Param(1, int),  # the explorer: the first token of the window a long text's sections 2 to 4 show
    "layernorm": Param(True, _bool, lambda v: "1" if v else "0"),  # the displacement's step after the heads
    "after": Param("attention", _one_of(*geometry.AFTER)),  # before → after: which step
    "ba_specials": _flag_param(False),  # before → after: [CLS] and [SEP] shown there too
    "temperature": Param(1.0, _float_in(*TEMPERATURES), lambda v: f"{v:g}"),  # the next-word panel's
    "model": Param(attention.DEFAULT_MODEL, _one_of(attention.DEFAULT_MODEL, *attention.menu.DECODERS)),
    "export": Param(DEFAULT_EXPORT, _one_of(*EXPORT_FORMATS)),
    # the chapters' questions: the answers given ("5.1:2", chapter.question:option), kept only while shared
    "share_answers": _flag_param(False),
    "answers": Param("", _answers),
    # the chapters' controls, each named after its chapter, so that a link reopens a chapter as it was
    "sim_a1": Param(3.0, _float_in(-5.0, 5.0, 0.5), lambda v: f"{v:g}"),
    "sim_a2": Param(4.0, _float_in(-5.0, 5.0, 0.5), lambda v: f"{v:g}"),
    "sim_b1": Param(4.0, _float_in(-5.0, 5.0, 0.5), lambda v: f"{v:g}"),
    "sim_b2": Param(3.0, _float_in(-5.0, 5.0, 0.5), lambda v: f"{v:g}"),
    "sim_double": _flag_param(False),
    "why_keep": Param(0.9, _float_in(0.5, 0.99, 0.01), lambda v: f"{v:g}"),
    "ctx_sentence": Param("an apple and an orange", _one_of("an apple and an orange", "an apple phone")),
    "ctx_weights": Param("softmax", _one_of(*similarity.WEIGHTINGS)),
    "qk_same": _flag_param(False),
    "sc_dk": Param(64, _int_of(*D_K_WIDTHS)),
    "sc_keys": Param(16, _int_in(2, 64)),
    "sc_grow": Param(1, _int_of(*QK_GROWTH)),  # QK-norm: the vectors entering the layer, made this many times larger
    "sc_scaled": _flag_param(True),
    "nw_at": Param(-1, int),  # a position; -1: the last one (checked against the sentence)
    "mk_scores": Param(tuple(masking.NOTES_SCORES.ravel().tolist()), _scores, _dump_scores),
    "mk_mask": _flag_param(True),
    "val_uniform": _flag_param(False),
    "hd_only": _flag_param(False),
    "pos_shuffle": Param(1, _int_in(0, 20)),
    "mk_window": Param(3, _int_in(1, 512)),  # masking: a sliding window's width, the counterfactual band
    "pos_embeddings": _flag_param(False),
    "pos_n": Param(64, _int_in(8, 256)),
    "pos_shift": Param(100, _int_in(0, 256)),
    "pos_d": Param(128, _int_of(*SINUSOID_WIDTHS)),
    "cr_source": Param(CROSS_SOURCE, _text_up_to(2000)),  # the box's max_chars
    "cr_self": _flag_param(False),
    "kv_step": Param(5, int),  # tokens written so far (checked against the sentence)
    "kv_model": Param("loaded", _one_of("loaded", "gpt3")),
    "kv_tokens": Param(1024, _int_in(16, 4096)),
    "bp_preset": Param("gpt3", _one_of(*budget.PRESETS, "custom")),
    "bp_layers": Param(budget.GPT3.n_layers, _int_in(1, 512)),
    "bp_heads": Param(budget.GPT3.n_heads, _int_in(1, 512)),
    "bp_d_head": Param(budget.GPT3.d_head, _int_in(1, 1024)),
    "bp_vocab": Param(budget.GPT3.vocab, _int_in(2, 1_000_000)),
    "bp_context": Param(budget.GPT3.context, _int_in(1, 1_000_000)),
    "bp_mlp": Param(budget.GPT3.mlp_ratio, _int_in(1, 16)),
}
NOTICES = "_url_notices"
LINK_CHOSE = "_link_chose"  # the names of the choices a link (or the user, since) made, not left to a default
LINK_TOKEN = "_link_token"  # the link named a token, not yet checked against its text
SENTENCE = "_sentence"  # the Sentence: the text as the model reads it, accepted once per text and model
# The most characters the text may take in the URL, encoded: a last guard after the cut to what the
# model reads (a few thousand characters at most, unless it is made of words too long to split, each
# one [UNK] token). The server refuses request lines over about 128 KB; this leaves room for the rest.
URL_TEXT_LIMIT = 32_000


def run_through_app() -> None:
    """Make sure a page runs inside app.py's navigation (its sidebar, wide layout and chapter numbers).

    On a fresh server, a link straight to a chapter is served before app.py has ever run, and Streamlit
    then runs the page file alone, as in its older multipage mode where a pages/ folder is the app: the
    flag that app.py's st.navigation clears is still set. Clear it and run again, through app.py."""
    if internals.leave_pages_directory_mode():
        st.rerun()


def get(name: str) -> Any:
    return internals.session_value(name, PARAMS[name].default)


def put(name: str, value: Any) -> None:
    st.session_state[name] = value


def clamp(name: str, low: int, high: int) -> int:
    """An integer control within [low, high]; an out-of-range value from a link falls back to the default."""
    value = get(name)
    if not isinstance(value, int) or not low <= value <= high:
        if name not in st.session_state.get(NOTICES, []) and value != PARAMS[name].default:
            st.session_state.setdefault(NOTICES, []).append(name)
        value = PARAMS[name].default if low <= PARAMS[name].default <= high else low
        st.session_state[name] = value
    return value


def take_notices() -> list[str]:
    """The URL parameters that were refused (each reported once)."""
    notices = st.session_state.get(NOTICES, [])
    st.session_state[NOTICES] = []
    return notices


def widget_key(name: str) -> str:
    """Seed a widget's own key from the session value, and return it for the widget."""
    key = f"w:{name}"
    st.session_state[key] = get(name)
    return key


def bound(name: str, on_change: Callable[[], None] | None = None) -> dict:
    """A widget's key and callback, binding it to the shared choice `name` (one of PARAMS), so that the link
    carries it: `st.slider("d_k", ..., **state.bound("sc_dk"))`. on_change: a callback of its own, in place of
    copy_back, for a choice that brings others with it."""
    return dict(key=widget_key(name), on_change=on_change or copy_back(name))


def copy_back(name: str, key: str | None = None) -> Callable[[], None]:
    """An on_change callback that stores a widget's value (its key: "w:" + name unless given) under the plain key
    (the URL follows at the run's end).

    A value of another kind than the parameter's is let go, the choice left as it was: when a select box's
    options change under it (a new sentence under a token picker, another model under the Layer box), Streamlit
    can hand back the label of an option that is gone ("4 · creature") as text."""

    def callback() -> None:
        value = st.session_state.get(key or f"w:{name}")
        default = PARAMS[name].default
        if isinstance(default, int) and not isinstance(value, int):
            return
        put(name, value)
        st.session_state.setdefault(LINK_CHOSE, set()).add(name)

    return callback


@dataclass(frozen=True)
class Sentence:
    """The shared text as a model accepted it (ui/engine.accept): cut to the part the model reads, its tokens
    counted. Everything after reads this, and no other part of the app tokenizes the text to know it."""

    model: str
    text: str  # the part the model reads; the session's "text" holds the same
    n_tokens: int | None  # None where it cannot be told (an empty text)


def sentence() -> Sentence | None:
    """The accepted sentence, while it is the session's text (None before the text is accepted)."""
    accepted = st.session_state.get(SENTENCE)
    return accepted if accepted is not None and accepted.text == get("text") else None


def keep_sentence(accepted: Sentence) -> None:
    """Keep the accepted sentence; a followed token past its end goes back to the default token, and is said to
    have been refused when a link named it (as a layer out of range is)."""
    put("text", accepted.text)
    st.session_state[SENTENCE] = accepted
    token = get("token")
    if accepted.n_tokens is not None and token >= accepted.n_tokens:
        put("token", -1)
        if st.session_state.get(LINK_TOKEN):
            st.session_state.setdefault(NOTICES, []).append("token")
    st.session_state[LINK_TOKEN] = False


def sync_url(names: tuple[str, ...] | None = None) -> None:
    """Write the chosen values into the URL, so that a copied link reopens exactly this view.

    Called once, when a run has drawn everything (app.py, and the end of each fragment): a URL that
    changes only then also tells a browser test that the new view is complete.
    """
    wanted = PARAMS.keys() if names is None else names
    params = {}
    for name in wanted:
        value = _url_text(get(name)) if name == "text" else get(name)
        if value != PARAMS[name].default or name == "text":
            params[name] = PARAMS[name].dump(value)
    current = {k: st.query_params.get(k) for k in st.query_params}
    if current != params:
        st.query_params.from_dict(params)


def _url_text(text: str) -> str:
    """The text as the URL holds it: the part the model reads (as accepted), and never more than URL_TEXT_LIMIT
    encoded characters, so that every link the app writes opens again."""
    last = st.session_state.get("_url_text")  # (text, as written): a run writes the URL more than once
    if last is not None and last[0] == text:
        return last[1]
    written = text
    if len(written) * 12 > URL_TEXT_LIMIT:  # no character takes more than 12 encoded ("%F0%9F%A4%96")
        size = 0
        for i, char in enumerate(written):
            size += len(quote_plus(char))
            if size > URL_TEXT_LIMIT:
                written = written[:i]
                break
    st.session_state["_url_text"] = (text, written)
    return written
