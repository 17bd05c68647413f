"""The Shadow Theater's JAX PPO parts (its ``policy`` part; agents/ppo_games.py says what a PolicyGame is).

An MLP (agents/network.py) over the observation, greedy's one-turn values (agents/greedy.py)
as per-action inputs; the score is Lanterns × LANTERN_POINTS + the round's points as they stand
(the shaping: a round's points change each step, a Lantern at the round's end).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from monkey_env.agents.ppo_games import FlatPolicyGame

# A Lantern in round points, for the shaped reward (a round is won with about 10-20 points): the
# round's points steer every step, the Lantern settles the round.
LANTERN_POINTS = 10.0


class ShadowTheaterPolicy(FlatPolicyGame):
    name, seats = "shadow_theater", 2
    network_defaults = {"hidden": 128, "greedy_inputs": 1}

    def __init__(self, engine):
        from monkey_env.shadow_theater.agents.greedy import action_values
        super().__init__(engine)
        self._one_values = action_values(engine)

    def build_network(self, network: dict):
        from monkey_env.shadow_theater.agents.network import FlatNet
        self.network = {**self.network_defaults, **network}
        return FlatNet(n_actions=self.engine.num_actions, value_scale=self.value_scale, **self.network)

    def _values(self, states, masks):
        return jax.vmap(self._one_values)(states)

    def _choose(self, values, mask, key):
        from monkey_env.shadow_theater.agents.greedy import greedy_from_values
        return greedy_from_values(values, mask, key)

    def settings(self, games) -> list:
        return [None]             # no traced settings (2 players, the game data compiled in)

    def eval_params(self, games, evaluation):
        return None

    def default_params(self):
        return None

    def players(self, states):
        return jnp.full(states.current.shape, 2, jnp.int32)

    def score_change(self, before, after):
        def score(s):
            return LANTERN_POINTS * s.lanterns.astype(jnp.float32) + jax.vmap(self.engine.points)(s).astype(jnp.float32)
        return score(after) - score(before)

    def state_of(self, game):
        """The JAX state of a reference game: its deal, then its decisions replayed."""
        import numpy as np
        if not hasattr(self, "_jitted"):
            self._jitted = (jax.jit(self.engine.from_deal), jax.jit(self.engine.step))
        from_deal, step = self._jitted
        state = from_deal(np.asarray(game.deal["cards"], np.int32), np.asarray(game.deal["scrolls"], np.int32),
                          np.asarray(game.deal["king"], np.int32))
        for a in game.history:
            state = step(state, jnp.int32(a))
        return state
