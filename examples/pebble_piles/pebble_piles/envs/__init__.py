"""Pebble Piles' environments, the shared ones of monkey_env.envs with this game's hooks."""
