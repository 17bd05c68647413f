"""The Shadow Theater's parts for the applications (the application layer of its folder): its balance figures."""
