"""See the numpy: under each step of the explorer, the lines of `attention/` that computed it, read from the source
when the page runs (never a copy that could drift), each assignment with the shape it has for the sentence on screen.

A step is a list of pieces: a function of `attention/` shown whole, or the lines of one that a step runs (picked by
how they begin, and only those of the branches this model runs: a rotary model's rotation, a grouped model's
sharing of keys and values). `pieces` is pure, so that a test can run the trace and check that every line it names
is one the trace ran.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import streamlit as st

import attention
from attention import ops
from attention.trace import attention as sublayer
from attention.trace import block, embed, make_mask, mlp
from ui.words.i18n import _

ROOT = Path(__file__).resolve().parents[2]
ASSIGNED = re.compile(r"^\s*(?:return\b|([\w, ]+?)\s*=(?!=))")


@dataclass(frozen=True)
class Piece:
    """A function of attention/, whole (no `starts`) or only its lines that begin with one of `starts`; `shapes`
    names the shape of what a line assigns (by the name it assigns, "return" for what it returns)."""

    function: Callable
    starts: tuple[str, ...] = ()
    shapes: dict[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Line:
    path: str  # from the project's root: attention/ops.py
    number: int
    text: str  # as the file has it, without its newline


TOKENS = ("n_tokens", "d_model")
HEADS = ("n_heads", "n_tokens", "d_head")
KV_HEADS = ("n_kv_heads", "n_tokens", "d_head")
MATRIX = ("n_heads", "n_tokens", "n_tokens")
MLPS = {"swiglu": ops.swiglu, "geglu": ops.geglu, "gelu": ops.feed_forward, "gelu_tanh": ops.feed_forward}


def steps(cfg: attention.ModelConfig, mask_kind: str, window: int) -> dict[str, list[Piece]]:
    """Each step the explorer draws, as the pieces of attention/ that compute it for this model and mask."""
    grouped = cfg.n_kv_heads < cfg.n_heads
    sharing = [Piece(ops.share_kv, shapes={"return": HEADS})] if grouped else []
    qkv = ["q = ops.split_heads", "k = ops.split_heads", "v = ops.split_heads"]
    if cfg.qk_norm:
        qkv += ["if cfg.qk_norm", "q, k = ops.rms_norm"]
    if cfg.positions == "rotary":
        qkv += ['if cfg.positions == "rotary"', "angles = ops.rope_angles", "q, k = ops.rope("]
    mask_function = ops.causal_mask if mask_kind == "causal" else ops.no_mask
    return {
        "embeddings": [Piece(embed, shapes={"x": TOKENS})],
        "qkv": [
            Piece(sublayer, tuple(qkv), {"q": HEADS, "k": KV_HEADS, "v": KV_HEADS, "q, k": HEADS}),
            Piece(ops.linear),
            Piece(ops.split_heads),
        ]
        + ([Piece(ops.rope)] if cfg.positions == "rotary" else []),
        "scores": [Piece(sublayer, ("s = ops.scores",), {"s": MATRIX}), Piece(ops.scores), *sharing],
        "scaling": [Piece(sublayer, ("weights = ops.softmax",), {"weights": MATRIX}), Piece(ops.scale)],
        "mask": [
            Piece(make_mask, shapes={"mask": ("n_tokens", "n_tokens")}),
            Piece(mask_function, shapes={"return": ("n_tokens", "n_tokens")}),
            *([Piece(ops.sliding_window_mask)] if window else []),
            Piece(ops.apply_mask),
        ],
        "softmax": [Piece(ops.softmax, shapes={"e": MATRIX, "return": MATRIX})],
        "values": [Piece(sublayer, ("head_outputs = ops.attend",), {"head_outputs": HEADS}), Piece(ops.attend)],
        "w_o": [
            Piece(sublayer, ("output = ops.linear(ops.merge_heads",), {"output": TOKENS}),
            Piece(ops.merge_heads, shapes={"return": ("n_tokens", "n_heads × d_head")}),
            Piece(ops.displacement, shapes={"return": ("n_heads", "n_tokens", "d_model")}),
        ],
        "after": [
            Piece(block, shapes={"updated": TOKENS, "ffn_output": TOKENS, "attention_input": TOKENS}),
            Piece(mlp),
            Piece(MLPS[cfg.mlp], shapes={"return": TOKENS}),
        ],
    }


@cache
def _source(function: Callable) -> tuple[str, int, tuple[str, ...]]:
    lines, first = inspect.getsourcelines(function)
    path = Path(inspect.getsourcefile(function)).resolve().relative_to(ROOT).as_posix()
    return path, first, tuple(line.rstrip("\n") for line in lines)


def lines(piece: Piece) -> list[Line]:
    """The lines of the piece, as the source file has them now."""
    path, first, text = _source(piece.function)
    numbered = [Line(path, first + i, t) for i, t in enumerate(text)]
    if not piece.starts:
        return numbered
    picked = [line for line in numbered if line.text.strip().startswith(piece.starts)]
    missing = [s for s in piece.starts if not any(line.text.strip().startswith(s) for line in picked)]
    if missing:  # the source changed under the step: say so rather than show less
        raise LookupError(f"{path} has no line beginning {missing} in {piece.function.__name__}")
    return picked


def sizes(cfg: attention.ModelConfig, n_tokens: int) -> dict[str, int]:
    return dict(
        n_tokens=n_tokens,
        d_model=cfg.d_model,
        n_heads=cfg.n_heads,
        n_kv_heads=cfg.n_kv_heads,
        d_head=cfg.d_head,
        **{"n_heads × d_head": cfg.n_heads * cfg.d_head},
    )


def with_shape(line: str, shape: tuple[str, ...] | None, size: dict[str, int]) -> str:
    """The line with its shape for this sentence beside it: "(n_heads, n_tokens, d_head) = (12, 13, 32)", only the
    numbers where the source already names the shape in a comment."""
    if shape is None:
        return line
    numbers = "(" + ", ".join(str(size[d]) for d in shape) + ")"
    if "#" in line:
        return f"{line} → {numbers}"
    return f"{line}  # ({', '.join(shape)}) = {numbers}"


def listing(pieces: list[Piece], size: dict[str, int]) -> str:
    """The pieces as one listing: before each run of lines, the file and line it comes from."""
    out: list[str] = []
    for piece in pieces:
        shown = lines(piece)
        previous = None
        for line in shown:
            if previous is None or line.number != previous + 1:
                out.append(("" if not out else "\n") + f"# {line.path}, line {line.number}")
            m = ASSIGNED.match(line.text)
            name = None if m is None else (m.group(1) or "return").strip()
            shape = piece.shapes.get(name) if name else None
            text = line.text if piece.starts == () else line.text.strip()
            out.append(with_shape(text, shape, size))
            previous = line.number
    return "\n".join(out)


def disclosure(label: str, tr: attention.Trace, layer: attention.LayerTrace, *keys: str) -> None:
    """A closed "See the numpy" under a step of the explorer: the lines of `keys`' steps, made and sent only while it
    is open. Closed, a page sent nine listings nobody had opened, and the browser highlighted them all before a new
    server's first page was complete; opened, the expander reruns its own fragment alone, not the page."""
    _disclosure(label, tr, layer, keys)


@st.fragment
def _disclosure(label: str, tr: attention.Trace, layer: attention.LayerTrace, keys: tuple[str, ...]) -> None:
    """disclosure, in a fragment of its own: the expander remembers whether it is open (by its first step's name)."""
    box = st.expander(
        _("See the numpy: {step}").format(step=label), icon=":material/code:", key=key(keys), on_change="rerun"
    )
    if not box.open:
        return
    cfg = tr.config
    chosen = steps(cfg, tr.mask_kind, layer.window)
    size = sizes(cfg, tr.n_tokens)
    with box:
        st.caption(
            _(
                "The lines of the app's engine that computed this step, read from its source as the page runs; "
                "beside each, the shape it has for this sentence ({n} tokens)."
            ).format(n=tr.n_tokens)
        )
        for step in keys:
            st.code(listing(chosen[step], size), language="python", wrap_lines=True)  # the shapes in sight


def key(keys: tuple[str, ...]) -> str:
    """The session-state key of the expander that shows these steps: True while it is open."""
    return f"numpy_{keys[0]}"
