"""The game data (human-edited YAML), shipped with the package as monkey_env.configs."""
