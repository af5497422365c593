"""Attention, seen: `streamlit run app.py`.

The entry script wires the pages together; the explorer (pages/00_explorer.py) is the home page and
the lesson's chapters follow it in pages/.
"""

import json
import os
import time
from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from ui import chapters, plot, state

ROOT = Path(__file__).resolve().parent
# The browser tab's icon is a file the app serves itself: Streamlit fetches a :material/…: page icon from a
# font CDN, and an emoji needs an emoji font the browser may not have. The app makes no request outside its
# own server (class networks block them, and visitors' addresses leak). In the sidebar a :material/…: icon
# is fine: it comes from the font Streamlit serves.
st.set_page_config(page_title="Attention, step by step", page_icon=str(ROOT / "assets" / "icon.png"), layout="wide")

home = st.Page(ROOT / "pages" / "00_explorer.py", title="Explorer", icon=":material/search:", default=True)
lesson = [st.Page(ROOT / "pages" / c.file, title=c.title) for c in chapters.CHAPTERS]
# The chapters in a menu at the top (on a phone, in the sidebar), every one listed and the open one marked: in
# the sidebar, fourteen of them pushed its controls (sentence, layer, head) below a 1280×720 screen, and a
# select box opened there closed again as the sidebar scrolled to it.
pages = {"": [home], "The lesson": lesson} if lesson else [home]
# benchmarks/load.py sets it: a line per run, its start and end as the server saw them, and the sentence it drew
RUN_LOG = os.environ.get("ATTENTION_RUN_LOG")
started = time.time()
plot.preload()  # Plotly loads in the browser while the server computes the page
try:
    st.navigation(pages, position="top").run()
finally:
    state.sync_url()  # the URL always holds what is on screen (after st.stop(), see state.init)
    if RUN_LOG:
        ctx = get_script_run_ctx()
        line = {
            "session": ctx.session_id if ctx else "",
            "start": started,
            "end": time.time(),
            "text": state.get("text"),
        }
        with open(RUN_LOG, "a", encoding="utf-8") as log:
            log.write(json.dumps(line) + "\n")
