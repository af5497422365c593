"""The page kit: what a page is made of, on top of the session, the components and the figures: the chart element
(chart), the language and model pickers (choices), the other inputs (inputs), what a page says about its text and
link (notices), a chapter's frame (chapter), the downloads of figures (downloads), the words for the next token
(next_word)."""
