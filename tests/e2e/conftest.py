from __future__ import annotations

import pytest

from app_driver.server import chromium, streamlit_server
from tests.e2e.driver import Browser


@pytest.fixture(scope="session")
def server():
    """`streamlit run app.py` as a class starts it: the port and address alone on its command line, the rest from the
    repository's .streamlit/config.toml (headless, no usage statistics, no file watcher)."""
    with streamlit_server(as_a_class=True) as (url, _proc, _t0):
        yield url


@pytest.fixture(scope="session")
def browser():
    with chromium() as b:
        yield Browser(b)


def _watched(p):
    dialogs = []
    p.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    p.dialogs = dialogs
    return p


@pytest.fixture
def page(browser):
    p = _watched(browser.new_page(viewport={"width": 1400, "height": 1000}))
    yield p
    p.close()


@pytest.fixture
def first_visit(browser):
    """A page in a browser context of its own, its cache empty: what a first visit asks the server for."""
    p = _watched(browser.fresh_page(viewport={"width": 1400, "height": 1000}))
    yield p
    p.close()
