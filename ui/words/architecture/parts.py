"""Words about the model as a whole: its diagram's boxes, the pipeline in one line, the parameter table and why
the GPT-2 calculator's count differs, and the positions and windows the chapters name."""

from __future__ import annotations

from typing import Any

from attention import ModelConfig
from attention.lessons import budget
from ui.words.architecture.after import has_norm_after_heads
from ui.words.architecture.fields import norm_latex, norm_name, pick
from ui.words.architecture.heads import sharing_name
from ui.words.architecture.tokens import _embedding_norm
from ui.words.i18n import _, listing, n_, semicolons, whole


def _norm_detail(cfg: ModelConfig) -> str:
    n = whole(cfg.d_model)
    return pick(cfg, "norm", {"layer": _("{n} gains and {n} biases").format(n=n), "rms": _("{n} gains").format(n=n)})


def part_words(model: Any, key: str) -> tuple[str, str]:
    """(the box's name, its sizes) for a part of budget.architecture, from the model's fields and arrays."""
    cfg, d = model.config, model.config.d_model
    norm, detail = norm_name(cfg), _norm_detail(cfg)
    if key == "tokens":
        return _("Tokens"), _("a vocabulary of {n}").format(n=whole(cfg.vocab_size))
    if key == "embedding":
        scaled = f" × √{cfg.d_model}" if cfg.embedding_scale != 1.0 else ""
        rows = model.embeddings.position.shape[0] if model.embeddings.position is not None else 0
        positions = pick(
            cfg,
            "positions",
            {
                "learned": _(" + {rows} positions × {d}").format(rows=whole(rows), d=d),
                "rotary": _("; positions rotate q and k instead"),
            },
        )
        types = model.embeddings.token_type  # BERT's segment vectors: counted in the box, so named in it
        segments = (
            n_(" + {n} token type × {d}", " + {n} token types × {d}", types.shape[0]).format(n=types.shape[0], d=d)
            if types is not None
            else ""
        )
        normalized = _(", then {norm}").format(norm=norm) if model.embeddings.norm is not None else ""
        tokens = _("{n} tokens × {d}").format(n=whole(cfg.vocab_size), d=d)
        return _("Embeddings"), f"{tokens}{scaled}{positions}{segments}{normalized}"
    if key == "attention":
        heads = (
            _("{n} heads × d<sub>head</sub> {d}").format(n=cfg.n_heads, d=cfg.d_head)
            if cfg.n_kv_heads == cfg.n_heads
            else n_(
                "{n} query heads, {kv} key/value head, d<sub>head</sub> {d}",
                "{n} query heads, {kv} key/value heads, d<sub>head</sub> {d}",
                cfg.n_kv_heads,
            ).format(n=cfg.n_heads, kv=cfg.n_kv_heads, d=cfg.d_head)
        )
        extras = [pick(cfg, "positions", {"learned": "", "rotary": _("rotary")}), "QK-norm" if cfg.qk_norm else ""]
        return _("Attention"), semicolons([heads, *extras])  # its window: chapter 8 (one line here)
    if key == "mlp":
        gated = pick(cfg, "mlp", {"gelu": "", "gelu_tanh": "", "swiglu": "SwiGLU", "geglu": "GeGLU"})
        name = f"MLP ({gated})" if gated else _("MLP (feed-forward)")
        wide = whole(cfg.d_ff)
        return name, _("{d} → {ff} (×2: gate and up) → {d}").format(d=d, ff=wide) if gated else f"{d} → {wide} → {d}"
    if key in ("norm_attention", "norm_mlp"):
        return norm, detail
    if key in ("norm_attention_out", "norm_mlp_out"):
        return _("{norm} (on the output)").format(norm=norm), detail
    if key in ("add_attention", "add_mlp"):
        # what the sub-layer adds, as the model computes it: f(x), f(norm(x)) or norm(f(norm(x)))
        read = f"{norm}(x)" if cfg.norm_position in ("pre", "sandwich") else "x"
        what = (_("attention({x})") if key == "add_attention" else "MLP({x})").format(x=read)
        if has_norm_after_heads(cfg) and cfg.norm_position == "post":
            return _("Add & {norm}").format(norm=norm), _("x + {what}, then {detail}").format(what=what, detail=detail)
        if cfg.norm_position == "sandwich":
            what = f"{norm}({what})"
        return _("Residual: x + {what}").format(what=what), _("adds, learns nothing")
    if key == "final_norm":
        return _("Final {norm}").format(norm=norm), detail
    if key == "output":
        if not cfg.predicts_next_token:
            how = {"cls": _("the first token's vector"), "max": _("the largest value of each coordinate")}
            pooled = how.get(cfg.pooling, _("the mean of the tokens' vectors"))
            shape = _("{pooled}, {d} wide, scaled to length 1") if cfg.normalize else _("{pooled}, {d} wide")
            return _("Sentence embedding"), shape.format(pooled=pooled, d=d)
        if model.output is None:
            return _("Next-token scores"), _("× W<sub>E</sub>ᵀ: {d} → {n}, the embedding reused").format(
                d=d, n=whole(cfg.vocab_size)
            )
        return _("Next-token scores"), f"× W<sub>out</sub>: {d} → {whole(cfg.vocab_size)}"
    raise ValueError(f"No words for the part '{key}' of {cfg.name}: add them to ui/words/architecture.py.")


