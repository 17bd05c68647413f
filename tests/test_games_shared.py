"""The tests every game of the product passes, run for each registered game (monkey_env.games):
PettingZoo's api_test and seed_test on settings covering its options, determinism, the save and
record round trips, illegal actions refused with a reason and no change, and, where the game
has a JAX engine, the differential test against the reference engine decision by decision; and
that every game has the protocol's members (monkey_env.core.protocol), so no caller needs getattr."""

import json

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from monkey_env.core.protocol import GameOptions, JaxEngine, ReferenceGame
from monkey_env.games import game_names, game_spec


def cases(attribute):
    return [pytest.param(name, settings, id=f"{name}-{'-'.join(f'{k}={v}' for k, v in settings.items())}")
            for name in game_names() for settings in getattr(game_spec(name), attribute)]


def play(game, n: int | None = None, seed: int = 0):
    """Random legal decisions: n of them, or to the end of the game."""
    rng = np.random.default_rng(seed)
    done = 0
    while not game.game_over and (n is None or done < n):
        game.apply(int(rng.choice(np.flatnonzero(game.legal_mask()))))
        done += 1
    return game


@pytest.mark.parametrize("name, settings", cases("test_settings"))
def test_pettingzoo_api_test(name, settings):
    seed = len(json.dumps(settings, sort_keys=True)) + settings.get("players", 0) * 10
    env = game_spec(name).load("aec_env")(seed=seed, **settings)
    api_test(env, num_cycles=40)


@pytest.mark.parametrize("name, settings", cases("test_settings"))
def test_parallel_view_passes_the_parallel_api_test(name, settings):
    """turn_based_aec_to_parallel is the supported parallel view: one player makes several
    decisions in a row, so aec_to_parallel (which needs agents to act in a cycle) does not apply."""
    par = turn_based_aec_to_parallel(game_spec(name).load("aec_env")(**settings))
    parallel_api_test(par, num_cycles=15)


@pytest.mark.parametrize("name", game_names())
def test_pettingzoo_render_test(name):
    """PettingZoo's render_test, unmodified: it makes the env with every render mode, "human" first."""
    render_test(game_spec(name).load("aec_env"))


@pytest.mark.parametrize("name, settings", cases("seed_test_settings"))
def test_pettingzoo_seed_test(name, settings):
    factory = game_spec(name).load("aec_env")
    seed_test(lambda: factory(**settings), num_cycles=40)


@pytest.mark.parametrize("name, settings", cases("seed_test_settings"))
def test_same_options_and_seed_give_the_same_game(name, settings):
    spec = game_spec(name)
    Options, Game = spec.load("options"), spec.load("reference")
    a = play(Game.from_options(Options(seed=11, **settings)), seed=3)
    b = play(Game.from_options(Options(seed=11, **settings)), seed=3)
    assert isinstance(a, ReferenceGame)
    assert a.to_dict() == b.to_dict() and a.scores() == b.scores()
    other = play(Game.from_options(Options(seed=12, **settings)), n=0)
    assert other.to_dict() != Game.from_options(Options(seed=11, **settings)).to_dict()


@pytest.mark.parametrize("name, settings", cases("seed_test_settings"))
def test_saves_and_records_round_trip(name, settings, tmp_path):
    spec = game_spec(name)
    Options, Game = spec.load("options"), spec.load("reference")
    for n in (0, 7, None):                       # at the start, mid-game, and finished
        g = play(Game.from_options(Options(seed=5, **settings)), n=n, seed=n or 0)
        through_json = json.loads(json.dumps(g.to_dict()))
        assert Game.from_dict(through_json).to_dict() == g.to_dict()
        assert Game.replay(json.loads(json.dumps(g.record()))).to_dict() == g.to_dict()
    assert g.game_over and g.places() and set(g.winners()) == {s for s, p in enumerate(g.places()) if p == 1}


@pytest.mark.parametrize("name", game_names())
def test_an_illegal_action_is_explained_and_changes_nothing(name):
    spec = game_spec(name)
    g = play(spec.load("reference").from_options(spec.load("options")(seed=1)), n=3)
    before = json.dumps(g.to_dict(), sort_keys=True)
    illegal = int(np.flatnonzero(~g.legal_mask())[0])
    assert g.explain(illegal) != "legal" and g.action_name(illegal)
    with pytest.raises(ValueError):
        g.apply(illegal)
    assert json.dumps(g.to_dict(), sort_keys=True) == before


@pytest.mark.parametrize("name", [n for n in game_names() if game_spec(n).has("jax_engine")])
def test_jax_engine_agrees_with_the_reference(name, request):
    """At every decision of many random games covering the options, the two engines have the
    same state, legal mask and scores (--jax-games sets how many; 10,000 is the full check)."""
    spec = game_spec(name)
    engine = spec.load("jax_engine")()
    assert isinstance(engine, JaxEngine)
    differential = spec.load("differential")
    total, batch, decisions = request.config.getoption("--jax-games"), 60, 0
    for first in range(0, total, batch):
        decisions += differential(engine, first, min(batch, total - first), seed=first)["decisions"]
    assert decisions > 50 * total


PROTOCOL_STATE_FIELDS = ("current", "terminated", "illegal")


@pytest.mark.parametrize("name", game_names())
def test_the_protocol_members_exist(name):
    """Every member of the protocol on the options, the reference engine and the JAX engine: the
    applications read ``round``, ``end_reason``, ``stats()``, ``players``, ``seat_places``,
    ``batch_rounds``, ``batch_stats`` and ``illegal`` directly, never by getattr with a default."""
    import jax

    spec = game_spec(name)
    options = spec.load("options")(seed=2)
    assert isinstance(options, GameOptions) and options.players >= 2
    game = spec.load("reference").from_options(options)
    assert isinstance(game, ReferenceGame), [m for m in dir(ReferenceGame) if not hasattr(game, m)]
    assert game.end_reason == "" and isinstance(game.round, int)
    play(game)
    assert game.end_reason and isinstance(game.round, int) and game.round >= 1
    assert isinstance(game.stats(), dict) and len(game.scores()) == options.players
    if not spec.has("jax_engine"):
        return
    engine = spec.load("jax_engine")(options)
    assert isinstance(engine, JaxEngine)
    keys = jax.random.split(jax.random.PRNGKey(0), 3)
    states = jax.eval_shape(engine.batch_init, keys, engine.params(options))    # traced, nothing compiled
    for field in PROTOCOL_STATE_FIELDS:
        assert getattr(states, field).shape == (3,), field
    places = jax.eval_shape(engine.seat_places, states)
    assert places.shape[0] == 3 and places.shape[1] >= options.players and places.dtype == np.int32


def test_the_protocol_check_sees_a_missing_member():
    """The check above can fail: the same engine without batch_rounds is no JaxEngine."""
    import copy

    engine = game_spec(game_names()[0]).load("jax_engine")()
    lacking = copy.copy(engine)
    lacking.__class__ = type("Lacking", (type(engine),), {"batch_rounds": None})   # None: not implemented
    assert isinstance(engine, JaxEngine) and not isinstance(lacking, JaxEngine)
