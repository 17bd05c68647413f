"""The package's layers import only downward (docs/ARCHITECTURE.md).

Every import statement of the package, at module level or inside a function, is read from
the source with ``ast``; a module may import its own layer or a lower one, never a higher one.
"""

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# (module prefix, layer); the longest matching prefix decides. Lower numbers are lower layers.
LAYERS = [
    ("monkey_env.core", 0),                      # what every game shares
    ("monkey_env.configs", 0),                   # game data (configs/)
    ("monkey_env.games", 0),                     # the registry of games, by name
    ("monkey_env.monkey_palace", 1),             # a game's rules and data: the reference engine
    ("monkey_env.shadow_theater", 1),
    ("monkey_env.forbidden_city", 1),
    ("monkey_env.monkey_palace.jaxgame", 2),     # a game's JAX engine
    ("monkey_env.monkey_palace.envs", 3),        # environments
    ("monkey_env.envs", 3),                      # the environments of every game, over the engine protocol
    ("monkey_env.agents", 3),                    # agents (the agents/ folder)
    ("monkey_env.apps", 4),                      # applications: CLI, simulate, evaluate, train, arena, balance, play
]
LAYER_NAMES = {0: "shared core", 1: "rules and data", 2: "engines", 3: "environments and agents", 4: "applications"}
# Every game's subpackage is layered alike: monkey_env.<game>.jaxgame is an engine, .envs environments,
# .agents its agents, heuristics and policy networks, .apps its parts for the applications (balance figures).
NOT_GAMES = {"core", "configs", "games", "apps", "agents", "envs"}
GAME_SUBPACKAGE_LAYERS = {"jaxgame": 2, "envs": 3, "agents": 3, "apps": 4}


def is_env_module(module: str) -> bool:
    parts = module.split(".")
    return len(parts) >= 3 and parts[0] == "monkey_env" and parts[1] not in NOT_GAMES and parts[2] == "envs"


def is_agent_module(module: str) -> bool:
    """A generic agent (monkey_env.agents.*, the registry aside) or a game's (monkey_env.<game>.agents)."""
    parts = module.split(".")
    if module.startswith("monkey_env.agents."):
        return not module.startswith("monkey_env.agents.registry")
    return len(parts) >= 3 and parts[0] == "monkey_env" and parts[1] not in NOT_GAMES and parts[2] == "agents"


def layer_of(module: str) -> int | None:
    parts = module.split(".")
    if len(parts) >= 3 and parts[0] == "monkey_env" and parts[1] not in NOT_GAMES and parts[2] in GAME_SUBPACKAGE_LAYERS:
        return GAME_SUBPACKAGE_LAYERS[parts[2]]
    best = None
    for prefix, layer in LAYERS:
        if (module == prefix or module.startswith(prefix + ".")) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, layer)
    return None if best is None else best[1]


def package_modules():
    """(module name, source path) of every module of the package, as the wheel names them."""
    roots = [(REPO / "monkey_env", "monkey_env"), (REPO / "agents", "monkey_env.agents"),
             (REPO / "configs", "monkey_env.configs")]
    for folder, name in roots:
        for path in sorted(folder.rglob("*.py")):
            rel = path.relative_to(folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            yield ".".join([name, *parts]), path


def imports_of(path: Path, module: str):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against this module's package
                base = module.split(".")[:-node.level] if not path.name == "__init__.py" else \
                    module.split(".")[:len(module.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            yield node.lineno, target
            for alias in node.names:   # `from pkg import submodule`
                yield node.lineno, f"{target}.{alias.name}"


def violations():
    found = []
    for module, path in package_modules():
        own = layer_of(module)
        for line, target in imports_of(path, module):
            if target.startswith(("agents.", "experiments")) or target == "agents":
                found.append(f"{path.relative_to(REPO)}:{line} imports {target} (not part of the package)")
                continue
            if not target.startswith("monkey_env"):
                continue
            theirs = layer_of(target)
            if own is not None and theirs is not None and theirs > own:
                found.append(f"{path.relative_to(REPO)}:{line} ({LAYER_NAMES[own]}) imports {target} "
                             f"({LAYER_NAMES[theirs]})")
            # Environments find agents through the registry only, never by importing one.
            if is_env_module(module) and is_agent_module(target):
                found.append(f"{path.relative_to(REPO)}:{line} imports the agent {target} directly")
    return found


def test_every_module_has_a_layer():
    unplaced = [m for m, _ in package_modules() if m != "monkey_env" and layer_of(m) is None]
    assert not unplaced, f"modules outside every layer (add them to LAYERS): {unplaced}"


def test_layers_import_only_downward():
    assert violations() == []


def test_the_package_root_imports_only_the_lower_layers_eagerly():
    """``import monkey_env`` must stay light: the root imports rules and data at module level only."""
    tree = ast.parse((REPO / "monkey_env" / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("monkey_env"):
            assert layer_of(node.module) <= 1, node.module


def test_the_check_catches_an_upward_import(tmp_path):
    """The checker itself: an engine module importing an application is reported."""
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from monkey_env.apps.arena import runner\n")
    found = [t for _, t in imports_of(bad, "monkey_env.monkey_palace.jaxgame.bad")]
    assert "monkey_env.apps.arena" in found
    assert layer_of("monkey_env.apps.arena.runner") > layer_of("monkey_env.monkey_palace.jaxgame.bad")


@pytest.mark.parametrize("name", ["agents", "experiments"])
def test_no_top_level_package_but_monkey_env_in_the_wheel(name):
    import tomllib
    packages = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    assert all(p == "monkey_env" or p.startswith("monkey_env.") for p in packages), packages
    assert name not in packages
