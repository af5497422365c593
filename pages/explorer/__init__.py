"""The explorer's sections, which pages/00_explorer.py shows in order: the sidebar and notices (controls.py),
sections 1 to 4 on the tokens and the heads (heads.py), 5 to 7 on what the heads do to the tokens (outputs.py)."""
