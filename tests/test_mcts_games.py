"""The search agent (agents/mcts.py) in every game with a search part: its determinizations keep
what the searching seat has seen, and it plays only legal actions; ``evaluate`` runs it by name.

Cheap: small batches, a handful of simulations, one compiled search per game (the programs are
shared through the agent's module-level cache)."""

from __future__ import annotations

import json
from dataclasses import replace

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from monkey_env.agents.mcts import MCTSAgent, MCTSSettings, SearchGame, has_ppo
from monkey_env.agents.registry import known_names, make_agent
from monkey_env.games import DEFAULT_GAME, game_names, game_spec

# Every game with a search part but the default one (tests/games/monkey_palace/test_mcts.py searches it, at length):
# The Shadow Theater, Forbidden City, and the example game Pebble Piles where it is installed.
NEW_GAMES = [g for g in game_names() if game_spec(g).has("search") and g != DEFAULT_GAME]
TINY = MCTSSettings(sims=4, width=8, considered=4, chunk=4, capacity=4)
CUTS = (1, 6, 15, 30, 60)


def tiny(game: str) -> MCTSSettings:
    """TINY with the game's prior: its PPO, or the uniform one without."""
    return TINY if has_ppo(game) else replace(TINY, prior="uniform")   # random decisions before a position is taken


def engine(game: str):
    return game_spec(game).load("jax_engine")()


def random_positions(game: str, batch: int = 6, seed: int = 0):
    """States of random games of ``game`` after each of CUTS decisions (finished games left out)."""
    jg = engine(game)
    states = jg.batch_init(jax.random.split(jax.random.PRNGKey(seed), batch), jg.params())
    key, out, done = jax.random.PRNGKey(seed + 1), [], 0
    for cut in CUTS:
        for _ in range(cut - done):
            key, sub = jax.random.split(key)
            masks = jg.batch_legal_mask(states)
            states = jg.batch_step(states, jax.random.categorical(sub, jnp.where(masks, 0.0, -jnp.inf)).astype(jnp.int32))
        done = cut
        out.append(states)
    return jg, out


def row(states, i):
    return jax.tree_util.tree_map(lambda x: x[i], states)


@pytest.mark.parametrize("game", NEW_GAMES)
def test_a_redraw_never_changes_what_the_seat_has_seen_and_changes_what_it_has_not(game):
    jg, batches = random_positions(game)
    sg = SearchGame(game, jg)
    redraw = jax.jit(sg.redraw)
    observe = jax.jit(jg.observe)
    checked = changed = 0
    for states in batches:
        players = np.asarray(sg.players(states))
        for i in range(players.shape[0]):
            state = row(states, i)
            if bool(state.terminated):
                continue
            for seat in range(int(players[i])):
                seen = observe(state, seat)
                for k in range(2):
                    other = redraw(state, jnp.int32(seat), jax.random.PRNGKey(100 * i + 10 * seat + k))
                    for name, before in seen.items():
                        np.testing.assert_array_equal(np.asarray(observe(other, seat)[name]), np.asarray(before),
                                                      err_msg=f"{game}: seat {seat}'s {name} changed under a redraw")
                    checked += 1
                    changed += any(not np.array_equal(np.asarray(a), np.asarray(b))
                                   for a, b in zip(jax.tree_util.tree_leaves(other), jax.tree_util.tree_leaves(state)))
    assert checked >= 20, f"{game}: only {checked} redraws checked"
    if game_spec(game).hidden_information:
        assert changed >= checked // 2, f"{game}: only {changed} of {checked} redraws changed the hidden information"
    else:
        assert changed == 0, f"{game} hides nothing, yet {changed} redraws changed the state"


