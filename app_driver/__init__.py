"""What the tests and the benchmarks share, so that neither imports the other: the app's server and Debian's
Chromium (server), headless page runs (apptest), the accessibility audit (axe), the catalogues' rules (catalogue),
colour as students see it (colours), the words a page shows (words), a class's sessions in Chromium (sessions)."""
