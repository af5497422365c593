"""Shared fixtures: the real packaged model, loaded once per test session (no mocks), and a small random GPT-2
where a download of "gpt2" would be."""

from __future__ import annotations

import os

# One thread of BLAS and OpenMP per test process, set before numpy or torch is loaded: .ci/run runs three test
# processes (and their app servers and browsers) on two cores, where a second thread each only waits for a core;
# see benchmarks/README.md for what it saves (the numbers agree within the same tolerances)
for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import threading  # noqa: E402

import pytest  # noqa: E402
import streamlit.config  # noqa: E402
import streamlit.testing.v1.local_script_runner  # noqa: E402
from streamlit.runtime.scriptrunner import ScriptRunnerEvent  # noqa: E402
from streamlit.runtime.scriptrunner.script_cache import ScriptCache  # noqa: E402

import attention  # noqa: E402
from attention.reference import load_sentence_transformer  # noqa: E402
from ui import internals  # noqa: E402

# --- AppTest as a server runs the app ---------------------------------------------------------------------------
# Two things Streamlit's AppTest does that a server does not, each a few per cent of this suite's CPU, undone here
# for every AppTest of the tests (the app and the benchmarks are left as they are):
# - each new AppTest reads the metadata of every installed package for Streamlit components; a server reads it once,
#   when it starts (ui/internals.py, which the lesson's worksheet uses too).
internals.components_scanned_once()


# - it waits for a run to end by waking every millisecond to look (and takes the interpreter's lock from the run each
#   time); this waits for the run's end to be signalled, with the same timeout and the same error.
def _until_stopped(runner, timeout: float = 3) -> None:
    stopped = threading.Event()

    def seen(_sender, event, **_kwargs):
        if event == ScriptRunnerEvent.SHUTDOWN:
            stopped.set()

    runner.on_event.connect(seen, weak=False)
    try:
        if runner.script_stopped() or stopped.wait(timeout):
            return
    finally:
        runner.on_event.disconnect(seen)
    runner.request_stop()
    runner.join()
    raise RuntimeError(f"AppTest script run timed out after {timeout}(s)")


streamlit.testing.v1.local_script_runner.require_widgets_deltas = _until_stopped


# - it compiles the page again for every run: each run gets a new, empty script cache, where a server keeps one for
#   all its sessions. Compiling (Streamlit's "magic" rewrites the page's syntax tree first) takes about 5 ms a page.
#   Here a page is compiled once per test process, and again only if its file changed.
_compiled: dict[tuple, object] = {}
_get_bytecode = ScriptCache.get_bytecode


def _bytecode_once(self: ScriptCache, script_path: str) -> object:
    path = os.path.abspath(script_path)
    try:
        stat = os.stat(path)
    except OSError:
        return _get_bytecode(self, script_path)  # Streamlit's own error
    key = (path, stat.st_mtime_ns, stat.st_size, streamlit.config.get_option("runner.magicEnabled"))
    if key not in _compiled:
        _compiled[key] = _get_bytecode(self, script_path)
    return _compiled[key]


ScriptCache.get_bytecode = _bytecode_once


# --- the decoders, read once per test process --------------------------------------------------------------------
# The app keeps one model beside the bundled one and reads a decoder again when the other was chosen in between
# (ui/session/models.py), and many tests load one themselves: reading Gemma 3 takes 7 to 14 s, SmolLM2 3 to 6 s, and
# the tests choose the two in every order on each worker. Here each is read once per test process and given again (a
# model's arrays are read-only). The bundled model loads as it does: tests make its package fail to import.
DECODERS = ("smollm2", "gemma3")
_read = {}
_load_model = attention.load_model


def _load_decoder_once(name: str | None = None) -> attention.Model:
    if name not in DECODERS:
        return _load_model(name)
    if name not in _read:
        _read[name] = _load_model(name)
    return _read[name]


attention.load_model = _load_decoder_once


@pytest.fixture(scope="session")
def st_model():
    """The reference: sentence-transformers' own all-MiniLM-L6-v2, eager attention, on the CPU."""
    return load_sentence_transformer()


