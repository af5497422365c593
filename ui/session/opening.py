"""What a session opens on, decided here alone: its language (the link's, else the browser's where the app offers
it, else English), its sentence and its model (the link's, else the language's opening ones, else the bundled
model where this server cannot load them), and the part of a long text the model reads (`accept`, once per text
and model, the rest said on the page)."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import streamlit as st

import attention
import attention.sources
from ui.session import models, state
from ui.session.engine import tokenized
from ui.session.state import FLUFFY
from ui.words import i18n
from ui.words.i18n import _

# Example sentences, each with the token a teacher would follow first.
EXAMPLES = {
    FLUFFY: "creature",
    "an apple and an orange": "apple",
    "an apple phone": "apple",
    "the bank by the river bank": "bank",
    "the animal didn't cross the street because it was too tired": "it",
}


# Each language's own examples, offered first in that language: its opening sentence (below) leads.
EXAMPLES_IN = {
    "fr": {
        "un petit animal bleu vivait dans la forêt verte": "forêt",
        "la capitale de la France est": "est",
        "le chat noir dort sur le": "le",
        "l'animal n'a pas traversé la rue parce qu'il était trop fatigué": "il",
    },
    "ko": {
        "작고 파란 동물이 초록 숲에서 살았다": "숲",
        "대한민국의 수도는": "는",
        "그 동물은 너무 피곤해서 길을 건너지 않았다": "동물",
    },
}


# What a new session opens on in each language: its first example, read by a model that reads the language whole
# (MiniLM cuts a Korean sentence into jamo, SmolLM2 into bytes). A link, or the student, chooses otherwise.
OPENINGS = {
    "en": (FLUFFY, attention.DEFAULT_MODEL),
    **{code: (next(iter(examples)), attention.sources.GEMMA3) for code, examples in EXAMPLES_IN.items()},
}


def examples(code: str) -> dict[str, str]:
    """The examples a page in this language offers, its own first: {sentence: the token to follow}."""
    return EXAMPLES_IN.get(code, {}) | EXAMPLES


def opening(code: str) -> tuple[str, str]:
    """The sentence and model a session in this language opens on."""
    return OPENINGS.get(code, OPENINGS[i18n.SOURCE])


def init() -> None:
    """Fill the session from the URL (or the defaults) once per session, noting any value refused; on
    later runs, write an emptied sentence into the URL before the page stops on it."""
    state.run_through_app()
    if st.session_state.get("_state_ready"):
        if not state.get("text").strip():
            # The page will stop on "type a sentence", and nothing a run sends after st.stop() reaches the
            # browser: the emptied box goes into the URL now, so that a reload does not bring the old text back.
            state.sync_url()
        return
    # Only the link's choices are held, the rest left to the defaults state.get gives: every widget with a key reads
    # the whole session state each time it is drawn (Streamlit's filtered_state), and the fifty-odd defaults held
    # too made each run of every page slower.
    notices = []
    for name, p in state.PARAMS.items():
        raw = st.query_params.get(name)
        if raw is None:
            continue
        try:
            st.session_state[name] = p.parse(raw)
        except ValueError:
            notices.append(name)
    if st.query_params.get("lang") is None:  # a new session speaks the browser's language, where the app has it
        st.session_state["lang"] = i18n.from_browser(i18n._browser_locale())
    else:  # the link's, or the default where the app does not offer the link's
        st.session_state.setdefault("lang", state.PARAMS["lang"].default)
    text, model = opening(state.get("lang"))  # and opens on a sentence of it, unless the link gave one
    if st.query_params.get("text") is None:
        st.session_state["text"] = text
    if st.query_params.get("model") is None:
        st.session_state["model"] = model  # where this server cannot load it, choices.model_choice falls back
    # which choices the link made itself: without them, the mask follows the model's own (choices.model_choice)
    st.session_state[state.LINK_CHOSE] = {name for name in ("model", "mask") if st.query_params.get(name) is not None}
    st.session_state[state.LINK_TOKEN] = state.get("token") != -1  # checked against the text when it is accepted
    st.session_state[state.NOTICES] = notices
    st.session_state["_state_ready"] = True


CUT = "_cut"  # session key: what accept() cut from the text, for the page to say


@dataclass(frozen=True)
class Cut:
    """What was left out of a text too long for the model: the part it reads is what the app keeps."""

    kept: str
    chars_dropped: int
    tokens_dropped: int
    max_tokens: int

    @property
    def message(self) -> str:
        return _(
            "The text is longer than the model reads here: it reads the first {n} tokens, so {dropped} more tokens "
            "({chars} characters) were left out. The sentence box and the link now hold the part it reads."
        ).format(
            n=i18n.whole(self.max_tokens), dropped=i18n.whole(self.tokens_dropped), chars=i18n.whole(self.chars_dropped)
        )


def accept() -> state.Sentence:
    """The shared text accepted by the chosen model, once per text and model: cut to the part the page traces
    before it is kept anywhere (cache keys, the link), its tokens counted, a followed token checked against them.
    What was cut is kept for the page to say (notices.cut_notice)."""
    name, text = models.model_name(), state.get("text")
    accepted = state.sentence()
    if accepted is not None and accepted.model == name:
        return accepted
    limit = models.max_tokens(models.model(name).config)
    try:
        toks = tokenized(name, text)
    except ValueError:  # empty: the page says what to type
        accepted = state.Sentence(name, text, None)
    else:
        kept = toks.read_part(text)
        if toks.truncated:
            cut = Cut(kept=kept, chars_dropped=len(text) - len(kept), tokens_dropped=toks.n_dropped, max_tokens=limit)
            st.session_state[CUT] = cut
        accepted = state.Sentence(name, kept, len(toks.tokens))
    state.keep_sentence(accepted)
    return accepted


def accept_where_needed() -> None:
    """On a page that may not show the sentence box: accept the text before the link is written, where that
    needs the model: a text that may be longer than a model reads, or a token the link named. A short
    sentence does not load a model a page does not use."""
    long = len(state.get("text").encode("utf-8", "replace")) > models.FITS_ANY_MODEL
    if (
        state.sentence() is None
        and (long or state.get("token") != -1)
        and models.failed_reason(models.model_name()) is None
    ):
        with contextlib.suppress(attention.ModelError):  # the page that needs the model says why
            accept()


def home_model() -> str:
    """The model the pages open on: the language's opening model where this server can load it, else the
    bundled one."""
    wanted = opening(i18n.language())[1]
    choice = models.choices().get(wanted)
    return wanted if choice is not None and choice.available else models.MODEL
