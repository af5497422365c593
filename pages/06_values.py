"""Chapter 6: the weighted values, added up to the displacement, and the low-rank value map."""

import numpy as np
import streamlit as st

from attention import budget, geometry, heads
from ui import chapter, figures, widgets
from ui import lesson_figures as lf

prose = chapter.begin("06_values.py")
st.latex(r"\Delta e_j = \Big(\sum_i w_{ji}\, v_i\Big) W_O^{(h)}, \qquad v_i = W_V\, e_i, \qquad e_j' = e_j + \Delta e_j")
view = chapter.sentence_view()
model, cfg, layer_i, head_i = view.model, view.config, view.layer, view.head
tr = view.trace()
layer = tr.layers[layer_i]
texts = [t.text for t in tr.tokens]
st.markdown(prose["displacement"])
c1, c2 = st.columns([2, 1])
token = widgets.token_picker(tr, container=c1)
uniform = c2.toggle("Uniform weights", key="w:ch6_uniform", help="A counterfactual: every token weighs 1/n.")
parts = heads.uniform_contributions(layer, head_i) if uniform else heads.value_contributions(layer, head_i, token)
path = geometry.chain(layer.x[token], parts)
widgets.chart(lf.arrow_chain(path.points[0], path.steps, figures.token_labels(texts), path.projection.explained,
                             f"“{texts[token]}”: weighted values of head {head_i + 1}, tip to tail"), "value_chain", key="fig_ch6_chain")
st.metric("|Δe| in all dimensions", f"{np.linalg.norm(parts.sum(axis=0)):.3f}")

st.header("A low-rank value map")
st.markdown(prose["lowrank"])
vm = heads.value_map(model, layer_i, head_i)
gpt3 = budget.GPT3
m1, m2, m3 = st.columns(3)
m1.metric("rank of W_O⁽ʰ⁾ W_V⁽ʰ⁾", vm.rank, help=f"d_head = {cfg.d_head}")
m2.metric(f"{cfg.name}: full vs low-rank", f"{vm.full_parameters:,} vs {vm.low_rank_parameters:,}")
m3.metric("GPT-3: full vs low-rank", f"{gpt3['d_model'] ** 2 / 1e6:.1f} M vs {2 * gpt3['d_model'] * gpt3['d_head'] / 1e6:.2f} M",
          help=f"{gpt3['d_model'] ** 2:,} vs {2 * gpt3['d_model'] * gpt3['d_head']:,} per head")
sv = vm.singular_values
widgets.chart(lf.lines(np.arange(1, len(sv) + 1), {"singular value": np.maximum(sv, 1e-12)},
                       f"Singular values of W_O⁽ʰ⁾ W_V⁽ʰ⁾: {vm.rank} of {len(sv)} are not zero", "index", "singular value (log scale)",
                       marker_x=cfg.d_head, log_y=True), "singular_values", key="fig_ch6_sv")
widgets.try_this(prose["try"])
chapter.end()
