"""The session: what a visitor's session holds (state: the URL's parameters and the accepted sentence), what it opens
on (opening: the language, the sentence and the model, their fallbacks, the cut of a long text), which models the
server offers and keeps (models), and everything computed from them (engine: tokens, traces, every result cached
by size)."""