def pipeline_latex(cfg: ModelConfig) -> str:
    """The whole model in one line, as the big picture writes it."""
    word = rf"\sqrt{{{cfg.d_model}}}\,W_E[t]" if cfg.embedding_scale != 1.0 else "W_E[t]"
    n = norm_latex(cfg)
    learned = rf"{word} + P" + (r" + T_0" if _embedding_norm(cfg) else "")  # as embedding_latex writes it
    embedding = pick(
        cfg, "positions", {"learned": rf"{n}({learned})" if _embedding_norm(cfg) else learned, "rotary": word}
    )
    sub_layer = pick(  # one sub-layer, its norms where the model puts them (f: Attention, then MLP)
        cfg,
        "norm_position",
        {
            "post": rf"x \leftarrow {n}(x + \operatorname{{{{f}}}}(x))",
            "pre": rf"x \leftarrow x + \operatorname{{{{f}}}}({n}(x))",
            "sandwich": rf"x \leftarrow x + {n}(\operatorname{{{{f}}}}({n}(x)))",
        },
    )
    attention_line, mlp_line = (sub_layer.replace("{f}", f) for f in ("Attention", "MLP"))
    # the block's two sub-layers on a line each: Gemma's sandwich on one line ran past a 1280 px column
    block = rf"{attention_line} \\ {mlp_line}"
    tokens, one_block, output, block_is = _("tokens"), _("block"), _("output"), _("block:")
    return (
        rf"\begin{{gathered}}\text{{{tokens}}} \;\to\; e = {embedding} \;\to\; {cfg.n_layers} \times "
        rf"\text{{{one_block}}} \;\to\; \text{{{output}}} \\ \text{{{block_is} }} {block}\end{{gathered}}"
    )


def budget_row(cfg: ModelConfig, key: str) -> str:
    """The name of a row of budget.model_budget, with the arrays this model has (no b_Q where it has no biases)."""
    norm = norm_name(cfg)

    def matrix(name: str, bias: str) -> str:
        return f"{name}, {bias}" if cfg.has_bias(bias[-1].lower()) else name

    post = cfg.norm_position == "post"
    names = {
        "word": _("word embeddings (also the output head)") if cfg.predicts_next_token else _("word embeddings"),
        "position": _("position embeddings"),
        "token_type": _("token-type embeddings + {norm}").format(norm=norm),
        "query": matrix(_("query W_Q"), "b_Q"),
        "key": matrix(_("key W_K"), "b_K"),
        "value": matrix(_("value W_V"), "b_V"),
        "output": matrix(_("output W_O"), "b_O"),
        "qk_norm": _("QK-norm: the {norm} gains of queries and keys").format(norm=norm),
        "norm_attention": (_("{norm} after attention") if post else _("{norm} before attention")).format(norm=norm),
        "norm_attention_out": _("{norm} of attention's output").format(norm=norm),
        "up": _("MLP up, its bias") if cfg.has_bias("mlp") else _("MLP up"),
        "gate": _("MLP gate"),
        "down": _("MLP down, its bias") if cfg.has_bias("mlp") else _("MLP down"),
        "norm_ffn": (_("{norm} after the MLP") if post else _("{norm} before the MLP")).format(norm=norm),
        "norm_ffn_out": _("{norm} of the MLP's output").format(norm=norm),
        "final_norm": _("final {norm}").format(norm=norm),
        "output_head": _("output head (not tied to the embeddings)"),
    }
    if key not in names:
        raise ValueError(f"No words for the parameter row '{key}' ({cfg.name}): add them to ui/words/architecture.py.")
    return names[key]


BIAS_NAMES = {"q": "b_Q", "k": "b_K", "v": "b_V", "o": "b_O"}  # and the MLP's, named in words


