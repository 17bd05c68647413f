"""What every game shares (layer 0): options, the game protocol, outcomes, the compilation cache."""
