"""Child-process entry of `load_model(isolated=True)`: `python -m attention.copy_weights OUT.npz [NAME]`.

Loads the model with sentence-transformers (and so torch) in this short-lived process and saves
its weights and tokenizer for the parent to read.
"""

from __future__ import annotations

import sys

from .model import EXIT_CODES, ModelError, load_model, save_model


def main(argv: list[str]) -> int:
    out, name = argv[0], (argv[1] if len(argv) > 1 else None)
    try:
        save_model(load_model(name), out)
    except ModelError as exc:
        print(str(exc).replace("\n", " "), file=sys.stderr)
        return EXIT_CODES.get(type(exc), 2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
