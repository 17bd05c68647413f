"""No seat receives what it may not know, in every registered game (the framework's rule).

A game declares its hidden information by ``redraw_hidden(seat, rng)`` (monkey_env.core.protocol):
the same game as ``seat`` has seen it, with the rest drawn anew. For positions of random games,
each seat and several redraws, what that seat receives must not change: its observation (the
JAX engine's ``observe``, which the PettingZoo env, the Gymnasium view, the VecEnv and the PPO
read), the choice of every agent of the registry when it is the seat to play, the terminal text
shown to it and the data the web server sends to its page. The redraws must also change the
hidden information often (else these checks would prove nothing).
"""

import numpy as np
import pytest

from monkey_env.agents.ppo_games import policy_game
from monkey_env.agents.registry import known_names, make_agent
from monkey_env.apps.web.app import game_module
from monkey_env.games import game_names, game_spec

# mcts searches for minutes to compile; it redraws the hidden piles itself (tests/games/monkey_palace/test_mcts.py).
# ppo-sb3 (Monkey Palace's torch policy) reads the same observation as ppo.
SLOW_AGENTS = {"mcts", "ppo-sb3", "ppo-sb3-sample"}
REDRAWS = 2


def positions(name: str, games: int = 3):
    """Reference games of random play at a quarter, half and three quarters of their length, and
    finished."""
    reference = game_spec(name).load("reference")
    options_model = game_spec(name).load("options")
    out = []
    for g in range(games):
        rng = np.random.default_rng(g)
        game = reference.from_options(options_model(seed=g))
        while not game.game_over:
            game.apply(int(rng.choice(np.flatnonzero(game.legal_mask()))))
        record, n = game.record(), len(game.history)
        out += [reference.replay({**record, "actions": record["actions"][:n * k // 4]}) for k in (1, 2, 3)]
        out.append(game)
    return out


def seats_of(game) -> int:
    return len(game.scores())


def same(a, b) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b))
    return a == b


@pytest.fixture(scope="module", params=game_names())
def case(request):
    name = request.param
    return name, positions(name)


def redraws(game, seat: int):
    for k in range(REDRAWS):
        yield game.redraw_hidden(seat, np.random.default_rng([seat, k, len(game.history)]))


def test_a_redraw_keeps_the_history_and_changes_the_hidden_information_often(case):
    name, games = case
    changed = total = 0
    for game in games:
        for seat in range(seats_of(game)):
            for other in redraws(game, seat):
                assert other.history == game.history and other.scores() == game.scores()
                assert other.game_over == game.game_over and other.current == game.current
                total += 1
                changed += other.record() != game.record()
    if game_spec(name).hidden_information:
        assert changed >= total // 2, f"{name}: only {changed} of {total} redraws changed anything hidden"
    else:                       # a game of perfect information: a redraw is the game itself
        assert changed == 0, f"{name} declares no hidden information, yet {changed} redraws changed the game"


def test_the_observation_depends_only_on_the_seats_information(case):
    name, games = case
    if not game_spec(name).hidden_information:
        pytest.skip(f"{name} hides nothing: a redraw is the game itself")
    pg = policy_game(name)
    for game in games:
        for seat in range(seats_of(game)):
            mine = pg.engine.observe(pg.state_of(game), seat)
            for other in redraws(game, seat):
                theirs = pg.engine.observe(pg.state_of(other), seat)
                for key in mine:
                    assert np.array_equal(np.asarray(mine[key]), np.asarray(theirs[key])), \
                        f"{name}, seat {seat}, decision {len(game.history)}: observation {key!r} reads hidden information"


def test_the_text_and_the_web_page_depend_only_on_the_seats_information(case):
    name, games = case
    text, web = game_spec(name).load("text"), game_module(name)
    for game in games:
        for seat in range(seats_of(game)):
            for other in redraws(game, seat):
                where = f"{name}, seat {seat}, decision {len(game.history)}"
                assert text(game, seat) == text(other, seat), f"{where}: the terminal text shows hidden information"
                assert same(web.state(game, viewer=seat), web.state(other, viewer=seat)), \
                    f"{where}: the web page's data carry hidden information"


def test_every_agent_decides_from_the_seats_information_only(case):
    """Two copies of each agent (same seed) decide in lockstep, one on the true positions, one on
    the redrawn ones: their random streams stay equal, so any difference comes from the position."""
    name, games = case
    pairs = {n: (make_agent(n, 3, game=name), make_agent(n, 3, game=name))
             for n in known_names(name) if n not in SLOW_AGENTS}
    decided = 0
    for game in games:
        if game.game_over:
            continue
        seat = game.current
        for other in redraws(game, seat):
            assert np.array_equal(game.legal_mask(), other.legal_mask())
            for agent, (on_true, on_redrawn) in pairs.items():
                mine = on_true.act(game, game.legal_mask())
                theirs = on_redrawn.act(other, other.legal_mask())
                assert mine == theirs, f"{name}: {agent} chose {mine} and {theirs} on positions that differ only " \
                                       f"in what seat {seat} cannot see (decision {len(game.history)})"
                decided += 1
    assert decided > 0


def test_the_environments_infos_depend_only_on_the_seats_information(case):
    """The PettingZoo env's infos (and so the Gymnasium view's and the VecEnv's) at each position
    and its redraws: the env is put at the position's JAX state and refreshed."""
    name, games = case
    if not game_spec(name).hidden_information:
        pytest.skip(f"{name} hides nothing: a redraw is the game itself")
    pg = policy_game(name)
    env = game_spec(name).load("raw_env")()
    env.reset(seed=0)

    def infos(game):
        env.state = pg.state_of(game)
        env._refresh()
        return dict(env.infos)

    for game in games:
        mine = infos(game)
        for seat in range(seats_of(game)):
            agent = env.possible_agents[seat]
            for other in redraws(game, seat):
                assert same(mine[agent], infos(other)[agent]), \
                    f"{name}, seat {seat}, decision {len(game.history)}: the infos carry hidden information"
