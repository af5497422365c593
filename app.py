"""Attention, seen: `streamlit run app.py`.

The entry script wires the pages together; the explorer (ui/explorer.py) is the home page and
the lesson's chapters live in pages/.
"""

from pathlib import Path

import streamlit as st

from ui import chapters, explorer, state

st.set_page_config(page_title="Attention, step by step", page_icon=":material/search:", layout="wide")

ROOT = Path(__file__).resolve().parent
home = st.Page(explorer.render, title="Explorer", icon=":material/search:", default=True)
lesson = [st.Page(ROOT / "pages" / c.file, title=c.title) for c in chapters.CHAPTERS]
try:
    st.navigation({"Explore": [home], "The lesson": lesson} if lesson else [home]).run()
finally:
    state.sync_url()  # also after st.stop(): the URL always holds what is on screen
