"""The JAX engine with the complete build action against the reference engine, decision by
decision (jaxgame/parity.py's differential), and the caps of its masks refused by name."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from monkey_env.monkey_palace.jaxgame.env import JaxGame, jax_game_for
from monkey_env.monkey_palace.jaxgame.parity import differential_batch
from monkey_env.monkey_palace.options import GameOptions


@pytest.fixture(scope="module")
def jg():
    return JaxGame(GameOptions(build_action="complete"))


def test_the_layout_is_the_reference_engine_s(jg):
    from monkey_env import Game
    assert jg.layout == Game.new(build_action="complete").layout
    assert jg.layout.n_shapes == 0 and jg.layout.n_rises == 129


def test_random_complete_games_agree_decision_by_decision(jg):
    """Games 3-6 of the differential's settings (maps 1-2, 2-4 players): every state, mask and
    score equal, the staircases built arch by arch."""
    result = differential_batch(jg, 3, 4, seed=11)
    assert result["decisions"] > 200
    assert result["over_cap"] == []


def test_a_player_past_the_caps_is_flagged(jg):
    """More than 16 units held: the masks are not guaranteed, so the state says so."""
    s = jg.init(jax.random.PRNGKey(0))
    assert not bool(s.over_cap)
    rich = s._replace(supply=s.supply.at[s.current].set(jnp.asarray([3, 17, 0], jnp.int32)))
    assert bool(jax.jit(jg.rules.start_turn)(rich).over_cap)


def test_each_build_action_has_its_own_engine_and_options_of_the_other_are_refused():
    """The environments play the complete action on its own JaxGame (the build action sets the
    action space), and a JaxGame refuses options that build the other way."""
    complete = jax_game_for(GameOptions(build_action="complete"))
    catalogue = jax_game_for(GameOptions(build_action="catalogue"))
    assert complete.build_action == "complete" and catalogue.build_action == "catalogue"
    assert complete.num_actions != catalogue.num_actions
    with pytest.raises(ValueError, match="build with 'catalogue'"):
        complete.params(GameOptions(build_action="catalogue"))
    with pytest.raises(ValueError, match="build with 'complete'"):
        catalogue.params(GameOptions())
