"""Loading a model into numpy, by name: `load_model`. Where its files are is sources.py's question; reading them
is one reader per file format: folder.py (config.json, model.safetensors, tokenizer.json) and gguf_model.py (one
GGUF file). A folder in another layout (PyTorch's .bin weights, no tokenizer.json) is re-saved in the first one by
sentence-transformers in a short-lived child process (copy_weights.py), then read the same way, so that the
process that loads a model (the app's server) never imports PyTorch.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from .families import SUPPORTED
from .folder import layout, read_folder
from .gguf_model import read_gguf_model
from .model import Model, ModelError, ModelUnavailableError, UnsupportedModelError
from .sources import resolve

__all__ = ["EXIT_CODES", "SUPPORTED", "load_model"]

EXIT_CODES = {ModelUnavailableError: 3, UnsupportedModelError: 4}  # how the child process reports each error


def resave_in_child(folder: Path, name: str, out: Path) -> None:
    """Have sentence-transformers re-save `folder` as config.json + model.safetensors + tokenizer.json in `out`,
    in a child process, so that torch never enters this one."""
    cmd = [sys.executable, "-m", "attention.copy_weights", str(folder), str(out), name]
    done = subprocess.run(cmd, capture_output=True, text=True, env=os.environ | {"HF_HUB_OFFLINE": "1"})
    if done.returncode != 0:
        message = (done.stderr.strip().splitlines() or ["the loader exited with no message"])[-1]
        kind = next((k for k, code in EXIT_CODES.items() if code == done.returncode), ModelError)
        raise kind(message)


def load_model(name: str | None = None) -> Model:
    """Load a model into numpy: the bundled all-MiniLM-L6-v2 (name None), "smollm2", "gemma3", a local folder or
    GGUF file, or a hub id.

    Raises ModelUnavailableError (files missing, offline) or UnsupportedModelError (another architecture),
    each with a message that says what to do.
    """
    display, folder = resolve(name)
    if folder.is_file():  # a GGUF file
        return read_gguf_model(folder, display)
    if layout(folder).readable:
        return read_folder(folder, display)
    with tempfile.TemporaryDirectory(prefix="attention-model-") as tmp:
        resave_in_child(folder, display, Path(tmp))
        return read_folder(Path(tmp), display)
