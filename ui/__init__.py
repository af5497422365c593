"""The app's pages are made of rooms, each importing only the ones before it in this list:

internals   Streamlit's and Plotly's private APIs, each with its test (tests/test_internals.py)
caches      memory: the server's caches, bounded by bytes
words       the catalogues, numbers as each language writes them, the prose, the words for a model's fields
figures     plotly figures from arrays and words; the look (theme, contrast) and the matrix layouts
components  the browser components (Python with its JavaScript)
session     what a session opens on and holds; the models and every result computed from them
kit         what pages are made of: controls, the chart element, a chapter's frame, the downloads

The command line's doors sit beside them: `python -m ui.export` (figures as images); and the server's, served.py
(Streamlit's own files answered from memory, and what the server does as it starts and at its first quiet
moment: app.py's st.App).
"""
