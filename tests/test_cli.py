"""`python -m attention trace`: the contract by which the engine is checked from outside."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from tests.test_faithful import torch_forward

ROOT = Path(__file__).resolve().parents[1]
TEXT = "the bank by the river bank"


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "attention", *args], cwd=ROOT, capture_output=True, text=True)


def test_npz_holds_the_arrays_pytorch_computes(st_model, tmp_path):
    out = tmp_path / "t.npz"
    done = run_cli("trace", TEXT, "--out", str(out))
    assert done.returncode == 0, done.stderr
    data = np.load(out)
    tokens = [str(t) for t in data["tokens"]]
    assert tokens == ["[CLS]", "the", "bank", "by", "the", "river", "bank", "[SEP]"]
    n, L, H, d = 8, 6, 12, 384
    assert data["scores"].shape == data["weights"].shape == (L, H, n, n)
    assert data["displacement"].shape == (L, H, n, d)
    assert data["hidden"].shape == (L + 1, n, d)
    ids = st_model.tokenizer(TEXT)["input_ids"]
    attentions, hidden = torch_forward(st_model, ids)
    assert np.abs(data["weights"] - attentions).max() <= 1e-5
    assert np.abs(data["hidden"] - hidden).max() <= 1e-4
    # raw scores: softmax of scores/√d_head gives the weights back
    s = data["scores"] / np.sqrt(d // H)
    e = np.exp(s - s.max(-1, keepdims=True))
    assert np.abs(e / e.sum(-1, keepdims=True) - attentions).max() <= 1e-5


def test_json_and_causal(tmp_path):
    out = tmp_path / "t.json"
    done = run_cli("trace", TEXT, "--mask", "causal", "--out", str(out), "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    w = np.array(data["weights"])
    n = len(data["tokens"])
    assert w.shape == (6, 12, n, n)
    assert (w[..., np.triu_indices(n, 1)[0], np.triu_indices(n, 1)[1]] == 0).all()
    assert np.allclose(w.sum(-1), 1.0, atol=1e-5)
    assert data["mask"] == "causal"


def test_empty_text_is_a_clear_error(tmp_path):
    done = run_cli("trace", "  ", "--out", str(tmp_path / "t.npz"))
    assert done.returncode == 2
    assert "Type a sentence" in done.stderr
    assert not (tmp_path / "t.npz").exists()


def test_a_bad_out_path_is_refused_before_the_model_loads(tmp_path):
    read_only = tmp_path / "read-only.npz"
    read_only.write_bytes(b"")
    read_only.chmod(0o444)
    cases = {
        str(tmp_path / "no-such-folder" / "t.npz"): "does not exist",
        str(tmp_path): "is a folder",
        "/proc/version": "cannot be written",
    }
    if os.geteuid() != 0:  # root may write a read-only file
        cases[str(read_only)] = "cannot be written"
    for out, message in cases.items():
        t0 = time.perf_counter()
        done = run_cli("trace", TEXT, "--out", out)
        assert done.returncode == 2 and message in done.stderr, (out, done.stderr)
        assert "Traceback" not in done.stderr
        assert time.perf_counter() - t0 < 3  # nothing was loaded or traced first
    assert read_only.read_bytes() == b""


def test_next_on_an_encoder_says_it_has_no_next_token_head():
    done = run_cli("next", TEXT)
    assert done.returncode == 2
    assert "encoder" in done.stderr and "Traceback" not in done.stderr
