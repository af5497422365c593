"""The app's UI layer: figures (pure plotly), the shared look, state in the URL, and caching."""
