"""Forbidden City's environments, agents and pictures: hidden hands, the Gymnasium view and the
VecEnv, the greedy agent's one-turn value on both engines, the text and the picture."""

import gymnasium
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import monkey_env
from monkey_env.agents.registry import known_names, make_agent
from monkey_env.forbidden_city.agents.greedy import reference_closing_cells
from monkey_env.forbidden_city.engine import Game
from monkey_env.forbidden_city.jaxgame.env import jax_game_for
from monkey_env.forbidden_city.jaxgame.rules import closing_cells
from monkey_env.forbidden_city.options import ForbiddenCityOptions


@pytest.fixture(scope="module")
def jg():
    return jax_game_for()


def test_each_seat_sees_its_own_hand_and_not_the_others(jg):
    env = monkey_env.make("forbidden_city_v0", players=3)
    env.reset(seed=4)
    base = env.unwrapped
    before = {a: env.observe(a)["observation"]["vector"].copy() for a in base.possible_agents}
    # Another tile in seat 2's hand changes seat 2's view only.
    held = np.asarray(base.state.held).copy()
    other = next(k for k in range(24) if jg.data.kinds[k].describe() != jg.data.kinds[int(held[2])].describe())
    base.state = base.state._replace(held=base.state.held.at[2].set(other))
    base._obs_cache = {}
    after = {a: env.observe(a)["observation"]["vector"] for a in base.possible_agents}
    assert np.array_equal(before["player_0"], after["player_0"]) and np.array_equal(before["player_1"], after["player_1"])
    assert not np.array_equal(before["player_2"], after["player_2"])
    assert env.observe("player_1")["action_mask"].sum() == 0 and env.observe("player_0")["action_mask"].sum() > 0


def test_the_gymnasium_view_is_registered_and_plays_to_the_end():
    env = gymnasium.make("ForbiddenCity-v0", players=2, opponents="random")
    obs, info = env.reset(seed=1)
    assert obs["planes"].shape == (30, 27, 27) and obs["vector"].shape == (45,)
    total, done = 0.0, False
    while not done:
        legal = np.flatnonzero(env.unwrapped.action_masks())
        obs, reward, terminated, truncated, info = env.step(int(legal[0]))
        total += reward
        done = terminated or truncated
    assert total == info["scores"][0]           # coin rewards sum to the final coins


def test_the_vec_env_restarts_finished_games_and_reports_episodes(jg):
    from monkey_env.forbidden_city.envs.vec_env import ForbiddenCityVecEnv

    venv = ForbiddenCityVecEnv(4, players=2, opponents="random", seed=0, learner_seat=0)
    obs = venv.reset()
    assert obs["planes"].shape == (4, 30, 27, 27)
    episodes = []
    for _ in range(40):
        masks = venv.action_masks()
        actions = np.array([np.flatnonzero(m)[0] for m in masks])
        obs, rewards, dones, infos = venv.step(actions)
        episodes += [i["episode"] for i in infos if "episode" in i]
    assert len(episodes) >= 4 and all(e["l"] == 28 for e in episodes)         # 28 turns each with last_two
    assert all(e["r"] == e["score"] for e in episodes)


def best_value(game: Game) -> tuple[int, dict]:
    """Brute force: every legal action's one-turn value (own coins minus the most of another's)."""
    values = {}
    for a in np.flatnonzero(game.legal_mask()):
        t = game.clone()
        before = np.array(t.scores())
        t.apply(int(a))
        gain = np.array(t.scores()) - before - np.array(t.end_coins)
        values[int(a)] = gain[game.current] - max(g for s, g in enumerate(gain) if s != game.current)
    return max(values.values()), values


def test_greedy_takes_the_best_one_turn_value_on_both_engines(jg):
    assert "greedy" in known_names("forbidden_city") and "random" in known_names("forbidden_city")
    greedy = make_agent("greedy", 0, game="forbidden_city")
    rng = np.random.default_rng(0)
    key = jax.random.PRNGKey(5)
    state = jg.init(key, jg.params(players=2))
    game = Game(ForbiddenCityOptions(players=2), deal=jg.deal(state), data=jg.data)
    cells = jax.jit(lambda s: closing_cells(jg.rules, s))
    checked = positive = 0
    while game.turns_played < 40:
        if game.turns_played % 4 == 3:          # check every fourth position (brute force is slow)
            best, values = best_value(game)
            picked = greedy.act(game, game.legal_mask())
            batch = jax.tree_util.tree_map(lambda x: x[None], state)
            picked_jax = int(greedy.act_batch(jg, batch, jg.batch_legal_mask(batch), key)[0])
            assert values[picked] == best and values[picked_jax] == best
            # the pruning is exact: elsewhere no room closes
            where = {(int(x), int(y)) for y, x in zip(*np.nonzero(np.asarray(cells(state))))}
            assert where == set(reference_closing_cells(game))
            assert all(v == 0 for a, v in values.items() if a != game.layout.set_aside
                       and game.layout.decode(a)[:2] not in where)
            checked += 1
            positive += best > 0
        a = int(rng.choice(np.flatnonzero(game.legal_mask())))
        game.apply(a)
        state = jg.step(state, a)
    assert checked == 10 and positive >= 1


def test_text_and_picture_of_a_game():
    env = monkey_env.make("forbidden_city_v0", players=2, render_mode="rgb_array")
    env.reset(seed=2)
    for _ in range(12):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    image = env.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 20                    # floors, walls, advisors
    text = monkey_env.make("forbidden_city_v0", players=2, render_mode="ansi")
    text.reset(seed=2)
    assert "Palace" not in text.render() and " I " in text.render() and "coins" in text.render()


def test_illegal_actions_end_the_jax_game_with_the_penalty(jg):
    state = jg.init(jax.random.PRNGKey(0), jg.params(players=2))
    bad = int(np.flatnonzero(~np.asarray(jg.legal_action_mask(state)))[0])
    after = jg.step(state, bad)
    assert bool(after.terminated) and bool(after.illegal) and float(after.rewards[0]) == -10.0
    again = jg.step(after, 0)
    assert float(jnp.abs(again.rewards).sum()) == 0 and bool(again.terminated)


def test_seats_without_a_player_get_nothing(jg):
    state = jg.init(jax.random.PRNGKey(1), jg.params(players=2))
    while not bool(state.terminated):
        state = jg.step(state, int(np.flatnonzero(np.asarray(jg.legal_action_mask(state)))[0]))
    assert np.asarray(state.coins)[2:].tolist() == [0, 0] and np.asarray(state.end_coins)[2:].tolist() == [0, 0]
    batch = jax.tree_util.tree_map(lambda x: x[None], state)
    assert jg.batch_scores(batch).shape == (1, 2) and jg.batch_places(batch).shape == (1, 2)
