"""The inputs a page offers in its sidebar and beside its figures: the sentence box, a number box and a decimal
slider in the page's language, the layer and head pickers, the token picker, the download of every figure."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from ui.figures import theme
from ui.figures.base import isolated
from ui.kit import downloads
from ui.session import opening, state
from ui.words import i18n
from ui.words.i18n import _


def sentence_controls(max_tokens: int) -> None:
    """The sentence box and the examples, in the sidebar: one sentence shared by every page.

    A text longer than the page traces is cut to the part the model reads before it is kept anywhere
    (cache keys, the link), and the page says so (cut_notice).
    max_tokens: the most tokens the page traces."""
    opening.accept()
    with st.sidebar:
        st.text_area(
            _("Sentence"),
            **state.bound("text"),
            height=110,
            help=_("Any text: the model reads up to {n} tokens of it. Press Ctrl+Enter to apply.").format(
                n=i18n.whole(max_tokens)
            ),
        )
        examples = opening.examples(i18n.language())
        st.selectbox(_("…or pick an example"), ["—", *examples], key="w:example", on_change=_use_example, index=0)


def _use_example() -> None:
    chosen = st.session_state.get("w:example")
    if chosen and chosen != "—":
        state.put("text", chosen)
        state.put("token", -1)
    st.session_state["w:example"] = "—"


UNREAD_COUNTS = "_unread_counts"  # session key: {choice: the text its count box holds that is not a count it takes}


def count_input(label: str, name: str, low: int, high: int, on_change: Callable[[str], None] | None = None) -> int:
    """A box for a whole number from low to high, written as the page's language writes it (50 257 in French,
    50,257 in English), bound to the choice `name` (the link keeps the plain number). Text that is not such a
    number stays in the box, with a message under it that says what the box takes, and the choice keeps its value.
    on_change(name): called once a new value is kept. Returns the value."""
    key = f"w:{name}"
    unread = st.session_state.setdefault(UNREAD_COUNTS, {})
    st.session_state[key] = unread.get(name, i18n.whole(state.get(name)))
    st.text_input(label, key=key, on_change=_count_typed, args=(name, low, high, on_change))
    if name in unread:
        st.error(
            _("“{text}” is not a whole number from {low} to {high}; {label} stays {value}.").format(
                text=unread[name],
                low=i18n.whole(low),
                high=i18n.whole(high),
                label=label,
                value=i18n.whole(state.get(name)),
            )
        )
    return state.get(name)


def _count_typed(name: str, low: int, high: int, on_change: Callable[[str], None] | None) -> None:
    text = st.session_state[f"w:{name}"]
    value = i18n.read_integer(i18n.language(), text)
    unread = st.session_state.setdefault(UNREAD_COUNTS, {})
    if value is None or not low <= value <= high:
        unread[name] = text
        return
    unread.pop(name, None)
    state.put(name, value)
    st.session_state.setdefault(state.LINK_CHOSE, set()).add(name)
    if on_change is not None:
        on_change(name)


def decimal_slider(label: str, low: float, high: float, step: float, digits: int, **bound) -> float:
    """A slider over decimals that writes them as the page's language does (0,90 in French): st.slider formats its
    numbers printf's way, in English, whatever the page's language. bound: state.bound(...) for its choice."""
    options = [round(low + i * step, 6) for i in range(round((high - low) / step) + 1)]
    return st.select_slider(label, options, format_func=lambda v: i18n.fmt(v, f".{digits}f"), **bound)


def layer_head(n_layers: int, n_heads: int) -> tuple[int, int]:
    """Layer and head pickers in the sidebar, bound to the shared choice; returns them 0-based."""
    # within this model's sizes before the boxes are drawn, so that each shows a value it offers
    chosen = state.clamp("layer", 1, n_layers) - 1, state.clamp("head", 1, n_heads) - 1
    box = st.sidebar
    box.selectbox(
        _("Layer"),
        range(1, n_layers + 1),
        **state.bound("layer"),
        help=_("This model has {layers} layers; each runs {heads} heads.").format(layers=n_layers, heads=n_heads),
    )
    box.selectbox(_("Head"), range(1, n_heads + 1), **state.bound("head"))
    return chosen


def download_all() -> None:
    """In the sidebar: the figures' file format (bound to the link's "export") and a button that saves every
    figure of the page in one zip, drawn only when clicked. Called last, when the page has drawn them all."""
    exports = downloads.page_figures()  # live: the explorer's token picker redraws two of them on its own
    with st.sidebar:
        st.radio(
            _("Figures save as"),
            list(theme.EXPORT_FORMATS),
            **state.bound("export"),
            format_func=lambda f: theme.EXPORT_FORMATS[f].label,
            horizontal=True,
            help=_("For the camera button on each figure, and for the zip of them all."),
        )
        export = state.get("export")
        st.download_button(
            _("Download all figures ({n})").format(n=len(exports)),
            data=lambda: downloads.zip_of(list(exports.values()), export),
            file_name=f"{downloads.page_name()}-figures-{export}.zip",
            mime="application/zip",
            on_click="ignore",
            disabled=not exports or downloads.browser() is None,
            help=_("A zip of every figure on this page, each file named after its sentence, layer and head.")
            if downloads.browser()
            else _("Needs Chromium on the server, which draws the files (Debian: apt install chromium)."),
        )


def default_token(tr) -> int:
    """The example's chosen token, else the last word: the first token of the last word with a letter or a digit in
    it ("␣can" of « canapé », not its last piece "apé"), not the full stop after it nor [CLS] or [SEP] (else the
    last token that is not [CLS] or [SEP])."""
    wanted = opening.examples(i18n.language()).get(tr.text)
    for t in tr.tokens:
        if t.text.lstrip("▁Ġ") == wanted:  # SentencePiece's and GPT-2's marks of a space before the word
            return t.position
    tokens = [t for t in tr.tokens if not t.is_special]
    words = [t for t in tokens if any(c.isalnum() for c in tr.text[t.start : t.end])]
    if words:
        return next(t.position for t in tokens if t.word == words[-1].word)
    return tokens[-1].position if tokens else 0


def token_picker(
    tr, label: str | None = None, *, name: str = "token", key: str = "w:token_pick", default=None, container=None
) -> int:
    """A token of the trace, bound to the shared choice `name` (a position; by default the explorer's followed
    token). A position the trace does not have is shown as `default` (None: the example's token, default_token).
    key: the box's own, where a page shows two boxes bound to one choice."""
    label = _("Token to follow") if label is None else label
    token = state.get(name)
    if not 0 <= token < tr.n_tokens:
        token = default_token(tr) if default is None else default
    st.session_state[key] = token
    texts = [t.display for t in tr.tokens]
    (container or st).selectbox(
        label,
        range(tr.n_tokens),
        key=key,
        format_func=lambda i: f"{i} · {isolated(texts[i])}",  # a right-to-left token keeps its "##" before it
        on_change=state.copy_back(name, key=key),
    )
    return token
