"""Monkey Palace's parts for the applications (the application layer of its folder): its browser view."""
