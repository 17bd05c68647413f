"""The Shadow Theater's environments: PettingZoo AEC (shadow_theater_v0), Gymnasium view, VecEnv."""
