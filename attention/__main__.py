"""Command line: `python -m attention trace "TEXT" [--mask none|causal] [--model NAME] --out FILE.npz [--format json]`.

Writes tokens (special tokens included), scores [n_layers, n_heads, n, n] (raw q·k, unscaled, unmasked),
weights [n_layers, n_heads, n, n] (after scale, mask and softmax), displacement [n_layers, n_heads, n, d_model]
and hidden [n_layers + 1, n, d_model] (hidden[0] is the input embeddings). Rows are always queries.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from .model import ModelError, load_model
from .tokens import check_text
from .trace import MASKS, trace


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m attention", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("trace", help="run a text through the model and write every layer's attention")
    t.add_argument("text")
    t.add_argument("--mask", choices=MASKS, default="none")
    t.add_argument("--model", default=None, help="a local folder or hub id (default: all-MiniLM-L6-v2, offline)")
    t.add_argument("--out", required=True, help="the file to write")
    t.add_argument("--format", choices=("npz", "json"), default=None, help="default: from the file name, else npz")
    return parser


def trace_arrays(tr) -> dict[str, np.ndarray]:
    return {
        "tokens": np.array([t.text for t in tr.tokens]),
        "scores": tr.scores,
        "weights": tr.weights,
        "displacement": tr.displacement,
        "hidden": tr.hidden,
        "mask": np.array(tr.mask_kind),
        "n_dropped": np.array(tr.n_dropped),
        "model": np.array(tr.model_name),
    }


def _write(arrays: dict[str, np.ndarray], path: str, fmt: str) -> None:
    if fmt == "json":
        with open(path, "w", encoding="utf-8") as f:
            json.dump({k: v.tolist() for k, v in arrays.items()}, f, ensure_ascii=False)
    else:
        with open(path, "wb") as f:  # a file object, so numpy does not append .npz to the name
            np.savez_compressed(f, **arrays)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    fmt = args.format or ("json" if args.out.endswith(".json") else "npz")
    try:
        check_text(args.text)
        model = load_model(args.model)
        tr = trace(model, args.text, mask=args.mask)
    except (ModelError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    _write(trace_arrays(tr), args.out, fmt)
    note = f"; {tr.n_dropped} tokens past the model's limit of {model.config.max_tokens} were dropped" if tr.n_dropped else ""
    print(f"wrote {args.out}: {tr.n_tokens} tokens, {len(tr.layers)} layers × {model.config.n_heads} heads, mask {tr.mask_kind}{note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
