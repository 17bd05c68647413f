"""Forbidden City's parts for the applications (the application layer of its folder): its balance figures."""
