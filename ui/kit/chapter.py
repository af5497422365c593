"""What every chapter page does first and last, and the pieces every chapter shares: its numbers filled
into its prose, its "Try this" with a question to answer, the links to the chapters before and after."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import numpy as np
import streamlit as st
from streamlit.errors import StreamlitAPIException

from attention import Model, ModelConfig, Trace
from ui import internals
from ui.figures import theme
from ui.figures.base import Canvas, title_settings
from ui.figures.matrices import tokens_named
from ui.kit import choices, downloads, inputs, notices, questions, worksheets
from ui.kit.chart import chart
from ui.session import engine, models, opening, state
from ui.words import chapters, i18n
from ui.words.i18n import _
from ui.words.prose import fill, sections

ROOT = Path(__file__).resolve().parents[2]
CURRENT = "_chapter_file"  # the chapter this session's run is drawing, for end()


def begin(file: str) -> dict[str, str]:
    """Shared state from the URL, the chapter's title and opening prose; returns its prose sections."""
    opening.init()
    choices.language_choice()  # every page, those without a model too, says its language
    notes_switch()
    opening.accept_where_needed()  # before the link's notices are said: a token the link named is checked
    chapter = chapters.by_file(file)
    st.session_state[CURRENT] = file
    prose = sections(chapter.prose, i18n.language())
    presenter_switch()
    st.title(chapter.title)
    st.markdown(prose["intro"])
    notices.url_notices()
    return prose


ASIDE_PREFIX = "aside_"  # a prose section so named says where the lesson notes differ: notes_aside shows it


def notes_switch() -> None:
    """In the sidebar: whether the chapters say where the lesson notes' numbers or words differ from the exact
    ones (bound to the link's "notes", so that a teacher's link keeps it)."""
    st.sidebar.toggle(
        _("Show where the notes' numbers differ"),
        **state.bound("notes"),
        help=_(
            "The asides that compare the lesson notes with the exact values. Off, they are hidden; "
            "every number the page shows is the exact one either way."
        ),
    )


def notes_shown() -> bool:
    """Whether this view shows the asides on the lesson notes (the sidebar's switch)."""
    return bool(state.get("notes"))


def notes_aside(text: str) -> None:
    """A remark on where the lesson notes differ from the exact value, as a small aside that the sidebar's
    switch hides: the page's own numbers stay the same either way."""
    if notes_shown():
        st.caption(_("**Beside the notes.**") + " " + text)


def end() -> None:
    """Links to the chapters before and after; the URL follows what is on screen (app.py does this too;
    a page run on its own needs it here)."""
    file = st.session_state.get(CURRENT)
    if file is not None:
        sources(chapters.by_file(file))
        before, after = chapters.neighbours(file)
        st.divider()
        left, right = st.columns(2)
        with left:
            if before is None:
                link_explorer("← " + _("The explorer"))
            else:
                link(before, f"← {before.title}")
        with right:
            if after is not None:
                link(after, f"{after.title} →")
    inputs.download_all()  # every figure of the page in one zip, and the format choice, in the sidebar
    if file is not None:
        shown = chapters.by_file(file)
        worksheets.buttons(shown.title, file, address(shown), url_path(shown))
    state.sync_url()


def sources(chapter: chapters.Chapter) -> None:
    """The chapter's references, linked, as its prose's "sources" section lists them: each title in its own
    language, what the chapter takes from it in the page's."""
    listed = sections(chapter.prose, i18n.language()).get("sources")
    if listed:
        st.subheader(_("Sources"), anchor="sources")
        st.markdown(listed)


def link(target: chapters.Chapter, label: str) -> None:
    """A link that keeps the session (and so every choice); a plain link where the page is not registered
    (a chapter run on its own, as the tests do)."""
    try:
        st.page_link(ROOT / "pages" / target.file, label=label)
    except StreamlitAPIException:
        st.markdown(f"[{label}]({url_path(target)})")


