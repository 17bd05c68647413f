"""Forbidden City's environments: PettingZoo AEC (forbidden_city_v0), a Gymnasium view, a VecEnv."""
