"""Child process of `load_model` for a folder in a layout the engine does not read itself:
`python -m attention.copy_weights FOLDER OUT NAME`.

sentence-transformers (and so torch) loads the model in this short-lived process and saves it again
as config.json + model.safetensors + tokenizer.json, which the parent then reads with numpy.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .families import SUPPORTED
from .folder import layout
from .loading import EXIT_CODES
from .model import ModelError, ModelUnavailableError, UnsupportedModelError

NEEDS = "pip install -r requirements-reference.txt (sentence-transformers and torch)"


def main(argv: list[str]) -> int:
    folder, out, name = Path(argv[0]), Path(argv[1]), argv[2]
    try:
        config = layout(folder).transformer / "config.json"
        kind = json.loads(config.read_text(encoding="utf-8")).get("model_type") if config.exists() else "bert"
        if kind != "bert":
            raise UnsupportedModelError(f"'{name}' is a {kind} model; this explainer reads {SUPPORTED}.")
        try:
            import sentence_transformers  # noqa: F401  (only to know it is there)
        except ImportError as exc:
            raise ModelUnavailableError(
                f"'{name}' is not saved as config.json + model.safetensors + tokenizer.json, which this app reads "
                f"itself; reading it needs sentence-transformers: {NEEDS}."
            ) from exc
        from .reference import load_sentence_transformer

        load_sentence_transformer(str(folder)).save(str(out))
    except ModelError as exc:
        print(str(exc).replace("\n", " "), file=sys.stderr)
        return EXIT_CODES.get(type(exc), 2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
