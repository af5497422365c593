"""The app's pages: the explorer (00_explorer.py, its sections in explorer/) and the lesson's chapters, each a
script that app.py's navigation runs."""
