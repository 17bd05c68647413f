"""The reinforcement-learning environments of Monkey Palace (layer 2: above the engines)."""
