"""Chapter 13: step-by-step attention with a key/value cache equals the full masked attention."""

import streamlit as st

from attention import kv_cache
from attention.lessons import budget, questions_chapters_11_to_14, window
from ui import figures
from ui.kit import chapter, choices, questions
from ui.kit.chart import chart
from ui.session import engine, state
from ui.words import architecture, i18n
from ui.words.i18n import _, n_

LENGTHS = (16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192)  # the text-length presets, cut at each context
BYTES = {"float32": 4, "fp16": 2}  # bytes per stored number


def lengths_up_to(context: int) -> list[int]:
    """The presets a model can read: those below its context, and the context itself."""
    return [n for n in LENGTHS if n < context] + [context]


def binary(n_bytes: float) -> str:
    """A size in MiB (2²⁰ bytes) or, from 1 GiB (2³⁰ bytes) on, in GiB, with the decimal GB beside it."""
    if n_bytes >= 2**30:
        return _("{gib} GiB ({gb} GB)").format(gib=i18n.num(n_bytes / 2**30, 2), gb=i18n.num(n_bytes / 1e9, 1))
    return _("{mib} MiB ({mb} MB)").format(mib=i18n.num(n_bytes / 2**20, 1), mb=i18n.num(n_bytes / 1e6, 1))


def number_format(name: str) -> str:
    """A format of the stored numbers, with its size: "float32 (4 bytes a number)"."""
    return n_("{format} ({n} byte a number)", "{format} ({n} bytes a number)", BYTES[name]).format(
        format=name, n=BYTES[name]
    )


prose = chapter.begin("13_kv_cache.py")
st.latex(
    r"K_{1..t} = [K_{1..t-1};\, k_t], \quad V_{1..t} = [V_{1..t-1};\, v_t], \qquad "
    r"\text{out}_t = \operatorname{softmax}\!\Big(\frac{q_t K_{1..t}^\top}{\sqrt{d_k}}\Big) V_{1..t}"
)
st.markdown(prose["cache"])
view = chapter.sentence_view(prefer_decoder=True)
cfg, layer_i, head_i = view.config, view.layer, view.head
st.markdown(
    chapter.fill(prose["decoder" if cfg.is_decoder else "encoder"], model=cfg.name, decoders=choices.decoders_here())
)
tr = view.trace("causal")
run = engine.cached_run(view.text, layer_i, head_i)
whole = engine.generate_with_cache(view.text)
labels = figures.token_labels([t.display for t in tr.tokens])
m1, m2 = st.columns(2)
m1.metric(
    _("max difference, head {head} step by step vs all at once").format(head=head_i + 1),
    i18n.sci(run.max_difference, 1),
)
m2.metric(
    _("max difference, whole model, step by step vs causal pass"),
    i18n.sci(whole.max_difference, 1),
    help=_(
        "all {layers} layers and {heads} heads compute only the new token's q, k and v, and read the rest from the "
        "cache; compared with the last layer's vectors of one causal pass"
    ).format(layers=cfg.n_layers, heads=cfg.n_heads),
)


@st.fragment
def one_step() -> None:
    """Its own fragment: moving the step redraws only the two pictures it drives."""
    step = state.clamp("kv_step", 1, tr.n_tokens)  # a step beyond this sentence falls back
    if tr.n_tokens > 1:
        step = st.slider(_("Step: tokens written so far"), 1, tr.n_tokens, **state.bound("kv_step"))
    size = chapter.window_size(labels)  # a long sentence: the heatmap's window of tokens, each named, up to the step
    first = min(max(0, step - size), tr.n_tokens - size)
    shown = list(range(first, first + size))
    if size < tr.n_tokens:
        chapter.window_caption(shown, tr.n_tokens)
    left, right = chapter.figure_columns(2)
    with left:
        chapter.half_chart(
            figures.bars(
                figures.token_labels([t.display for t in tr.tokens], escaped=False)[:step],  # bars escapes them
                run.step_weights[step - 1],
                _("Step {step}: “{token}” reads the cache").format(step=step, token=labels[step - 1]),
                _("weight"),
                highlight=step - 1,
                text_fmt=".2f",
                horizontal=True,  # the tokens upright, one to a row
                label_title=_("key"),
                words=i18n.words(),
            ),
            "cached_step",
            key="fig_kv_cache_step",
            layer=layer_i,
            head=head_i,
            mask="causal",
        )
    with right:
        chapter.half_chart(
            figures.attention_heatmap(
                chapter.windowed(run.full_weights, shown),
                [labels[i] for i in shown],
                _("All at once"),
                **chapter.heatmap_room(),
                words=i18n.words(),
            ),
            "full_causal",
            key="fig_kv_cache_full",
            layer=layer_i,
            head=head_i,
            mask="causal",
        )
    state.sync_url()  # a fragment's rerun does not reach the end of app.py


