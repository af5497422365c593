"""One forward pass in numpy that keeps every intermediate a view can show.

e = word × scale (√d_model in Gemma) (+ learned position) (+ token type, then LayerNorm, in BERT)   the input
per layer, from what the heads read (norm after: e itself; norm before: Norm(e)):
    q, k, v      = e W_Q + b_Q, e W_K + b_K, e W_V + b_V     q (n_heads, …), k and v (n_kv_heads, n_tokens, d_head)
    q, k         = each head's RMS-normalised, with QK-norm (Gemma 3)
    q, k         = rotated by position, with rotary positions (Llama, Gemma), by the layer's own base
    scores       = q kᵀ, each query head reading its group's key head    (n_heads, n_tokens, n_tokens)
    weights      = softmax(mask(scores / √d_head))                        rows are queries; a local layer's mask
                                                                          also hides keys beyond its window
    Δe^(h)       = (weights v) W_O^(h)                                    (n_heads, n_tokens, d_model)
attention output = Σ_h Δe^(h) + b_O
norm after (BERT):            updated = Norm(e + attention output),  output = Norm(updated + MLP(updated))
norm before (GPT-2, Llama):   updated = e + attention output,        output = updated + MLP(Norm(updated))
sandwich (Gemma):             updated = e + Norm(attention output),  output = updated + Norm(MLP(Norm(updated)))
a decoder then: final = Norm(last output), next-token logits = final W_out (a tied W_out is W_Eᵀ)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from . import ops
from .model import LayerWeights, Model, ModelConfig, Norm, frozen
from .tokens import Token, tokenize
from .traced import MASKS, LayerTrace, MaskKind, Trace


def embed(model: Model, ids: list[int], positions: bool = True, first_position: int = 0) -> np.ndarray:
    """e = word (+ learned position) (+ BERT's token type, then its LayerNorm): (n_tokens, d_model).

    With rotary positions nothing is added here: positions turn q and k inside attention instead.
    positions=False leaves the position vectors out: the counterfactual in which attention cannot tell
    word order. first_position: where `ids` start (a KV cache's next token).
    """
    emb = model.embeddings
    x = emb.word[ids]
    if model.config.embedding_scale != 1.0:  # Gemma: × √d_model, in float32 as the model computes it
        x = x * np.float32(model.config.embedding_scale)
    if emb.token_type is not None:
        x = x + emb.token_type[0]
    if positions and emb.position is not None:
        x = x + emb.position[first_position : first_position + len(ids)]
    if emb.norm is not None:
        x = norm(x, emb.norm, model.config)
    return x


def make_mask(kind: str, n_tokens: int, window: int = 0) -> np.ndarray:
    """The mask of `kind` over n_tokens, narrowed to a sliding window of `window` keys when it is not 0."""
    if kind == "none":
        mask = ops.no_mask(n_tokens)
    elif kind == "causal":
        mask = ops.causal_mask(n_tokens)
    else:
        raise ValueError(f"Unknown mask '{kind}': choose one of {', '.join(MASKS)}.")
    return mask | ops.sliding_window_mask(n_tokens, window) if window else mask


def norm(x: np.ndarray, n: Norm, cfg: ModelConfig) -> np.ndarray:
    """The model's norm: LayerNorm (mean and variance, gain and shift) or RMSNorm (root mean square, gain)."""
    if cfg.norm == "rms":
        return ops.rms_norm(x, n.gamma, cfg.norm_eps)
    return ops.layer_norm(x, n.gamma, n.beta, cfg.norm_eps)


def mlp(x: np.ndarray, w: LayerWeights, cfg: ModelConfig) -> np.ndarray:
    """The feed-forward network: GELU between two layers, or a gated one (SwiGLU's SiLU, GeGLU's GELU)."""
    if cfg.mlp == "swiglu":
        return ops.swiglu(x, w.w_gate, w.w_ff1, w.w_ff2)
    if cfg.mlp == "geglu":
        return ops.geglu(x, w.w_gate, w.w_ff1, w.w_ff2)
    return ops.feed_forward(x, w.w_ff1, w.b_ff1, w.w_ff2, w.b_ff2, cfg.mlp)


@dataclass(frozen=True)
class Knockout:
    """One head taken out of a run, to see what the model loses without it (a counterfactual):
    "zero" removes its proposal (Δe⁽ʰ⁾ = 0); "uniform" replaces its pattern by equal weights over the keys it
    may see (what a head that looks at nothing in particular would add)."""

    layer: int
    head: int
    kind: Literal["zero", "uniform"] = "zero"


@dataclass(frozen=True)
class Attention:
    """What the attention sub-layer computed, before the residual and the norm."""

    q: np.ndarray  # (n_heads, n_queries, d_head), rotated where positions are rotary
    k: np.ndarray  # (n_kv_heads, n_keys, d_head): every key the queries read, the cached ones first
    v: np.ndarray  # (n_kv_heads, n_keys, d_head)
    scores: np.ndarray  # (n_heads, n_queries, n_keys)
    weights: np.ndarray
    head_outputs: np.ndarray  # (n_heads, n_queries, d_head)
    output: np.ndarray  # (n_queries, d_model)


def attention(
    x: np.ndarray,
    w: LayerWeights,
    cfg: ModelConfig,
    mask: np.ndarray,
    positions: np.ndarray,
    past: tuple[np.ndarray, np.ndarray] | None = None,
    knockout: Knockout | None = None,
    layer: int = 0,
) -> Attention:
    """MultiHead(x) = Concat(head_1 … head_h) W_O + b_O, head_h = softmax(mask(q kᵀ / √d_head)) v.

    positions: (n_queries,) the tokens' places, which rotary positions turn q and k by.
    past: a KV cache's earlier keys and values, (n_kv_heads, t, d_head) each, read before the new ones.
    knockout: a head of this layer to take out (its layer is not checked here: the caller passes it or None).
    layer: the layer's index, for what differs between layers (the rotary base of a local layer).
    """
    q = ops.split_heads(ops.linear(x, w.w_q, w.b_q), cfg.n_heads)  # (n_heads, n_tokens, d_head)
    k = ops.split_heads(ops.linear(x, w.w_k, w.b_k), cfg.n_kv_heads)  # (n_kv_heads, n_tokens, d_head)
    v = ops.split_heads(ops.linear(x, w.w_v, w.b_v), cfg.n_kv_heads)
    if cfg.qk_norm:  # each head's queries and keys to root mean square 1, then scaled by their gains
        q, k = ops.rms_norm(q, w.norm_q.gamma, cfg.norm_eps), ops.rms_norm(k, w.norm_k.gamma, cfg.norm_eps)
    if cfg.positions == "rotary":
        angles = ops.rope_angles(positions, cfg.d_head, cfg.rope_base_of(layer))  # (n_tokens, d_head / 2)
        q, k = ops.rope(q, angles), ops.rope(k, angles)
    if past is not None:
        k, v = np.concatenate([past[0], k], axis=1), np.concatenate([past[1], v], axis=1)
    s = ops.scores(q, ops.share_kv(k, cfg.n_heads))  # (n_heads, n_queries, n_keys)
    weights = ops.softmax(ops.apply_mask(ops.scale(s, cfg.d_head), mask))
    if knockout is not None and knockout.kind == "uniform":
        weights = weights.copy()
        weights[knockout.head] = ops.uniform_weights(mask)  # equal weights over the keys the mask lets it see
    head_outputs = ops.attend(weights, ops.share_kv(v, cfg.n_heads))  # (n_heads, n_queries, d_head)
    if knockout is not None and knockout.kind == "zero":
        head_outputs[knockout.head] = 0.0  # its proposal removed: Δe⁽ʰ⁾ = 0
    output = ops.linear(ops.merge_heads(head_outputs), w.w_o, w.b_o)  # (n_queries, d_model)
    return Attention(q, k, v, s, weights, head_outputs, output)


@dataclass(frozen=True)
class Block:
    """What one block computed around its attention: what the heads read, and after each sub-layer."""

    attention_input: np.ndarray
    attention: Attention
    updated: np.ndarray
    ffn_output: np.ndarray
    output: np.ndarray


def block(
    x: np.ndarray,
    w: LayerWeights,
    cfg: ModelConfig,
    mask: np.ndarray,
    positions: np.ndarray,
    past: tuple[np.ndarray, np.ndarray] | None = None,
    knockout: Knockout | None = None,
    layer: int = 0,
) -> Block:
    """One transformer block. Norm after each sub-layer (the original Transformer, BERT); before it, on a
    residual stream that is itself never normalized (GPT-2, Llama); or both, each sub-layer's output normalized
    again before it joins the stream (Gemma's sandwich). ffn_output is what the MLP adds to the stream."""
    if cfg.norm_position == "post":
        att = attention(x, w, cfg, mask, positions, past, knockout, layer)
        updated = norm(x + att.output, w.norm_attention, cfg)
        ffn_output = mlp(updated, w, cfg)
        return Block(x, att, updated, ffn_output, norm(updated + ffn_output, w.norm_ffn, cfg))
    if cfg.norm_position not in ("pre", "sandwich"):
        raise ValueError(f"Unknown norm position '{cfg.norm_position}'.")
    attention_input = norm(x, w.norm_attention, cfg)
    att = attention(attention_input, w, cfg, mask, positions, past, knockout, layer)
    sandwich = cfg.norm_position == "sandwich"
    updated = x + (norm(att.output, w.norm_attention_out, cfg) if sandwich else att.output)
    ffn_output = mlp(norm(updated, w.norm_ffn, cfg), w, cfg)
    if sandwich:
        ffn_output = norm(ffn_output, w.norm_ffn_out, cfg)
    return Block(attention_input, att, updated, ffn_output, updated + ffn_output)


def layer_forward(
    index: int,
    x: np.ndarray,
    model: Model,
    mask: np.ndarray,
    positions: np.ndarray,
    knockout: Knockout | None = None,
    window: int = 0,
) -> LayerTrace:
    """One block of the model, every intermediate kept (read-only). window: the keys its queries read back when
    this is a local layer (its mask already hides the rest), else 0."""
    w = model.layers[index]
    out = block(
        x,
        w,
        model.config,
        mask,
        positions,
        knockout=knockout if knockout and knockout.layer == index else None,
        layer=index,
    )
    att = out.attention
    return LayerTrace(
        index=index,
        x=frozen(x),
        attention_input=frozen(out.attention_input),
        q=frozen(att.q),
        k_shared=frozen(att.k),
        v_shared=frozen(att.v),
        scores=frozen(att.scores),
        mask=frozen(mask),
        weights=frozen(att.weights),
        head_outputs=frozen(att.head_outputs),
        w_o_heads=model.w_o_heads[index],
        b_o=model.zero_bias if w.b_o is None else w.b_o,
        attention_output=frozen(att.output),
        updated=frozen(out.updated),
        ffn_output=frozen(out.ffn_output),
        output=frozen(out.output),
        window=window,
    )


def layer_windows(cfg: ModelConfig, window: int | None = None) -> list[int]:
    """Each layer's sliding window (0: none): the model's own, or `window` on its local layers (on every layer of
    a model that has none), a counterfactual."""
    if window is None:
        return [cfg.window_of(i) for i in range(cfg.n_layers)]
    if window < 1:
        raise ValueError("A sliding window holds at least one key: the query's own.")
    local = [cfg.is_local(i) for i in range(cfg.n_layers)]
    return [window if is_local or not any(local) else 0 for is_local in local]


def trace(
    model: Model,
    text: str,
    mask: MaskKind | None = None,
    max_tokens: int | None = None,
    positions: bool = True,
    knockout: Knockout | None = None,
    window: int | None = None,
) -> Trace:
    """Run `text` through every layer, keeping every intermediate.

    mask: None for the model's own (an encoder's "none", a decoder's "causal"); the other one is a
    counterfactual, and the trace says so (`mask_is_real`).
    max_tokens: cut the text to at most this many tokens; at most the model's own limit.
    positions: False leaves out the position embeddings (a counterfactual; the model was trained with them).
    knockout: a head taken out of the run (a counterfactual; see Knockout).
    window: None for the model's own sliding windows; a number of keys narrows its local layers (every layer of
    a model that has none) to that window instead (a counterfactual).
    Raises ValueError for empty text or an unknown mask, with a message the UI can show.
    """
    mask = model.config.native_mask if mask is None else mask
    if mask not in MASKS:
        raise ValueError(f"Unknown mask '{mask}': choose one of {', '.join(MASKS)}.")
    cfg = model.config
    limit = cfg.max_tokens if max_tokens is None else max(2, min(int(max_tokens), cfg.max_tokens))
    toks = tokenize(model.tokenizer, text, limit)
    return trace_tokens(
        model, toks.tokens, text, mask, positions, toks.n_dropped, toks.chars_dropped, knockout=knockout, window=window
    )


def trace_tokens(
    model: Model,
    tokens: tuple[Token, ...],
    text: str = "",
    mask: MaskKind | None = None,
    positions: bool = True,
    n_dropped: int = 0,
    chars_dropped: int = 0,
    first_position: int = 0,
    knockout: Knockout | None = None,
    window: int | None = None,
) -> Trace:
    """Run already tokenized input (in the order given) through every layer.

    first_position: the place of the first token (0; more to shift the whole text along, as if it came later).
    knockout: a head taken out of the run (a counterfactual, to see what the model loses without it).
    window: as for `trace`."""
    cfg = model.config
    mask = cfg.native_mask if mask is None else mask
    windows = layer_windows(cfg, window)
    masks = {w: frozen(make_mask(mask, len(tokens), w)) for w in set(windows)}  # one per window size
    x = embeddings = embed(model, [t.id for t in tokens], positions, first_position)
    # rotary positions: each token's place (all 0 without positions, so that every rotation is the identity)
    places = first_position + np.arange(len(tokens)) if positions else np.zeros(len(tokens), dtype=int)
    layers = []
    for i in range(cfg.n_layers):
        layers.append(layer_forward(i, x, model, masks[windows[i]], places, knockout, windows[i]))
        x = layers[-1].output
    final = head = vocabulary = None
    if cfg.predicts_next_token:  # a decoder: its final norm, then (when asked for) the output head
        final, head = frozen(norm(x, model.final_norm, cfg)), model.logits
        vocabulary = model.vocabulary
    return Trace(
        text=text,
        model_name=cfg.name,
        config=cfg,
        mask_kind=mask,
        native_mask=cfg.native_mask,
        tokens=tuple(tokens),
        n_dropped=n_dropped,
        chars_dropped=chars_dropped,
        embeddings=frozen(embeddings),
        layers=tuple(layers),
        final=final,
        head=head,
        vocabulary=vocabulary,
        pooling=cfg.pooling,
        normalize=cfg.normalize,
    )