def link_explorer(label: str) -> None:
    """A link to the explorer: the app's page, or a plain link where the page runs alone (no navigation)."""
    try:
        st.page_link(st.Page(ROOT / "pages" / "00_explorer.py", title=_("Explorer"), default=True), label=label)
    except StreamlitAPIException:
        st.markdown(f"[{label}](./)")


def url_path(target: chapters.Chapter) -> str:
    """The chapter's address under the app's root, as Streamlit names it from the file ("kv_cache")."""
    return internals.page_name(Path(target.file))


def address(target: chapters.Chapter | None, anchor: str = "") -> str:
    """A relative address that opens a chapter (None: the explorer) as this view is now: every choice in
    its query, as the URL keeps them, and an optional section anchor."""
    query = urlencode(
        {name: p.dump(state.get(name)) for name, p in state.PARAMS.items() if state.get(name) != p.default}
    )
    page = "./" if target is None else url_path(target)
    return page + (f"?{query}" if query else "") + (f"#{anchor}" if anchor else "")


def try_this(prose: dict[str, str], section: str = "try", **values: object) -> None:
    """The chapter's "Try this" (its prose `section`), then its three questions (ui/kit/questions.py), their places
    filled from `values`: the numbers the page computed, and for the shapes question questions.shape_values."""
    with st.container(border=True):
        st.markdown(_("**Try this.**") + " " + fill(prose[section], **values))
        questions.ask_all(chapters.by_file(st.session_state[CURRENT]), prose, values)


# Presenter mode (the sidebar's switch, `presenter` in the link), on every chapter as in the explorer: the figures
# that sit side by side on a screen stand one under the other, each the page's whole width and no taller than a
# 1280×720 projector's screen, so that one figure fills the screen at a time, its type larger for it.
PRESENTER_CANVAS = Canvas(height=560, type=theme.figure_type(True))  # 720 px less the header and a title's lines


def presenting() -> bool:
    return bool(state.get("presenter"))


def presenter_switch() -> None:
    """The sidebar's switch for presenter mode, on every chapter (the explorer has its own among its controls)."""
    with st.sidebar:
        st.toggle(
            _("Presenter mode"),
            **state.bound("presenter"),
            help=_(
                "For a projector: each figure alone across the page, one screen at a time, its labels large "
                "enough to be read from the back of the room."
            ),
        )


def figure_columns(spec: int | list[int] = 2) -> list:
    """st.columns(spec) for figures side by side; in presenter mode as many containers one under the other, each
    the page's width."""
    if presenting():
        return [st.container() for _ in range(spec if isinstance(spec, int) else len(spec))]
    return st.columns(spec)


def figure_share(part: float) -> float:
    """chart's share of the page for a figure in figure_columns: its part, or the whole in presenter mode."""
    return 1.0 if presenting() else part


def heatmap_room() -> dict:
    """figures.attention_heatmap's room for a heatmap beside another (half the page), or in presenter mode alone
    across the page and no taller than the projector's screen."""
    return dict(half_width=False, canvas=PRESENTER_CANVAS) if presenting() else dict(half_width=True)


def window_size(labels: list[str]) -> int:
    """How many tokens a heatmap in heatmap_room's room draws at a time, each named at 12 px or more."""
    return min(len(labels), tokens_named(labels, **heatmap_room()))


def token_window(labels: list[str]) -> list[int]:
    """The tokens (positions) the page's heatmaps draw: all of them, or, where they would not each be named at
    12 px or more in the room heatmap_room gives, a window of as many as are, moved by a slider ("win" in the link,
    as the explorer's window). Call it before the heatmaps, where its slider should stand."""
    n, size = len(labels), window_size(labels)
    if size >= n:
        return list(range(n))
    last_start = n - size + 1
    value = state.get("win")
    state.put("win", min(max(value if isinstance(value, int) else 1, 1), last_start))  # the explorer's may be past it
    st.select_slider(  # positions from 0, as the explorer's chips and every token table number them
        _("First token of the heatmaps' window (they show {n} tokens at a time)").format(n=size),
        range(1, last_start + 1),
        format_func=lambda place: str(place - 1),
        **state.bound("win"),
    )
    shown = list(range(state.get("win") - 1, state.get("win") - 1 + size))
    window_caption(shown, n)
    return shown