one_step()
st.markdown(prose["queries"])

st.header(_("What the cache saves, and what it costs"), anchor="what-the-cache-saves-and-what-it-costs")
st.markdown(prose["cost"])
gpt3 = budget.GPT3


@st.fragment
def _cost_charts(costs, per_number: dict, unit: str, scale: int) -> None:
    """The work for one new token with and without the cache, and the cache's size in each number format."""
    left, right = chapter.figure_columns(2)
    with left:
        chart(
            figures.lines(
                costs.tokens,
                {
                    _("with the cache"): costs.flops_with_cache,
                    _("without (rerun the prefix)"): costs.flops_without_cache,
                },
                _("Attention work for one new token"),
                _("tokens so far"),
                _("multiply-adds (log scale)"),
                log_y=True,
                words=i18n.words(),
            ),
            "cache_flops",
            key="fig_kv_cache_flops",
            share=chapter.figure_share(0.5),
        )
    with right:
        chart(
            figures.lines(
                costs.tokens,
                {number_format(name): per_number[name].cache_bytes / scale for name in BYTES},
                _("Cache size"),
                _("tokens so far"),
                unit,
                words=i18n.words(),
            ),
            "cache_memory",
            key="fig_kv_cache_memory",
            share=chapter.figure_share(0.5),
        )


def _savings(n: int, sizes, kv_heads: int, capped: dict, kinds, costs) -> None:
    """What the shared key/value heads and the sliding windows save, where the model has them, at n tokens."""
    # Every layer keeping every token: the key/value sharing's figure alone, before the windows take their share.
    all_layers = kv_cache.cache_costs(
        n, sizes.n_layers, sizes.n_heads, sizes.d_head, sizes.d_model, BYTES["float32"], kv_heads
    )
    if kv_heads < sizes.n_heads:  # grouped-query attention: the cache keeps only the shared key/value heads
        unshared = kv_cache.cache_costs(n, sizes.n_layers, sizes.n_heads, sizes.d_head, sizes.d_model)
        st.markdown(
            chapter.fill(
                prose["grouped"],
                model=sizes.name,
                kv_heads=n_("{n} key/value head", "{n} key/value heads", kv_heads).format(n=kv_heads),
                n_heads=sizes.n_heads,
                group=sizes.n_heads // kv_heads,
                sharing=architecture.sharing_name(sizes),
                layers=sizes.n_layers,
                d_head=sizes.d_head,
                per_token=i18n.whole(2 * sizes.n_layers * kv_heads * sizes.d_head),
                per_token_unshared=i18n.whole(2 * sizes.n_layers * sizes.n_heads * sizes.d_head),
                n=i18n.whole(n),
                size=binary(all_layers.cache_bytes[-1]),
                size_unshared=binary(unshared.cache_bytes[-1]),
            )
        )
    if capped and n > capped["window"]:
        st.markdown(
            _(
                "{model}'s {local} sliding-window layers keep only the keys and values of their last {window} tokens: "
                "at {n} tokens its cache is {share} smaller than if every layer kept them all ({full} becomes "
                "{windowed} in float32). Chapter 8 counts the same saving at the longest text the model reads, "
                "{longest} tokens, where it is {longest_share}: the longer the text, the more the window saves."
            ).format(
                longest=i18n.whole(cfg.max_tokens),
                longest_share=i18n.share(kinds.cache_per_token_saved(cfg, cfg.max_tokens)),
                full=binary(all_layers.cache_bytes[-1]),
                windowed=binary(costs.cache_bytes[-1]),
                model=sizes.name,
                local=capped["n_local"],
                window=i18n.whole(capped["window"]),
                n=i18n.whole(n),
                share=i18n.share(kinds.cache_per_token_saved(cfg, n)),
            )
        )


