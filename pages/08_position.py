"""Chapter 8: without positions attention cannot see order; sinusoidal and learned position codes."""

import streamlit as st

from attention import position
from ui import chapter, engine, figures, widgets

prose = chapter.begin("08_position.py")
st.latex(r"PE_{(p,\,2i)} = \sin\!\big(p / 10000^{2i/d}\big), \qquad PE_{(p,\,2i+1)} = \cos\!\big(p / 10000^{2i/d}\big)")
view = chapter.sentence_view()
model, cfg, layer_i, head_i = view.model, view.config, view.layer, view.head
st.markdown(prose["blind"])
c1, c2 = st.columns(2)
seed = c1.slider("Shuffle", 0, 20, 1, key="w:ch8_seed")
with_positions = c2.toggle(
    "Position embeddings",
    value=False,
    key="w:ch8_positions",
    help="Off is the counterfactual: the model was trained with them.",
)
try:
    exp = engine.shuffle(view.text, seed, with_positions)
except ValueError as exc:
    st.info(str(exc))
    st.stop()
labels = figures.token_labels([t.display for t in exp.original.tokens])
shuffled = [exp.original.tokens[i].display for i in exp.order]
st.caption("The shuffled sentence, as tokens:")
st.code(" · ".join(shuffled), language=None)
left, right = st.columns(2)
with left:
    widgets.chart(
        figures.attention_heatmap(
            exp.original.layers[layer_i].weights[head_i], labels, "Original order", half_width=True
        ),
        "original",
        key="fig_ch8_original",
    )
with right:
    widgets.chart(
        figures.attention_heatmap(
            exp.unshuffled_weights(layer_i)[head_i], labels, "Shuffled, then put back", half_width=True
        ),
        "unshuffled",
        key="fig_ch8_unshuffled",
    )
st.metric("max difference, all heads of this layer", f"{exp.gap(layer_i):.2e}")

st.header("Sinusoidal positions (the original paper)")
st.markdown(prose["sinusoid"])
c1, c2 = st.columns(2)
n_pos = c1.slider("positions", 8, 256, 64, key="w:ch8_npos")
d = c2.select_slider("d_model", [16, 32, 64, 128, 256, 512], value=128, key="w:ch8_d")
widgets.chart(
    figures.big_heatmap(position.sinusoidal_encoding(n_pos, d), "Sinusoidal encoding", "dimension", "position"),
    "sinusoidal",
    key="fig_ch8_sin",
)
st.header("Learned positions (the loaded model)")
st.markdown(prose["learned"])
learned = model.embeddings.position[:n_pos]
left, right = st.columns(2)
with left:
    widgets.chart(
        figures.big_heatmap(learned, f"{cfg.name}: position embeddings", "dimension", "position"),
        "learned",
        key="fig_ch8_learned",
    )
with right:
    widgets.chart(
        figures.big_heatmap(
            engine.position_similarity(n_pos), "Cosine similarity between positions", "position", "position"
        ),
        "learned_cosine",
        key="fig_ch8_cos",
    )
widgets.try_this(prose["try"])
chapter.end()
