"""Monkey Palace: its rules and data (the reference engine), its JAX engine and its environments."""
