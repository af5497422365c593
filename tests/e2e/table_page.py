"""A page with one table of ui/components/table.py, for tests/e2e/test_table_browser.py: cells that would be markup if they
were read as HTML, and numbers to sort."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from ui.components.table import table

CELLS = ["<b>bold</b>", "&amp; &lt;", "<img src=x onerror=\"document.title='hacked'\">", "plain"]
VALUES = [0.25, -1.5, 2.0, 0.125]

if __name__ == "__main__":  # as Streamlit runs it; the test imports CELLS
    table({"text": CELLS, "value": VALUES}, key="t", label="Test table", digits=2)
