"""Monkey Palace's parts for the applications (the application layer of its folder, which may read
agents): its browser view, its balance tune space and its search hooks."""
