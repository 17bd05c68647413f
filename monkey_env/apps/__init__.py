"""Applications (layer 3): the command line, simulation, evaluation, training, the arena, the balance lab, play."""
