"""Balance analysis of Monkey Cards, ground maps, seats and options."""
