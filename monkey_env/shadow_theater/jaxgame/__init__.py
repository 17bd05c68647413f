"""The Shadow Theater's JAX engine: pure, jittable, vmappable; the same actions and data as the
reference engine, held to it decision by decision (parity.py)."""
