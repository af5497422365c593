"""Attention, seen: `streamlit run app.py`.

The entry script wires the pages together; the explorer (pages/00_explorer.py) is the home page and
the lesson's chapters follow it in pages/.

`streamlit run app.py` reads this file in two ways. It first imports it, once, for the server it names (`app` at the
end: Streamlit's server, Streamlit's own files answered from memory, the page's modules imported as it starts;
ui/served.py); then it runs it as the page, at every run of every session (`__name__` is then "__main__").
"""

import base64
import json
import os
import time
from pathlib import Path

import streamlit as st

from ui import served
from ui.components import preload, reconnect

ROOT = Path(__file__).resolve().parent
# The browser tab's icon comes with the page, as a data URL: Streamlit fetches a :material/…: page icon from a
# font CDN, and an emoji needs an emoji font the browser may not have. The app makes no request outside its
# own server (class networks block them, and visitors' addresses leak). In the sidebar a :material/…: icon
# is fine: it comes from the font Streamlit serves. (Given as a file, the icon went through PIL on every run,
# which took a seventh of a new server's first page.)
ICON = "data:image/png;base64," + base64.b64encode((ROOT / "assets" / "icon.png").read_bytes()).decode("ascii")
PAGES_KEY = "_pages"  # session key: the pages, by language
# benchmarks/load.py and soak.py set it: a line per run, its start and end as the server saw them, the sentence it
# drew, and what each of the server's caches held after it (ui/caches.py)
RUN_LOG = os.environ.get("ATTENTION_RUN_LOG")
# What a first page imports, the server imports as it starts, in a thread of its own while it answers the first
# browser (ui/served.py's starting). Not pandas: only the masking chapter's table needs it, and it is a third of these
# imports' time; the server imports it at its first quiet moment, when no figure is being made (plotly, making one,
# takes a module it finds in sys.modules as it is: a figure made while another thread imported pandas failed with
# "partially initialized module 'pandas' has no attribute 'Series'"). A page that needs it first asks for it
# (served.started).
PAGE_MODULES = (
    "ui.caches",
    "ui.session.state",
    "ui.words.chapters",
    "ui.kit.chart",
    "ui.kit.numpy_code",
    "ui.kit.worksheets",
    "ui.session.engine",
    "ui.session.models",
    "ui.session.opening",
    "pages.explorer.controls",
    "pages.explorer.heads",
    "pages.explorer.outputs",
)


def starting() -> None:
    """After the page's modules, as the server starts: Streamlit's check at a process's first element, made here
    where it costs nothing (ui/internals.py), and the bundled model read from its files, which the first page shows."""
    from ui import internals
    from ui.session import models

    internals.check_once_not_in_a_repl()
    models.model(models.MODEL)


def at_first_quiet_moment() -> None:
    """What the first page does without, done once the server is quiet: pandas imported (see PAGE_MODULES), and what
    the process holds then left out of garbage collections (ui/caches.py)."""
    import pandas  # noqa: F401

    from ui import caches

    caches.freeze()


def app_pages() -> dict | list:
    """The explorer, then the lesson's chapters and the glossary, named in the session's language. Made once per
    session and language (sixteen pages made took a fifteenth of a new sentence's run), and the session's own:
    Streamlit marks on a page that it is the one being run, which another session's run must not see."""
    from ui.words import chapters, i18n
    from ui.words.i18n import _

    made = st.session_state.setdefault(PAGES_KEY, {})
    language = i18n.language()
    if language not in made:
        home = st.Page(ROOT / "pages" / "00_explorer.py", title=_("Explorer"), icon=":material/search:", default=True)
        lesson = [st.Page(ROOT / "pages" / c.file, title=c.title) for c in chapters.CHAPTERS]
        glossary = st.Page(
            ROOT / "pages" / "glossary.py", title=_("Glossary"), icon=":material/menu_book:", url_path="glossary"
        )
        # The chapters in a menu at the top (on a phone, in the sidebar), every one listed and the open one marked:
        # in the sidebar, fourteen of them pushed its controls (sentence, layer, head) below a 1280×720 screen,
        # and a select box opened there closed again as the sidebar scrolled to it.
        made[language] = {"": [home], _("The lesson"): [*lesson, glossary]} if lesson else [home]
    return made[language]


def run() -> None:
    """One run of the page a session is on."""
    st.set_page_config(page_title="Attention, step by step", page_icon=ICON, layout="wide")
    started = time.time()
    preload.plotly()  # Plotly loads in the browser while the server computes the page: asked for before anything
    reconnect.watch()  # a page whose server was lost, drawn again by the one it reached
    served.warmed()  # the page's modules, which the server imports as it starts

    from ui import caches, internals
    from ui.session import state
    from ui.words.i18n import _

    internals.filtered_state_by_key()  # once per process: each widget reads its own value alone

    # the tab's title in the page's language, once the language is known (the call above sets the icon and the
    # layout as early as they can be; a second call changes only what it names)
    st.set_page_config(page_title=_("Attention, step by step"))
    try:
        with internals.navigating():  # a page run here is not one run alone (state.run_through_app)
            st.navigation(app_pages(), position="top").run()
    finally:
        state.sync_url()  # the URL always holds what is on screen (after st.stop(), see opening.init)
        # the memory this run freed, back to the system once there is enough of it; and where no server freezes what
        # the process holds at its first quiet moment, frozen after this first run
        caches.release(freezing=served.settled())
        if RUN_LOG:
            line = {
                "session": internals.session_id(),
                "start": started,
                "end": time.time(),
                "text": state.get("text"),
                "caches": {name: [h.entries, h.bytes, h.budget] for name, h in caches.held().items()},
            }
            with open(RUN_LOG, "a", encoding="utf-8") as log:
                log.write(json.dumps(line) + "\n")


if __name__ == "__main__":
    run()
else:
    app = st.App(
        __file__,
        middleware=served.middleware(),
        lifespan=served.starting(PAGE_MODULES, then=starting, quiet=at_first_quiet_moment),
    )
