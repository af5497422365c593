"""The session: what a visitor's session holds and opens on (state: the URL's parameters, the accepted sentence)
and the app's only door to the models (engine: which models, their traces, every result cached by size)."""
