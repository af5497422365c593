"""Command line.

    python -m attention trace "TEXT" [--model M] [--mask none|causal] --out FILE.npz|FILE.json [--format npz|json]
    python -m attention next "TEXT" [--model M] [--top K] [--temperature T] [--format json|text]

`trace` writes tokens (special tokens included), scores [n_layers, n_heads, n, n] (raw q·k, unscaled,
unmasked), weights [n_layers, n_heads, n, n] (after scale, mask and softmax), displacement
[n_layers, n_heads, n, d_model] and hidden [n_layers + 1, n, d_model], transformers' output_hidden_states
(hidden[0] is the input embeddings; for a decoder the last entry is after the final LayerNorm). Rows
are always queries. `next` prints a decoder's most likely next tokens after the text.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from .loading import load_model
from .model import ModelError
from .tokens import check_text
from .trace import trace
from .traced import MASKS, Trace

MODEL_HELP = "all-MiniLM-L6-v2 (the default, offline), a local folder, or a hub id such as gpt2"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m attention", description="A transformer's attention, step by step.")
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("trace", help="run a text through the model and write every layer's attention")
    t.add_argument("text")
    t.add_argument("--model", default=None, help=MODEL_HELP)
    t.add_argument(
        "--mask",
        choices=MASKS,
        default=None,
        help="default: the model's own (none for an encoder, causal for a decoder)",
    )
    t.add_argument("--out", required=True, help="the file to write")
    t.add_argument("--format", choices=("npz", "json"), default=None, help="default: from the file name, else npz")
    n = sub.add_parser("next", help="a decoder's most likely next tokens after the text")
    n.add_argument("text")
    n.add_argument("--model", default=None, help=MODEL_HELP)
    n.add_argument("--top", type=int, default=10)
    n.add_argument("--temperature", type=float, default=1.0)
    n.add_argument("--format", choices=("json", "text"), default="json")
    return parser


def trace_arrays(tr: Trace) -> dict[str, np.ndarray]:
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


def check_out(path: str) -> None:
    """A ValueError that says what is wrong with the output path, before anything slow runs."""
    out = Path(path)
    if out.is_dir():
        raise ValueError(f"--out {path} is a folder: name a file in it, such as {out / 'trace.npz'}.")
    folder = out.parent
    if not folder.is_dir():
        raise ValueError(f"--out {path}: the folder {folder} does not exist.")
    existed = out.exists()
    try:
        open(out, "ab").close()  # the one sure test, for root too: open it for writing, changing nothing
    except OSError as exc:
        raise ValueError(f"--out {path} cannot be written: {exc.strerror or exc}.") from exc
    if not existed:
        out.unlink()


def _write(arrays: dict[str, np.ndarray], path: str, fmt: str) -> None:
    if fmt == "json":
        with open(path, "w", encoding="utf-8") as f:
            json.dump({k: v.tolist() for k, v in arrays.items()}, f, ensure_ascii=False)
    else:
        with open(path, "wb") as f:  # a file object, so numpy does not append .npz to the name
            np.savez_compressed(f, **arrays)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        check_text(args.text)
        if args.command == "trace":
            check_out(args.out)
        elif args.top < 1 or not args.temperature > 0:
            raise ValueError("--top must be at least 1 and --temperature above 0.")
        model = load_model(args.model)
        tr = trace(model, args.text, mask=getattr(args, "mask", None))
        if args.command == "next":
            predictions = tr.next_tokens(top=args.top, temperature=args.temperature)
    except (ModelError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.command == "next":
        if args.format == "json":
            print(
                json.dumps([{"token": p.token, "probability": p.probability} for p in predictions], ensure_ascii=False)
            )
        else:
            print("\n".join(f"{p.probability:8.4f}  {p.token}" for p in predictions))
        return 0
    fmt = args.format or ("json" if args.out.endswith(".json") else "npz")
    try:
        _write(trace_arrays(tr), args.out, fmt)
    except OSError as exc:
        print(f"error: could not write {args.out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    note = (
        f"; {tr.n_dropped} tokens past the model's limit of {model.config.max_tokens} were dropped"
        if tr.n_dropped
        else ""
    )
    real = "" if tr.mask_is_real else f" (a counterfactual: {model.config.name} was trained with mask {tr.native_mask})"
    print(
        f"wrote {args.out}: {tr.n_tokens} tokens, {len(tr.layers)} layers × {model.config.n_heads} heads, mask {tr.mask_kind}{real}{note}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