def costs_section() -> None:
    """Its own fragment: choosing the model or the length redraws only the costs."""
    c1, c2 = st.columns(2)
    which = c1.radio(
        _("Model"),
        ["loaded", "gpt3"],
        format_func={"loaded": cfg.name, "gpt3": gpt3.name}.get,
        horizontal=True,
        **state.bound("kv_model"),
    )
    sizes, context = (cfg, cfg.max_positions or cfg.max_tokens) if which == "loaded" else (gpt3, gpt3.context)
    kv_heads = getattr(sizes, "n_kv_heads", sizes.n_heads)  # fewer than the query heads: grouped-query attention
    kinds = window.windows(cfg) if which == "loaded" else None  # sliding-window layers keep only their window
    capped = dict(window=kinds.window, n_local=len(kinds.local)) if kinds and kinds.local else {}
    lengths = lengths_up_to(context)
    if state.get("kv_tokens") not in lengths:  # another model's length: the nearest this one can read
        state.put("kv_tokens", max((n for n in lengths if n <= state.get("kv_tokens")), default=lengths[0]))
    n = c2.select_slider(
        _("Length of the text (tokens; {model} reads at most {context})").format(
            model=sizes.name, context=i18n.whole(context)
        ),
        lengths,
        format_func=i18n.whole,  # 32,768 (French 32 768): the language's grouping, at the slider's ends too
        **state.bound("kv_tokens"),
    )
    per_number = {
        name: kv_cache.cache_costs(n, sizes.n_layers, sizes.n_heads, sizes.d_head, sizes.d_model, b, kv_heads, **capped)
        for name, b in BYTES.items()
    }
    costs = per_number["float32"]
    giga = costs.cache_bytes[-1] >= 2**30
    unit, scale = (_("GiB (2³⁰ bytes)"), 2**30) if giga else (_("MiB (2²⁰ bytes)"), 2**20)
    _cost_charts(costs, per_number, unit, scale)
    m1, m2 = st.columns(2)
    for column, name in zip((m1, m2), BYTES, strict=True):
        label = (  # the metric says what its size counts: with the windows, where the model has them
            n_(
                "cache at {n} token, sliding windows included, {format}",
                "cache at {n} tokens, sliding windows included, {format}",
                n,
            )
            if capped and n > capped["window"]
            else n_("cache at {n} token, {format}", "cache at {n} tokens, {format}", n)
        )
        column.metric(
            label.format(n=i18n.whole(n), format=number_format(name)), binary(per_number[name].cache_bytes[-1])
        )
    _savings(n, sizes, kv_heads, capped, kinds, costs)
    state.sync_url()


costs_section()
gpt3_full = kv_cache.cache_costs(gpt3.context, gpt3.n_layers, gpt3.n_heads, gpt3.d_head, gpt3.d_model)
full_bytes = gpt3_full.cache_bytes[-1]
keys = questions_chapters_11_to_14.keys_computed(
    tr.n_tokens
)  # the keys one key/value head computes, with and without the cache
chapter.try_this(
    # a text of one token: its counts and its cache's shapes would read alike, so those questions are left out
    {key: text for key, text in prose.items() if key not in ("quiz_2", "quiz_shapes") or tr.n_tokens > 1},
    context=i18n.whole(gpt3.context),
    gpt3_mib=i18n.whole(round(full_bytes / 2**20)),
    gpt3_size=binary(full_bytes),  # each size as the metrics write it: one value, one rounding
    gpt3_fp16_size=binary(full_bytes / BYTES["float32"] * BYTES["fp16"]),
    layers=gpt3.n_layers,
    width=i18n.whole(gpt3.d_model),
    **dict(zip(("keys_without", "keys_with", "keys_square", "keys_before"), map(i18n.whole, keys.values), strict=True)),
    C_next=tr.n_tokens + 1,
    n_layers=cfg.n_layers,
    cache_per_token=i18n.whole(2 * cfg.n_layers * cfg.n_kv_heads * cfg.d_head),
    **questions.shape_values(cfg, tr.n_tokens),
)
chapter.end()
