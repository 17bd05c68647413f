"""The default search space of `monkey-palace tune` (default_space.yaml)."""
