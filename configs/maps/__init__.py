"""The four ground maps."""
