"""Where game-specific code may live (issue 27): a game's code in its game's folder, generic code
naming no game, and no game importing another.

Generic code is ``monkey_env/core``, ``monkey_env/envs``, ``monkey_env/apps`` and every module of
``agents/`` (``monkey_env.agents``: a game's agents, heuristics and policy networks live in
``monkey_env/<game>/agents/``); it may not import a game's module or spell a game's name (the
registry, ``monkey_env/games.py``, is the one table of games: what a game does its own way is one
of its parts there). The allowance below was a
ratchet of the debt, paid off: it stays empty, so any mention fails.
"""

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# file -> mentions of a game (imports of its modules, its name as a string) still allowed: none.
ALLOWED = {}
# file -> comparisons with the default game (``game == DEFAULT_GAME``: code doing something else for
# the first game) still allowed, each with its reason: none (the last, train.py's, is paid). A
# game's difference is a part or a field of its GameSpec (the registry), never a branch on which
# game is the default.
DEFAULT_BRANCHES_ALLOWED = {}
# (importer game, imported module) still allowed: none (every game reads its data with core.config_loading).
SIDEWAYS_ALLOWED = set()


def game_names():
    from monkey_env.games import GAMES
    return tuple(GAMES)


def generic_files():
    yield from sorted((REPO / "monkey_env" / "core").rglob("*.py"))
    yield from sorted((REPO / "monkey_env" / "envs").rglob("*.py"))
    yield from sorted((REPO / "monkey_env" / "apps").rglob("*.py"))
    yield from sorted((REPO / "agents").rglob("*.py"))


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


def test_every_agents_module_is_checked():
    """The generic agents are all of agents/, no hand-made list: a game's agent put there fails."""
    checked = {p.relative_to(REPO) for p in generic_files()}
    assert {p.relative_to(REPO) for p in (REPO / "agents").rglob("*.py")} <= checked
    assert Path("agents/registry.py") in checked and Path("agents/mcts.py") in checked


def test_generic_code_names_no_game_beyond_todays_debt():
    found = {str(p.relative_to(REPO)): mentions(p) for p in generic_files()}
    grown = {f: (n, ALLOWED.get(f, 0)) for f, n in found.items() if n > ALLOWED.get(f, 0)}
    assert not grown, f"generic code names a game (file: (mentions, allowed)); use the registry's parts: {grown}"
    paid = {f: (found.get(f, 0), n) for f, n in ALLOWED.items() if found.get(f, 0) < n}
    assert not paid, f"fewer mentions than allowed (file: (mentions, allowed)): lower ALLOWED to match: {paid}"


def default_branches(path: Path) -> int:
    """Comparisons that involve ``DEFAULT_GAME`` (``game == DEFAULT_GAME``, ``g in (DEFAULT_GAME, ...)``,
    ``f"{DEFAULT_GAME}_x" in doc``): a branch on which game is the default."""
    count = 0
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare):
            count += any(isinstance(n, ast.Name) and n.id == "DEFAULT_GAME"
                         or isinstance(n, ast.Attribute) and n.attr == "DEFAULT_GAME" for n in ast.walk(node))
    return count


def test_generic_code_does_not_branch_on_the_default_game():
    found = {str(p.relative_to(REPO)): default_branches(p) for p in generic_files()}
    grown = {f: (n, DEFAULT_BRANCHES_ALLOWED.get(f, 0)) for f, n in found.items()
             if n > DEFAULT_BRANCHES_ALLOWED.get(f, 0)}
    assert not grown, ("generic code compares a game with DEFAULT_GAME (file: (comparisons, allowed)); make the "
                       f"difference a part or a field of the game's GameSpec: {grown}")
    paid = {f: (found.get(f, 0), n) for f, n in DEFAULT_BRANCHES_ALLOWED.items() if found.get(f, 0) < n}
    assert not paid, f"fewer comparisons than allowed: lower DEFAULT_BRANCHES_ALLOWED to match: {paid}"


def test_the_default_game_is_declared_once():
    files = sorted((REPO / "monkey_env").rglob("*.py")) + sorted((REPO / "agents").rglob("*.py"))
    declared = [str(p.relative_to(REPO)) for p in files
                for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
                if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "DEFAULT_GAME" for t in node.targets)]
    assert declared == ["monkey_env/games.py"], f"DEFAULT_GAME is assigned in {declared}; import it from monkey_env.games"


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
    branch = tmp_path / "y.py"
    branch.write_text('from monkey_env import games\nfrom monkey_env.games import DEFAULT_GAME\n'
                      'def f(game=DEFAULT_GAME):\n    if game != DEFAULT_GAME:\n        return 1\n'
                      '    return 2 if game in (None, games.DEFAULT_GAME) else f"{DEFAULT_GAME}_x" in {}\n')
    assert default_branches(branch) == 3      # the default argument is no branch
