"""Forbidden City (Reiner Knizia, Jumbo 2018): lay tiles, close palace rooms, win them by a
majority of advisors. Rules and data (layer 1); jaxgame/ the JAX engine; envs/ the environments.
docs/games/forbidden_city.md has the rules as implemented and every reading."""
