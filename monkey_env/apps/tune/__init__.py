"""Balance tuning: search the game's numbers for a fairer game, and check it on unseen games (`monkey-palace tune`)."""
