"""A page whose server was lost runs again once it has reconnected, so that the server it reached draws it.

Behind a load balancer (deploy/serve), a page whose server died reconnects to another one; Streamlit's page then
asks for no run (it takes the server to have kept its session), and the new server's session, which knows nothing
of the page, would answer the student's next change from the defaults, the change itself lost. The run this asks
for (ui/components/reconnect.js) starts that session from the page's link, as any new session starts (ui/session/state.py): the same
view, drawn by the new server. Imports nothing but Streamlit: app.py mounts it before importing the rest.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

_component = st.components.v2.component(
    "attention_reconnect",
    html='<div class="page-reconnect"></div>',
    css='[data-testid="stElementContainer"]:has(.page-reconnect) {\n  display: none;\n}\n',
    js=Path(__file__).with_name("reconnect.js").read_text(encoding="utf-8"),
    isolate_styles=False,
)


def watch() -> None:
    """Once per page: a run after the page reconnects to its server, or to another one. A session that has not yet
    heard the page's size (a new server's) takes the size the page sends with it, so that its first run draws the
    figures to the page, not to a default that the page would correct with a second run."""
    asked = _component(key="page_reconnect", on_reconnected_change=lambda: None)
    reconnected = getattr(asked, "reconnected", None)
    if isinstance(reconnected, dict) and isinstance(reconnected.get("canvas"), dict):
        from ui.components import (
            head_switch,  # the rest of the app, imported only here: app.py sends this element first
        )

        size = reconnected["canvas"]
        if head_switch.CANVAS not in st.session_state and all(
            isinstance(size.get(k), int) for k in ("width", "height")
        ):
            st.session_state[head_switch.CANVAS] = {"width": size["width"], "height": size["height"]}
