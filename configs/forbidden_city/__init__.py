"""Forbidden City's game data (human-edited YAML): tiles, the start tile's two sides, the table."""