@pytest.fixture(scope="session")
def model():
    """The same model as the engine reads it: straight from its files, with numpy."""
    return attention.load_model()


@pytest.fixture(scope="session")
def tiny_gpt2_folder(tmp_path_factory):
    """A small random GPT-2 saved as Hugging Face saves one (tests/tiny_gpt2.py), built once: nothing writes to it."""
    from tests.tiny_gpt2 import build_tiny_gpt2

    return build_tiny_gpt2(tmp_path_factory.mktemp("tiny-gpt2"))


@pytest.fixture(scope="module")
def tiny(tiny_gpt2_folder):
    """The small random GPT-2, read by the engine."""
    import attention

    return attention.load_model(str(tiny_gpt2_folder))


@pytest.fixture(scope="module")
def tiny_reference(tiny_gpt2_folder):
    """transformers' own GPT-2 reading the small random one, eager so that it returns its weights."""
    from transformers import GPT2LMHeadModel

    return GPT2LMHeadModel.from_pretrained(tiny_gpt2_folder, attn_implementation="eager").eval()


@pytest.fixture(scope="session")
def shared_dir(tmp_path_factory, worker_id):
    """A folder every test process of this run shares (pytest-xdist's workers each have a folder of their own under
    it), for what one process makes and the others read: the reference models dequantized from GGUF."""
    base = tmp_path_factory.getbasetemp()
    return base if worker_id == "master" else base.parent


@pytest.fixture
def empty_cache(tmp_path, monkeypatch):
    """An empty Hugging Face cache, offline: of the decoders, only those installed with the app can be chosen."""
    import huggingface_hub.constants

    from ui.session import models

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    models.choices.clear()
    yield
    models.choices.clear()


@pytest.fixture
def gpt2_in_cache(tiny_gpt2_folder, tmp_path, empty_cache):
    """The small random GPT-2 where a download of "gpt2" would be, offline: the Model choice offers it."""
    from tests.tiny_gpt2 import install_in_hf_cache

    install_in_hf_cache(tiny_gpt2_folder, "gpt2", tmp_path / "hub")


# --- the order the tests are handed out in -------------------------------------------------------------------------
# .ci/run gives the tests to three worker processes (pytest-xdist, --dist load --maxschedchunk 1), each next test to
# the first worker free: the longest first, so that none is left to run alone at the end. A browser test mostly waits
# for its page (the server and Chromium work in processes of their own), so a third worker keeps the two cores busy.
# The seconds the longest test of each of the slowest modules took in a whole run on a 2-core machine (a module that
# loads a reference model from transformers pays that once per worker it runs on); what is not listed runs after, as
# collected. Only the order depends on these figures: a stale one costs a minute, never a result.
LONGEST = {
    "tests/e2e/test_languages_browser.py": 130,
    "tests/e2e/test_reflow_browser.py": 110,
    "tests/e2e/test_deploy_browser.py": 100,
    "tests/test_gemma3.py": 55,  # its first test builds the reference from the GGUF file
    "tests/test_smollm2.py": 40,
    "tests/e2e/test_readable_browser.py": 38,
    "tests/e2e/test_chapters_browser.py": 34,
    "tests/e2e/test_explorer_input_browser.py": 31,
    "tests/e2e/test_reliability_browser.py": 31,
    "tests/e2e/test_export_browser.py": 26,
    "tests/test_worksheet.py": 25,
    "tests/e2e/test_accessibility_browser.py": 24,
    "tests/e2e/test_presenter_browser.py": 23,
    "tests/test_export.py": 22,
    "tests/e2e/test_explorer_browser.py": 19,
    "tests/test_described.py": 18,
    "tests/test_edges.py": 18,
    "tests/test_model.py": 17,
    "tests/e2e/test_keyboard_browser.py": 17,
    "tests/test_chapters_on_models.py": 14,
    "tests/e2e/test_displacement_browser.py": 10,
    "tests/e2e/test_model_choice_browser.py": 9,
    "tests/e2e/test_table_browser.py": 9,
    "tests/e2e/test_toolbar_language_browser.py": 6,
}


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: LONGEST.get(item.nodeid.partition("::")[0], 0), reverse=True)  # stable