def window_caption(shown: list[int], n: int) -> None:
    """Which tokens a window shows, of how many."""
    st.caption(
        _(
            "Tokens {first} to {last} (numbered from 0), {count} of the {n}, each named in the heatmaps. The cells "
            "of the tokens outside the window are not drawn; every token still takes part in the computation."
        ).format(first=shown[0], last=shown[-1], count=len(shown), n=n)
    )


def windowed(matrix, shown: list[int]):
    """The rows and columns of a (n_tokens, n_tokens) matrix that a token window draws."""
    return np.asarray(matrix)[np.ix_(shown, shown)]


TITLE_LINE_PX = 22  # a second title line's height at the template's title size


def half_chart(
    fig,
    name: str,
    key: str | None = None,
    *,
    layer: int | None = None,
    head: int | None = None,
    mask: str | None = None,
    text: str | None = None,
    share: float = 0.5,
) -> None:
    """chart for a figure in half the page's width (or the `share` of it given; in presenter mode the whole
    width, as figure_columns lays it out): what it shows (layer, head, mask) goes on a second title line, where it
    fits, instead of after a title it would push past the figure's edge."""
    share = figure_share(share)  # presenter mode: the figure alone across the page (figure_columns)
    layout = internals.figure_dicts(fig)[1]  # plotly's own dict, or a Spec's (ui/figures/base.py)
    title = title_settings(layout)
    names = [n for n in downloads.what_it_shows(layer, head, mask) if n not in (title.get("text") or "")]
    if names:
        margin = layout.setdefault("margin", {})
        top = margin["t"] if margin.get("t") is not None else theme.TEMPLATE.layout.margin.t
        title["text"] = f"{title.get('text') or ''}<br>{' · '.join(names)}"
        margin["t"] = top + TITLE_LINE_PX
    chart(fig, name, key, layer=layer, head=head, mask=mask, text=text, share=share)


def model_view(prefer_decoder: bool = False) -> Model:
    """The Model choice in the sidebar, and the chosen model (for a chapter that needs no sentence).
    prefer_decoder: the chapter's idea lives in a decoder, so it opens on one where the user chose no model."""
    choices.model_choice(prefer_decoder)
    return models.current_or_stop()


@dataclass(frozen=True)
class SentenceView:
    """What a chapter on the real model starts from: the model, the shared sentence's choices."""

    model: Model
    layer: int  # 0-based
    head: int  # 0-based
    text: str

    @property
    def config(self) -> ModelConfig:
        return self.model.config

    def trace(self, mask: str | None = None) -> Trace:
        """The shared sentence's trace; mask None: the model's own (causal for a decoder)."""
        return engine.trace_or_stop(self.text, mask)


def sentence_view(prefer_decoder: bool = False, model: Model | None = None) -> SentenceView:
    """The model, the sentence box and the layer and head pickers in the sidebar, bound to the shared choice.
    prefer_decoder: the chapter's idea lives in a decoder, so it opens on one where the user chose no model.
    model: already chosen (model_view), for a chapter that needs the sentence only on some models."""
    if model is None:
        choices.model_choice(prefer_decoder)
        model = models.current_or_stop()
    inputs.sentence_controls(models.max_tokens(model.config))
    notices.cut_notice()
    notices.url_notices()  # a token the link named, refused when the text was accepted just now
    notices.unread_notice(model, state.get("text"))
    layer, head = inputs.layer_head(model.config.n_layers, model.config.n_heads)
    return SentenceView(model=model, layer=layer, head=head, text=state.get("text"))


def session_tokens() -> int:
    """How many tokens the session's sentence is, as the loaded model reads it (0 for a text with nothing to read):
    the shapes question's C on a chapter that has no sentence of its own."""
    try:
        return len(engine.tokenized(models.model_name(), state.get("text")).tokens)
    except ValueError:
        return 0
