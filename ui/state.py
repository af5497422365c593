"""What the user chose, kept in the session and mirrored in the URL, valid on every page.

Values live under plain keys in st.session_state ("text", "layer", ...), which survive page
switches; each widget gets its own key ("w:text") seeded from the plain one and copied back
when it changes, because Streamlit forgets a widget's state on pages that do not draw it.
Every page calls `init()` first, so the same works when a page runs alone (AppTest's
pages-folder mode) and when app.py's navigation runs it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st

import attention
import attention.loading

from .theme import DEFAULT_EXPORT, EXPORT_FORMATS

FLUFFY = "a fluffy blue creature roamed the verdant forest"
# Example sentences, each with the token a teacher would follow first.
EXAMPLES = {
    FLUFFY: "creature",
    "an apple and an orange": "apple",
    "an apple phone": "apple",
    "the bank by the river bank": "bank",
    "the animal didn't cross the street because it was too tired": "it",
}


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

    return parse


def _bool(raw: str) -> bool:
    if raw not in ("0", "1"):
        raise ValueError(raw)
    return raw == "1"


PARAMS: dict[str, Param] = {
    "text": Param(FLUFFY, str),  # any length: the engine cuts what the model cannot read, and says so
    "layer": Param(1, int),  # 1-based in the URL and on screen; ranges checked against the model
    "head": Param(1, int),
    "mask": Param("none", _one_of(*attention.MASKS)),  # how the encoder really runs
    "layout": Param("paper", _one_of(*attention.LAYOUTS)),
    "specials": Param(True, _bool, lambda v: "1" if v else "0"),
    "token": Param(-1, int),  # a position; -1: the example's token or the last word
    "model": Param(attention.DEFAULT_MODEL, _one_of(attention.DEFAULT_MODEL, *attention.loading.DECODERS)),
    "export": Param(DEFAULT_EXPORT, _one_of(*EXPORT_FORMATS)),
}
NOTICES = "_url_notices"


def init() -> None:
    """Fill the session from the URL (or the defaults) once per session, noting any value refused."""
    if st.session_state.get("_state_ready"):
        return
    notices = []
    for name, p in PARAMS.items():
        raw = st.query_params.get(name)
        value = p.default
        if raw is not None:
            try:
                value = p.parse(raw)
            except ValueError:
                notices.append(name)
        st.session_state[name] = value
    if st.query_params.get("mask") is None and get("model") in attention.loading.DECODERS:
        st.session_state["mask"] = "causal"  # a decoder's own mask, unless the link asks for the counterfactual
    st.session_state[NOTICES] = notices
    st.session_state["_state_ready"] = True


def get(name: str) -> Any:
    return st.session_state.get(name, PARAMS[name].default)


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


def copy_back(name: str) -> Callable[[], None]:
    """An on_change callback that stores a widget's value under the plain key (the URL follows at the run's end)."""

    def callback() -> None:
        put(name, st.session_state[f"w:{name}"])

    return callback


def sync_url(names: tuple[str, ...] | None = None) -> None:
    """Write the chosen values into the URL, so that a copied link reopens exactly this view.

    Called once, when a run has drawn everything (app.py, and the end of each fragment): a URL that
    changes only then also tells a browser test that the new view is complete.
    """
    wanted = PARAMS.keys() if names is None else names
    params = {}
    for name in wanted:
        value = get(name)
        if value != PARAMS[name].default or name == "text":
            params[name] = PARAMS[name].dump(value)
    current = {k: st.query_params.get(k) for k in st.query_params}
    if current != params:
        st.query_params.from_dict(params)
