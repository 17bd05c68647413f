"""The JAX engine's running room totals (State.room_*, door links) on data where they are the
hardest to keep: every floor of one colour, so rooms are large and merge often, and a diagonal
tile's two parts can end in one room, where the tile counts once (the stand-in tiles never let
that happen: each of their diagonals has two colours). Both engines play random games decision
by decision (parity.differential_batch, which also checks the totals against the whole table)."""

import re
import shutil

import jax
import numpy as np
import pytest

from monkey_env.core.config_loading import default_config_dir
from monkey_env.forbidden_city.game_data import load_game_data
from monkey_env.forbidden_city.jaxgame.env import JaxGame
from monkey_env.forbidden_city.jaxgame.parity import differential_batch, running_totals_agree
from monkey_env.forbidden_city.options import ForbiddenCityOptions


@pytest.fixture(scope="module")
def one_colour(tmp_path_factory):
    root = tmp_path_factory.mktemp("one_colour")
    shutil.copytree(default_config_dir() / "forbidden_city", root / "forbidden_city")
    for name in ("tiles.yaml", "start_tile.yaml"):
        path = root / "forbidden_city" / name
        path.write_text(re.sub(r"\b(pink|white)\b", "green", path.read_text()))
    data = load_game_data(root)
    assert any(k.face.parts == 2 and len(set(k.face.floors)) == 1 for k in data.kinds)
    return JaxGame(ForbiddenCityOptions(config_dir=str(root)), data=data)


def test_running_totals_agree_with_the_reference_when_diagonal_tiles_close_on_themselves(one_colour):
    result = differential_batch(one_colour, 0, 16, seed=0)
    assert result["decisions"] > 50 * 16
    # The case the totals must handle did happen: a diagonal tile with both parts in one room.
    keys = jax.random.split(jax.random.PRNGKey(0), 16)
    states = one_colour.batch_init(keys, one_colour.params(players=2))
    rng = np.random.default_rng(0)
    merged_parts = 0
    while not bool(np.asarray(states.terminated).all()):
        masks = np.asarray(one_colour.batch_legal_mask(states))
        actions = [rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks]
        states = one_colour.batch_step(states, np.asarray(actions, np.int32))
        label = np.asarray(jax.vmap(one_colour.rules.node_rooms)(states))
        merged_parts = max(merged_parts, int(((label[..., 1] >= 0) & (label[..., 0] == label[..., 1])).sum()))
    assert merged_parts > 0


def test_the_totals_check_sees_a_wrong_total(one_colour):
    state = one_colour.init(jax.random.PRNGKey(1))
    assert bool(running_totals_agree(one_colour.rules, state))
    room = int(np.asarray(state.room).max())
    assert not bool(running_totals_agree(one_colour.rules, state._replace(
        room_value=state.room_value.at[room].add(1))))


def test_the_played_action_is_legal_exactly_where_the_mask_says():
    """Rules.action_is_legal looks at the action's cell only (the whole table for setting aside):
    it must agree with legal_action_mask on every action, out-of-range ones included, in a batch
    where one game can only set its tile aside (its hand emptied) and the others cannot."""
    from monkey_env.forbidden_city.jaxgame.env import jax_game_for

    jg = jax_game_for()
    keys = jax.random.split(jax.random.PRNGKey(3), 3)
    settings = ((2, "beginner"), (3, "advanced"), (4, "beginner"))
    params = jax.tree_util.tree_map(lambda *x: jax.numpy.stack(x),
                                    *[jg.params(players=p, start_side=s) for p, s in settings])
    states = jg.batch_init(keys, params)
    rng = np.random.default_rng(0)
    for _ in range(6):
        masks = np.asarray(jg.batch_legal_mask(states))
        states = jg.batch_step(states, np.asarray([rng.choice(np.flatnonzero(m)) for m in masks], np.int32))
    states = states._replace(held=states.held.at[0, states.current[0]].set(-1))
    actions = jax.numpy.arange(-1, jg.num_actions + 1)
    every = jax.jit(jax.vmap(lambda s: jax.vmap(lambda a: jg.rules.action_is_legal(s, a))(actions)))(states)
    masks = np.asarray(jg.batch_legal_mask(states))
    expected = np.concatenate([np.zeros((3, 1), bool), masks, np.zeros((3, 1), bool)], 1)
    assert np.array_equal(np.asarray(every), expected)
    assert masks[0, -1] and masks[0, :-1].sum() == 0 and not masks[1:, -1].any()


def test_the_totals_check_sees_a_wrong_facing_key(one_colour):
    """State.facing (a cell's four facing codes, kept as tiles are laid and the city moves) is
    checked against the whole table like the room totals: one wrong digit fails it."""
    state = one_colour.init(jax.random.PRNGKey(2))
    keys = np.asarray(one_colour.rules.facing_keys_of_table(state))
    assert (np.asarray(state.facing) == keys).all() and (keys != keys.max()).sum() > 0
    y, x = np.argwhere(keys != keys.max())[0]
    assert not bool(running_totals_agree(one_colour.rules, state._replace(
        facing=state.facing.at[y, x].add(1))))
