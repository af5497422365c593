"""The chart element every page shows its figures with: titled to stand alone, described for a screen reader,
saved with its camera button and listed for the page's zip, built once per view and kept for every session."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass

import plotly.graph_objects as go
import streamlit as st

import attention
import attention.sources
from ui import caches
from ui.components import chart_text, plot
from ui.components.page_width import column_px
from ui.figures import head_meta, theme
from ui.figures.base import shortened, stand_alone
from ui.kit import downloads
from ui.session import models, state
from ui.words import i18n
from ui.words.i18n import _
from ui.words.locales import Words

SHOWN = "_shown"  # session key: the figures that hold every head, as the page has them, by chart


def chart(
    figure: go.Figure | Callable[[], go.Figure],
    name: str,
    key: str | None = None,
    *,
    view: Hashable = None,
    layer: int | None = None,
    head: int | None = None,
    mask: str | None = None,
    text: str | None = None,
    pick: bool = False,
    switch: int | None = None,
    share: float = 1.0,
) -> go.Figure:
    """A figure with our template (not Streamlit's) that says what it shows, its camera button saving PNG 3× or
    SVG as chosen, listed for the page's "Download all figures". Returns the figure as shown.

    figure: the figure, or a function that builds it.
    view: plain values that name everything the figure is drawn from, beyond the arguments here (the model,
    sentence, mask, layer, head, options, the page's size…). The figure is then built once per view and shared
    by every session, read only: a page's rerun that changes nothing, and a new session's first page, reuse it.
    pick: a click on a point is sent back: Streamlit's selection event, in st.session_state[key].
    layer, head (0-based) and mask: what the figure shows, where they apply: named in its title and file name.
    text: the sentence it shows, named with the model in a subtitle and in the file name; by default the
    shared sentence when layer, head or mask is given; "" for a figure of the model that shows no sentence.
    switch: the head (0-based) a figure that holds every head (ui/figures/head_view.py) is drawn with; the head
    switch in the browser shows the others (ui/components/head_switch.js). While nothing but the head changes, the page
    keeps the figure it has (its spec unchanged, the browser redraws nothing) and the head switch shows the head,
    its camera button's file too; the zip gets the head's figure.
    share: the share of the page's width the figure is drawn in (0.5 in st.columns(2)): its title is wrapped to it."""
    if text is None and (layer, head, mask) != (None, None, None):
        text = state.get("text")
    model = models.model_name() if text else None
    # the sentence as the language quotes it, and the model as the menu names it (its id is for links and files)
    subtitle = (
        _("“{sentence}” · {model}").format(sentence=shortened(text), model=attention.sources.SHOWN.get(model, model))
        if text
        else None
    )
    names = tuple(downloads.what_it_shows(layer, head, mask))
    own = models.own_mask(model) if model else "none"
    file = downloads.file_name(name, layer, head, *downloads.unusual(mask, model, own), text=text)
    shown = st.session_state.setdefault(SHOWN, {})
    page_has = shown.get(key or name) if switch is not None else None
    words = i18n.words()  # the figure's language, given to it like its data
    width = column_px(share)
    drawn_view = (name, view, layer, mask, text, subtitle, words.code)
    if page_has is not None and page_has.view == drawn_view:
        fig, drawn = page_has.fig, page_has.file  # the browser switches its head
        downloads.register(key or name, file, lambda: head_meta.showing(fig, switch))
    else:
        if view is None:
            fig = stand_alone(figure() if callable(figure) else figure, names, subtitle, width, words=words)
        else:
            fig = _kept(name, view, names, subtitle, switch, width, figure, words)
        drawn = file
        if switch is not None:
            shown[key or name] = _Shown(drawn_view, fig, file)
        downloads.register(key or name, file, fig)
    config = plot.localised(theme.chart_config(drawn, state.get("export")))
    label = chart_text.name(fig, switch)
    if subtitle:
        label = f"{label} — {subtitle}"
    compact = bool(state.get("presenter"))
    if pick:  # Streamlit's chart, whose selection events reach the app, and its disclosure under it
        shown = downloads.with_labels(fig)  # its labels placed here: only the app's own element places them
        st.plotly_chart(shown, config=config, key=key, theme=None, on_select="rerun", selection_mode="points")
        chart_text.chart_text(fig, key or name, switch, compact=compact, names=label)
    else:  # the app's own, with its disclosure in the same element
        plot.plot(fig, config, key or name, label, chart_text.disclosure(fig, key or name, switch, compact), width)
    return fig


@dataclass(frozen=True)
class _Shown:
    """A figure that holds every head, as the session's page has it (see chart's `switch`)."""

    view: tuple  # all it was drawn from but the head
    fig: go.Figure
    file: str  # its camera button's file name, for the head it was drawn with


JSON_FACTOR, FIGURE_OVERHEAD = 3.5, 16_000  # a kept figure's bytes, from its JSON's length: see _figure_bytes


def _figure_bytes(fig: go.Figure) -> int:
    """What a kept figure holds: plotly's data and layout, and the JSON it is sent as (kept beside it, ui/components/plot.py),
    taken as 3.5 times that JSON's length and 16 kB. The JSON is made anyway, to be sent; walking plotly's data
    and layout to measure them (each text of each cell) took a twentieth of a new sentence's time. Data and layout
    hold about 1 to 2.5 times the JSON's length (a number array, base64 in the JSON, is 3/4 of it in memory; a list
    of short texts several times it) and a figure's layout objects some 10 kB whatever it draws: the estimate stays
    above what the explorer's and the chapters' figures hold, and the cache within its budget."""
    return int(JSON_FACTOR * len(plot.spec(fig))) + FIGURE_OVERHEAD


# Figures as chart() shows them, kept for every session by their size: the explorer's nine take 0.3 MB for a class
# sentence, 20 MB at 256 tokens (its grid of every head's weights, 8.6 MB of JSON).
FIGURES = caches.bounded("figures", 48 * caches.MB, size=_figure_bytes)


def _kept(
    name: str,
    view: Hashable,
    names: tuple[str, ...],
    subtitle: str | None,
    switch: int | None,
    width: int,
    figure: Callable[[], go.Figure],
    words: Words,
) -> go.Figure:
    """The figure titled to stand alone, once per name, view, title, subtitle, head it opens on, column width and
    language (the builder is not a key)."""
    return FIGURES.get(
        (name, view, names, subtitle, switch, width, words),
        lambda: stand_alone(figure(), names, subtitle, width, words=words),
    )