@pytest.mark.parametrize("game", NEW_GAMES)
def test_a_redraw_keeps_the_games_future_legal_for_its_seat(game):
    """The redrawn state is a game the rules can go on with: its legal actions now are the same
    (the seat to move sees them), and random play from it never ends on an illegal action."""
    jg, batches = random_positions(game, batch=4, seed=3)
    sg = SearchGame(game, jg)
    redraw = jax.jit(jax.vmap(sg.redraw))
    for b, states in enumerate(batches):
        live = ~np.asarray(states.terminated)
        other = redraw(states, states.current, jax.random.split(jax.random.PRNGKey(b), live.shape[0]))
        np.testing.assert_array_equal(np.asarray(jg.batch_legal_mask(other))[live], np.asarray(jg.batch_legal_mask(states))[live])
        key = jax.random.PRNGKey(7 + b)
        for _ in range(40):
            key, sub = jax.random.split(key)
            masks = jg.batch_legal_mask(other)
            other = jg.batch_step(other, jax.random.categorical(sub, jnp.where(masks, 0.0, -jnp.inf)).astype(jnp.int32))
        assert not np.asarray(other.illegal).any(), f"{game}: play after a redraw met an illegal action"


@pytest.mark.parametrize("game", NEW_GAMES)
def test_the_search_picks_only_legal_actions(game):
    jg, batches = random_positions(game, batch=4, seed=5)
    agent = MCTSAgent(tiny(game), seed=1, game=game)
    for b, states in enumerate(batches[1:4]):
        masks = np.asarray(jg.batch_legal_mask(states))
        actions = agent.act_batch(jg, states, masks, jax.random.PRNGKey(b))
        live = masks.any(1)
        assert live.any()
        assert masks[np.flatnonzero(live), actions[live]].all(), f"{game}: an illegal action chosen"


def test_a_node_keeps_at_most_the_games_whole_action_space():
    """width above the action count (the default 32 against Pebble Piles' 18 actions, The Shadow
    Theater's 29) keeps every action, and the search still plays legally."""
    game = min(NEW_GAMES, key=lambda g: engine(g).num_actions)
    jg, batches = random_positions(game, batch=2, seed=9)
    assert jg.num_actions < 32
    agent = MCTSAgent(replace(tiny(game), width=32, chunk=2), seed=0, game=game)
    masks = np.asarray(jg.batch_legal_mask(batches[1]))
    actions = agent.act_batch(jg, batches[1], masks, jax.random.PRNGKey(0))
    assert masks[np.arange(2), actions].all()


@pytest.mark.parametrize("game", NEW_GAMES)
def test_a_games_own_mcts_defaults_apply_and_a_name_overrides_them(game, monkeypatch):
    """The search part's ``mcts_settings`` are the game's ``mcts``; a name's settings go over
    them; the agent's version (what results record) names every setting played."""
    import importlib

    spec = game_spec(game)
    hooks = spec.load("search")
    own = hooks.mcts_settings
    uniform = "" if has_ppo(game) else "prior=uniform"
    base = MCTSSettings.parse(",".join(filter(None, (own, uniform))))
    assert make_agent("mcts", game=game).settings == base
    assert make_agent("mcts:sims=8", game=game).settings == replace(base, sims=8)
    module, _, attribute = spec.parts["search"].partition(":")
    monkeypatch.setattr(importlib.import_module(module), attribute, replace(hooks, mcts_settings="sims=12,rollout=3"))
    agent = make_agent("mcts:rollout=0", game=game)
    assert (agent.settings.sims, agent.settings.rollout) == (12, 0)
    assert agent.name == "mcts:rollout=0" and agent.version.startswith("mcts:") and "sims=12" in agent.version
    assert make_agent("mcts", game=game).name == "mcts"
    assert make_agent("mcts", game=game).settings.rollout == 3


def test_a_search_with_rollouts_plays_legally_to_the_end_of_a_game():
    """``rollout``: every new node's value read after the prior's replies, here to the game's end
    (the cheapest game with a PPO): the search still picks only legal actions, at every depth
    of a game, and by name."""
    game = min((g for g in NEW_GAMES if has_ppo(g)), key=lambda g: engine(g).num_actions)
    jg, batches = random_positions(game, batch=4, seed=11)
    agent = make_agent("mcts:sims=4,width=8,considered=4,chunk=4,capacity=4,rollout=99", seed=0, game=game)
    assert agent.settings.rollout == 99 and agent.name.endswith("rollout=99")
    for b, states in enumerate(batches):
        masks = np.asarray(jg.batch_legal_mask(states))
        live = masks.any(1)
        if not live.any():
            continue
        actions = agent.act_batch(jg, states, masks, jax.random.PRNGKey(b))
        assert masks[np.flatnonzero(live), actions[live]].all(), f"{game}: an illegal action chosen"
    with pytest.raises(ValueError, match="rollout"):
        make_agent("mcts:rollout=-1", game=game)


