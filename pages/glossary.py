"""The glossary: each term of the lesson in the page's language, its English, what it means, and the chapters
that use it (ui/words/glossary.py)."""

import streamlit as st

from ui.kit import chapter, choices, notices
from ui.session import opening, state
from ui.words import glossary, i18n
from ui.words.i18n import _


def escaped(text: str) -> str:
    """The text as markdown shows it letter for letter (d_model's underscore is not an emphasis)."""
    return "".join("\\" + c if c in "\\`*_[]<>#|" else c for c in text)


opening.init()
choices.language_choice()
st.title(_("Glossary"))
st.markdown(
    _("The words of the lesson, what each means here, and the chapters that say it.")
    if i18n.language() == i18n.SOURCE
    else _(
        "The words of the lesson, each with the English one that papers and code use, what it means here, and the "
        "chapters that say it."
    )
)
notices.url_notices()
code = i18n.language()
for entry in glossary.entries(code):
    where = glossary.used_in(entry, code)
    english = "" if entry.english == entry.term else f" ({escaped(entry.english)})"
    term = f"**{escaped(entry.term)}**{english}"
    lines = [_("{term}: {definition}").format(term=term, definition=escaped(entry.definition))]
    if where:
        links = i18n.listing(f"[{escaped(c.title)}]({chapter.address(c)})" for c in where)
        lines.append(_("Chapters: {chapters}").format(chapters=links))
    st.markdown("  \n".join(lines))
state.sync_url()
