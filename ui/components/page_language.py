"""The page's <html lang>, by which a screen reader pronounces it, set to the language the page is shown in."""

from __future__ import annotations

import streamlit as st

_component = st.components.v2.component(
    "attention_page_language",
    html='<div class="page-language"></div>',
    css='[data-testid="stElementContainer"]:has(.page-language) {\n  display: none;\n}\n',
    js="export default function ({ data }) { document.documentElement.lang = data.lang; }",
    isolate_styles=False,
)


def page_language(code: str) -> None:
    """Set the page's <html lang> to `code`."""
    _component(key="page_language", data={"lang": code})
