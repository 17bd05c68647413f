"""Monkey Palace's parts for the applications and the search agent (layer 4: they may read agents)."""
