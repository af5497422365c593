"""What every chapter page does first and last."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from attention import Model, ModelConfig, Trace

from . import chapters, engine, state, widgets
from .prose import sections


def begin(file: str) -> dict[str, str]:
    """Shared state from the URL, the chapter's title and opening prose; returns its prose sections."""
    state.init()
    number, chapter = next((i + 1, c) for i, c in enumerate(chapters.CHAPTERS) if c.file == file)
    prose = sections(f"chapters/{chapter.file.removesuffix('.py')}")
    st.title(f"{number} · {chapter.title}")
    st.markdown(prose["intro"])
    widgets.url_notices()
    return prose


def end() -> None:
    """The URL follows what is on screen (app.py does this too; a page run on its own needs it here)."""
    state.sync_url()


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


def sentence_view() -> SentenceView:
    """The model, the sentence box and the layer and head pickers in the sidebar, bound to the shared choice."""
    widgets.model_choice()
    model = engine.current_or_stop()
    widgets.sentence_controls(engine.max_tokens(model.config))
    widgets.cut_notice()
    layer, head = widgets.layer_head(model.config.n_layers, model.config.n_heads)
    return SentenceView(model=model, layer=layer, head=head, text=state.get("text"))
