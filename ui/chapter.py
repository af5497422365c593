"""What every chapter page does first and last."""

from __future__ import annotations

import streamlit as st

from . import chapters, state
from .prose import sections


def begin(file: str) -> dict[str, str]:
    """Shared state from the URL, the chapter's title and opening prose; returns its prose sections."""
    state.init()
    number, chapter = next((i + 1, c) for i, c in enumerate(chapters.CHAPTERS) if c.file == file)
    prose = sections(f"chapters/{chapter.file.removesuffix('.py')}")
    st.title(f"{number} · {chapter.title}")
    st.markdown(prose["intro"])
    for name in state.take_notices():
        st.warning(f"The link's **{name}** value could not be used here, so the default is shown.")
    return prose


def end() -> None:
    """The URL follows what is on screen (app.py does this too; a page run on its own needs it here)."""
    state.sync_url()
