"""Chapter 2: a recurrent network's memory fades with distance; attention reaches any token directly."""

import numpy as np
import streamlit as st

from attention.lessons import motivation
from ui import architecture, chapter, engine, state, widgets
from ui.figures import charts

prose = chapter.begin("02_why_attention.py")
model = chapter.model_view()
st.latex(
    r"\text{recurrent: } h_t = \lambda\, h_{t-1} + (1-\lambda)\, x_t \;\Rightarrow\; "
    r"\text{share of } x_{t-d} \text{ in } h_t = (1-\lambda)\lambda^{d}"
)
reach = (
    r"\text{ for every } j \le t \text{ (a decoder: the tokens read so far)}"
    if model.config.is_decoder
    else r"\text{ for every } j \text{ (an encoder: before and after } t\text{)}"
)
st.latex(r"\text{attention: } w_{tj} = \operatorname{softmax}_j\big(q_t \cdot k_j / \sqrt{d_k}\big)" + reach)
st.markdown(prose["example"])
st.info(motivation.NOTES_SENTENCE)
apart = engine.tokens_apart(motivation.NOTES_SENTENCE, "Don't", "kill")
st.markdown(prose["recurrent"])
keep = st.slider(
    "λ, the share of the state a recurrent step keeps",
    0.5,
    0.99,
    step=0.01,
    **state.bound("why_keep"),
)
share_at_kill = float(motivation.recurrent_share(apart, keep))
c1, c2 = st.columns(2)
c1.metric("tokens from “Don't” to “kill”", apart, help=f"as {model.config.name}'s tokenizer cuts the sentence")
c2.metric("share of “Don't” left in the state at “kill”", f"{share_at_kill:.2%}", help=f"(1 − λ) λ^{apart}")

memory = {keep: motivation.LeakyMemory(apart, keep) for keep in (0.9, 0.99)}
st.markdown(
    chapter.fill(
        prose["keep"],
        apart=apart,
        words=apart + 1,
        equal=f"{1 / (apart + 1):.2%}",
        **{
            f"{name}_{round(keep * 100)}": f"{getattr(m, name):.2%}"
            for keep, m in memory.items()
            for name in ("share", "entry", "kept", "words_total", "share_of_words")
        },
    )
)

st.header("Attention looks back directly")
exp = engine.distance_experiment()
layer_i, head_i = exp.layer, exp.head
st.markdown(
    chapter.fill(
        prose["attention"],
        layer=layer_i + 1,
        head=head_i + 1,
        reach=prose["reach_decoder" if model.config.is_decoder else "reach_encoder"].strip(),
        distance=architecture.distance_enters(model.config),
    )
)
st.caption(
    f"“{motivation.OPENING} …{motivation.CLOSING}”, with {', '.join(map(str, exp.repeats))} times "
    f"“{motivation.FILLER.strip()}” in between: the apples are "
    + ", ".join(str(d) for d in exp.distances)
    + " tokens apart."
)
distances = np.arange(0, int(exp.distances.max()) + 1)
widgets.chart(
    charts.fading_memory(
        distances,
        motivation.recurrent_share(distances, keep),
        exp.distances,
        exp.best,
        keep,
        f"{model.config.name}, layer {layer_i + 1}, head {head_i + 1}: second “apple” → first",
    ),
    "fading_memory",
    layer=layer_i,
    head=head_i,
    text="",  # the experiment's own sentences, not the sidebar's
)
far = int(exp.distances[-1])
m1, m2 = st.columns(2)
m1.metric(f"recurrent share {far} tokens back", f"{float(motivation.recurrent_share(far, keep)):.1e}")
m2.metric(f"attention weight {far} tokens back", f"{float(exp.best[-1]):.3f}")
chapter.try_this(
    prose,
    near=int(exp.distances[0]),
    far=far,
    w_near=f"{float(exp.best[0]):.2f}",
    w_far=f"{float(exp.best[-1]):.2f}",
    layer=layer_i + 1,
    head=head_i + 1,
    keep_far=f"{float(motivation.recurrent_share(far, 0.99)):.1e}",
    distance=architecture.distance_enters(model.config),
)
chapter.end()