def biases_clause(cfg: ModelConfig) -> str:
    """Which biases the model adds, where the calculator counts one for every linear layer."""
    if not cfg.biases:
        return _("it has no biases")
    named = [BIAS_NAMES[m] for m in BIAS_NAMES if cfg.has_bias(m)]
    if cfg.has_bias("mlp"):
        named.append(_("the MLP's"))
    return _("its only biases are {biases}").format(biases=listing(named))


def gap_sentence(cfg: ModelConfig, gap: tuple[tuple[str, int], ...]) -> str:
    """Why the GPT-2 calculator's count differs from the arrays', one clause per assumption the model breaks,
    each with what it changes (budget.calculator_gap)."""
    if not gap:
        return _("The two agree: the model is built as the calculator assumes.")
    clauses = {
        "width": _(
            "its heads are {heads} × {d_head} = {width} wide while its vectors are {d_model} (the calculator takes "
            "d_model = heads × d_head)"
        ).format(
            heads=cfg.n_heads, d_head=cfg.d_head, width=whole(cfg.n_heads * cfg.d_head), d_model=whole(cfg.d_model)
        ),
        "positions": _("it has no table of learned positions (its positions are rotary)"),
        "biases": biases_clause(cfg),
        "norm": _("its {norm}s have gains only, no biases").format(norm=norm_name(cfg)),
        "kv_heads": n_(
            "its {heads} query heads share {kv} key/value head ({sharing}), so W_K and W_V are smaller",
            "its {heads} query heads share {kv} key/value heads ({sharing}), so W_K and W_V are smaller",
            cfg.n_kv_heads,
        ).format(heads=cfg.n_heads, kv=cfg.n_kv_heads, sharing=sharing_name(cfg)),
        "d_ff": _(
            "its MLP is {d_ff} wide, where the calculator takes {ratio} × its own width, heads × d_head = {width}: "
            "{calc} ({ratio} is {d_ff} ÷ {d_model}, rounded down)"
        ).format(
            d_ff=whole(cfg.d_ff),
            ratio=budget.sizes_of(cfg).mlp_ratio,
            width=whole(budget.sizes_of(cfg).d_model),
            d_model=whole(cfg.d_model),
            calc=whole(budget.sizes_of(cfg).d_ff),
        ),
        "gated": _("its MLP is gated, a third matrix beside up and down"),
        "norms": _("it has two more norms in every layer, on the sub-layers' outputs"),
        "qk_norm": _("QK-norm adds gains for the queries and keys"),
        "output_head": _("its output head is a matrix of its own"),
    }
    parts = []
    for key, change in gap:
        if key not in clauses:
            raise ValueError(f"No words for the difference '{key}' ({cfg.name}): add them to ui/words/architecture.py.")
        sign = "+" if change >= 0 else "−"
        parts.append(f"{clauses[key]} ({sign}{whole(abs(change))})")
    return _("Replace its assumptions by the model's own, one at a time: {steps}.").format(steps=semicolons(parts))


def positions_noun(cfg: ModelConfig) -> str:
    """What carries word order in this model, as a noun: the switch that turns it off is named so."""
    return pick(cfg, "positions", {"learned": _("position embeddings"), "rotary": _("rotary positions")})


def distance_enters(cfg: ModelConfig) -> str:
    """How far apart two tokens are reaches the scores only through..."""
    return pick(
        cfg,
        "positions",
        {
            "learned": _("through the position vectors added to the embeddings"),
            "rotary": _(
                "through the rotation that turns each query and key by its place, so that their dot product depends "
                "on how far apart they are"
            ),
        },
    )


def window_clause(cfg: ModelConfig) -> str:
    """After distance_enters: the sliding window's hard limit on the local layers, "" where the model has none."""
    if not (cfg.sliding_window and cfg.layer_kinds):
        return ""
    n_local = sum(k == "local" for k in cfg.layer_kinds)
    if not n_local:
        return ""
    return " " + _(
        "(except on its {n_local} local layers of {n_layers}, where a key more than {before} tokens back gets a "
        "weight of exactly 0: the sliding window hides it)"
    ).format(n_local=whole(n_local), n_layers=whole(cfg.n_layers), before=whole(cfg.sliding_window - 1))


def sharing_note(cfg: ModelConfig) -> str:
    """Where the model's kind of key/value sharing is used, after its name."""
    if cfg.n_kv_heads == cfg.n_heads:
        return _(", as in the original Transformer")
    if cfg.n_kv_heads == 1:
        return _(
            ", the limit of grouped-query attention with a single group, used by PaLM and by the smallest Gemma 3 "
            "models (270M and 1B; the larger ones group their heads)"
        )
    return _(", used by Llama, Mistral, Qwen and SmolLM")
