"""What every page adds for a reader on a keyboard, a screen reader or a zoomed screen (ui/components/access.js).

Skip links come first in the page: to the page's content, to the sidebar's controls, and to each of its sections.
A chart's toolbar is one stop of the Tab order, its first button (the camera, which saves the figure) taking it and
the arrow keys moving along the rest: a page of nine charts put 72 toolbar buttons between a keyboard and the next
control. A box that scrolls sideways (an equation wider than a column) takes focus, so the keyboard can scroll
it. Every control shows where the focus is, and Streamlit's captions are dark enough to read (4.5:1).
"""

from __future__ import annotations

import json
from pathlib import Path

import streamlit as st

from ui.words import i18n
from ui.words.i18n import N_, _

_JS = Path(__file__).with_name("access.js").read_text(encoding="utf-8")
FOCUS = "#0072B2"  # the theme's primary colour: 5.2:1 on white, 4.9:1 on the sidebar's grey
# Streamlit's captions are its text colour at 60 % (3.9:1 on white; in the sidebar, faded once more, 2.7:1 as axe
# measures it): at 80 % and opaque, 7.2:1 and 6.9:1
CAPTION = "rgba(47, 45, 43, 0.8)"
_CSS = f"""
[data-testid="stElementContainer"]:has(.page-access) {{ display: none; }}
[data-testid="stSkipToContent"] {{ display: none; }}  /* Streamlit's own skip link, in English: ours lead */
/* a folded sidebar (a narrow or zoomed window folds it) out of the Tab order: its 30 controls were stops the focus
   took out of sight; hidden once it has slid away */
[data-testid="stSidebar"][data-collapsed="true"] :is([data-testid="stSidebarContent"], [data-testid="stSidebarContent"] *) {{
  visibility: hidden !important; transition: visibility 0s linear 0.3s;
}}
[data-testid="stCaptionContainer"] {{ color: {CAPTION}; opacity: 1; }}
/* a metric's label wraps in a narrow or zoomed column, where Streamlit cuts it with an ellipsis */
[data-testid="stMetricLabel"], [data-testid="stMetricLabel"] * {{
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important;
}}
/* …but a formula in it stays whole: KaTeX lays out its glyphs on one line, and wrapped they stood one per line */
[data-testid="stMetricLabel"] .katex, [data-testid="stMetricLabel"] .katex * {{ white-space: nowrap !important; }}
/* a ring around whatever the keyboard reached; around a text box or select box, and a radio button's or a
   switch's label, where the focused input itself is hidden or framed */
:focus-visible {{ outline: 2px solid {FOCUS} !important; outline-offset: 2px; }}
[data-baseweb="select"] > div:has(input:focus-visible),
[data-baseweb="textarea"]:has(textarea:focus-visible),
[data-baseweb="input"]:has(input:focus-visible),
label:has(> input:focus-visible),
label:has(input[type="checkbox"]:focus-visible),
label:has(input[type="radio"]:focus-visible) {{ outline: 2px solid {FOCUS}; outline-offset: 2px; }}
:is(input, textarea):focus-visible:is([data-baseweb] *, label *) {{ outline: none !important; }}
/* clear of the bar at the top: a heading a skip link scrolls to, and any control the focus brings into view from
   below it (Shift+Tab scrolls the page down only as far as the control's top) */
[data-testid="stMain"] :is(h1, h2, h3, a, button, input, select, textarea, summary, [tabindex]) {{
  scroll-margin-top: 4.5rem;
}}
/* KaTeX's glyphs stand a pixel or two out of its box: without this room every such equation scrolls sideways, and
   the browser makes each one a stop of the Tab order for nothing */
.katex-display {{ padding-inline: 4px; }}
/* Korean breaks lines between words, never inside one (a syllable cut from its word reads as another word); a word
   longer than the line (a long token) may still break anywhere */
html:lang(ko) body, html:lang(ko) body * {{ word-break: keep-all !important; overflow-wrap: anywhere; }}
.skip-links {{
  position: fixed; top: 0.5rem; left: 0.5rem; z-index: 1000100; max-width: calc(100vw - 1rem);
  max-height: calc(100vh - 1rem); overflow-y: auto; padding: 0.5rem 0.75rem; background: white; color: #1f2430;
  border: 2px solid {FOCUS}; border-radius: 0.5rem; box-shadow: 0 4px 16px rgba(0, 0, 0, 0.25); font-size: 1rem;
}}
.skip-links:not(:focus-within) {{
  width: 1px; height: 1px; padding: 0; border: 0; overflow: hidden; clip-path: inset(50%); white-space: nowrap;
}}
.skip-links ul {{ margin: 0; padding: 0; list-style: none; }}
.skip-links li {{ margin: 0.15rem 0; }}
.skip-links a {{ color: {FOCUS}; text-decoration: underline; }}
"""
# Streamlit's note under a text box that was changed ("Press Ctrl+Enter to apply") is written in English by its own
# code: in another language, the page's words instead (its <html lang>, ui/kit/choices.py, picks them)
APPLY = {
    "stTextArea": N_("Ctrl+Enter to apply"),  # as short as Streamlit's, which the box holds in its corner; ⌘ works too
    "stTextInput": N_("Enter to apply"),
}
_CSS += "".join(
    f'html:lang({code}) [data-testid="{box}"] [data-testid="InputInstructions"] > span:first-child {{ display: none; }}\n'
    f'html:lang({code}) [data-testid="{box}"] [data-testid="InputInstructions"]::before '
    f"{{ content: {json.dumps(i18n.gettext(code, words), ensure_ascii=False)}; }}\n"
    for code in i18n.offered()
    if code != i18n.SOURCE
    for box, words in APPLY.items()
)
# Streamlit's own chart (where a click must reach the app) adds a Fullscreen button to Plotly's toolbar, titled in
# English; Plotly shows a button's title from its data-title attribute, in CSS, which can say it in the page's words
STREAMLIT_BUTTONS = (N_("Fullscreen"), N_("Close fullscreen"))
_CSS += "".join(
    f'html:lang({code}) [data-testid="stPlotlyChart"] .modebar-btn[data-title="{words}"]::after '
    f"{{ content: {json.dumps(i18n.gettext(code, words), ensure_ascii=False)}; }}\n"
    for code in i18n.offered()
    if code != i18n.SOURCE
    for words in STREAMLIT_BUTTONS
)
_component = st.components.v2.component(
    "attention_access", html='<div class="page-access"></div>', css=_CSS, js=_JS, isolate_styles=False
)


def page_access() -> None:
    """Skip links, toolbars of one Tab stop, focusable scrolling boxes: once per page, in the page's language."""
    _component(
        key="page_access",
        data={
            "skip": _("Skip links"),
            "content": _("Skip to the page"),
            "controls": _("Skip to the controls in the sidebar"),
            "sections": _("Sections of the page"),
            "tools": _("Chart tools: ← and → move between them"),
            "equation": _("Equation wider than the page: ← and → scroll it"),
            "code": _("Code wider than the page: ← and → scroll it"),
            "table": _("Table that scrolls: ↑, ↓, ← and → scroll it"),
        },
    )
