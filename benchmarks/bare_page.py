"""A bare Streamlit page for calibration: a text box and N small line charts (`?charts=N`), or N 13 × 13
heatmaps with their numbers printed (`?charts=N&kind=heatmap`).

benchmarks/browser.py times how long this page takes to redraw its charts, to show what the same
machine and browser need for charts with almost nothing in them.
"""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

text = st.text_input("Sentence", "start")
n_charts = int(st.query_params.get("charts", "10"))
heatmaps = st.query_params.get("kind") == "heatmap"
rng = np.random.default_rng(sum(map(ord, text)))
for i in range(n_charts):
    if heatmaps:
        z = rng.random((13, 13))
        trace = go.Heatmap(z=z, text=np.round(z, 2), texttemplate="%{text}")
    else:
        trace = go.Scatter(y=rng.standard_normal(20))
    st.plotly_chart(go.Figure(trace, layout=dict(title=f"{text} {i}")), key=f"chart{i}")