@pytest.mark.parametrize("game", NEW_GAMES)
def test_every_game_with_a_search_part_offers_mcts_by_name(game):
    assert "mcts" in known_names(game)
    agent = make_agent("mcts:sims=8,width=8", seed=2, game=game)
    assert agent.settings.prior == ("ppo" if "ppo" in known_names(game) else "uniform")
    assert agent.game == game and agent.settings.sims == 8 and agent.name == "mcts:sims=8,width=8"
    assert agent.win_points() > 0
    assert make_agent("mcts", game=game).name == "mcts"


def test_a_game_without_a_ppo_searches_with_the_uniform_prior():
    games = [g for g in NEW_GAMES if "ppo" not in known_names(g)]
    if not games:
        pytest.skip("no game without a JAX PPO is installed (examples/pebble_piles)")
    agent = make_agent("mcts:sims=8", game=games[0])
    assert agent.settings.prior == "uniform" and agent.name == "mcts:sims=8"
    with pytest.raises(ValueError, match="no JAX PPO"):
        make_agent("mcts:prior=ppo", game=games[0])


def test_prior_greedy_is_refused_where_the_game_has_none():
    game = next(g for g in NEW_GAMES if game_spec(g).load("search").greedy_prior_value is None)
    with pytest.raises(ValueError, match="no greedy prior"):
        make_agent("mcts:prior=greedy", game=game)


@pytest.mark.parametrize("game", NEW_GAMES)
def test_evaluate_plays_mcts_against_random_through_the_cli(game, capsys):
    from monkey_env.apps.cli import main

    spec = "mcts:sims=4,width=8,considered=4,chunk=4,capacity=4"
    assert main(["evaluate", "--game", game, "--agents", f"{spec},random", "--games", "2", "--seed", "1", "--json"]) == 0
    out = capsys.readouterr().out
    report = json.loads(out[out.index("{"):])
    assert report["games"] == 2 and spec in json.dumps(report)


@pytest.mark.parametrize("game", NEW_GAMES)
def test_act_on_a_reference_game_is_legal(game):
    spec = game_spec(game)
    ref = spec.load("reference").from_options(spec.load("options")(seed=4))
    agent = MCTSAgent(tiny(game), seed=0, game=game)
    for _ in range(3):
        mask = ref.legal_mask()
        action = agent.act(ref, mask)
        assert mask[action]
        ref.apply(action)


def test_the_search_tournament_plays_any_game_every_agent_in_every_seat(tmp_path, monkeypatch):
    """experiments/mcts_tournament.py on the cheapest other game: every (deal, seating) game is
    played once, each agent sits in each seat equally often, the places are the rulebook's, and
    the report names the game, its score and the command that made it."""
    from experiments.mcts_tournament import main
    from monkey_env.core import provenance

    for name in ("_command", "_commit_at_start", "_load_at_start"):    # main sets them: restored after
        monkeypatch.setattr(provenance, name, getattr(provenance, name))
    game = min(NEW_GAMES, key=lambda g: engine(g).num_actions)
    search = tiny(game).spec()
    out = tmp_path / "tournament.json"
    assert main(["--game", game, "--agents", f"{search},random", "--players", "2", "--deals", "2",
                 "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert (report["game"], report["score_name"], report["games"]) == (game, game_spec(game).score_name, 4)
    records = report["game_records"]
    for seat in range(2):
        assert sorted(r["seats"][seat] for r in records) == sorted([search, "random"] * 2)
    assert all(sorted(r["ranks"]) in ([1, 2], [1, 1]) and len(r["scores"]) == 2 for r in records)
    assert report["decisions"][search] > 0 and report["decisions"]["random"] > 0
    assert report["provenance"]["command"].startswith("python -m experiments.mcts_tournament --game " + game)
