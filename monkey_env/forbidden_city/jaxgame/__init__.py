"""Forbidden City's JAX engine: pure, jittable, vmappable functions over fixed-shape states."""
