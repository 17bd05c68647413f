"""Where game-specific code may live (issue 27): a game's code in its game's folder, generic code
naming no game, and no game importing another.

Generic code is ``monkey_env/core``, ``monkey_env/envs``, ``monkey_env/apps`` and the generic agents; it may not import
a game's module or spell a game's name (the registry, ``monkey_env/games.py``, is the one table
of games). Today's generic code still does in the files below: the allowance is a ratchet, the
debt as it stands, so a new mention anywhere fails, and a file whose mentions drop must lower
its allowance (the list only shrinks until it is empty).
"""

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GENERIC_AGENTS = ("base.py", "random_agent.py", "registry.py", "ppo_jax.py", "mcts.py")

# file -> mentions of a game (imports of its modules, its name as a string) still allowed.
ALLOWED = {
    "monkey_env/apps/arena/games.py": 3,
    "monkey_env/apps/arena/runner.py": 1,
    "monkey_env/apps/balance/analysis.py": 1,
    "monkey_env/apps/balance/cli.py": 3,
    "monkey_env/apps/balance/collect.py": 3,
    "monkey_env/apps/batch_play.py": 1,
    "monkey_env/apps/bench.py": 5,
    "monkey_env/apps/bench_train.py": 1,
    "monkey_env/apps/cli.py": 1,
    "monkey_env/apps/evaluate.py": 1,
    "monkey_env/apps/jax_trainer.py": 10,
    "monkey_env/apps/play.py": 11,
    "monkey_env/apps/results_table.py": 3,
    "monkey_env/apps/saves.py": 3,
    "monkey_env/apps/simulate.py": 2,
    "monkey_env/apps/train.py": 5,
    "monkey_env/apps/web/app.py": 3,
    "agents/base.py": 1,
    "agents/ppo_jax.py": 3,
}
# (importer game, imported module) still allowed: none (every game reads its data with core.config_loading).
SIDEWAYS_ALLOWED = set()


def game_names():
    from monkey_env.games import GAMES
    return tuple(GAMES)


def generic_files():
    yield from sorted((REPO / "monkey_env" / "core").rglob("*.py"))
    yield from sorted((REPO / "monkey_env" / "envs").rglob("*.py"))
    yield from sorted((REPO / "monkey_env" / "apps").rglob("*.py"))
    yield from (REPO / "agents" / name for name in GENERIC_AGENTS)


def imported(node) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom) and not node.level:
        return [node.module or ""]
    return []


def mentions(path: Path, games=None) -> int:
    """Imports of a game's modules and string constants naming a game or a game's module."""
    games = games or game_names()
    count = 0
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        count += sum(any(m.startswith(f"monkey_env.{g}") for g in games) for m in imported(node))
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            count += any(node.value == g or f"monkey_env.{g}" in node.value for g in games)
    return count


def test_generic_code_names_no_game_beyond_todays_debt():
    found = {str(p.relative_to(REPO)): mentions(p) for p in generic_files()}
    grown = {f: (n, ALLOWED.get(f, 0)) for f, n in found.items() if n > ALLOWED.get(f, 0)}
    assert not grown, f"generic code names a game (file: (mentions, allowed)); use the registry's parts: {grown}"
    paid = {f: (found.get(f, 0), n) for f, n in ALLOWED.items() if found.get(f, 0) < n}
    assert not paid, f"fewer mentions than allowed (file: (mentions, allowed)): lower ALLOWED to match: {paid}"


def test_no_game_imports_another():
    games = game_names()
    found = set()
    for game in games:
        for path in sorted((REPO / "monkey_env" / game).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                for module in imported(node):
                    other = module.split(".")[1] if module.startswith("monkey_env.") and module.count(".") else ""
                    if other in games and other != game:
                        found.add((game, module))
    assert found <= SIDEWAYS_ALLOWED, f"a game imports another's module: {sorted(found - SIDEWAYS_ALLOWED)}"
    assert found == SIDEWAYS_ALLOWED, f"paid off: remove {sorted(SIDEWAYS_ALLOWED - found)} from SIDEWAYS_ALLOWED"


def test_the_checks_see_a_mention(tmp_path):
    code = tmp_path / "x.py"
    code.write_text('from monkey_env.shadow_theater.engine import Game\nNAME = "forbidden_city"\n'
                    'def f():\n    import monkey_env.monkey_palace.palace\n')
    assert mentions(code, ("monkey_palace", "shadow_theater", "forbidden_city")) == 3
