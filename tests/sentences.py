"""The sentences the tests read, typed once."""

FLUFFY = "a fluffy blue creature roamed the verdant forest"  # the lesson's sentence; 13 tokens for MiniLM
