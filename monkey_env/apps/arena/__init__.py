"""Tournaments between agents: fair schedules, durable results in SQLite, ratings and reports."""
