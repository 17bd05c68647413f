"""Forbidden City's JAX PPO parts (its ``policy`` part; agents/ppo_games.py says what a PolicyGame is).

A convolutional net (agents/network.py) over the 27×27 cells with a per-cell × rotation head;
greedy's values (agents/greedy.py) as inputs only if ``greedy_inputs: 1`` (they cost a lay and
a scoring for each of 96 candidate placements), the majority potential of every placement
(agents/majority.py) if ``majority_inputs: 1``; coins.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from monkey_env.agents.ppo_games import FlatPolicyGame


class ForbiddenCityPolicy(FlatPolicyGame):
    name, seats = "forbidden_city", 4
    network_defaults = {"width": 32, "hidden": 128, "blocks": 2, "greedy_inputs": 0, "majority_inputs": 0}

    def __init__(self, engine):
        from monkey_env.forbidden_city.agents.greedy import action_values
        from monkey_env.forbidden_city.agents.majority import majority_potential
        super().__init__(engine)
        self._one_values = action_values(engine)
        self._one_potential = majority_potential(engine)

    def build_network(self, network: dict):
        from monkey_env.forbidden_city.agents.network import CityNet
        self.network = {**self.network_defaults, **network}
        return CityNet(n_actions=self.engine.num_actions, value_scale=self.value_scale, **self.network)

    def _values(self, states, masks):
        return jax.vmap(self._one_values)(states, masks)

    def inputs(self, states, masks, need):
        """observe's planes and vector, greedy's values (``greedy_inputs: 1``) and the majority
        potential (``majority_inputs: 1``; for the rows that ``need`` exact inputs, 0 elsewhere)."""
        inputs, values = super().inputs(states, masks, need)
        network = getattr(self, "network", self.network_defaults)
        if network.get("majority_inputs", 0):
            potential = jax.lax.cond(need.any(), lambda _: jax.vmap(self._one_potential)(states, masks & need[:, None]),
                                     lambda _: jnp.zeros(masks.shape, jnp.float32), None)
            inputs = inputs._replace(majority=potential)
        return inputs, values

    def _choose(self, values, mask, key):
        from monkey_env.forbidden_city.agents.greedy import greedy_from_values
        return greedy_from_values(values, mask, key)

    def state_of(self, game):
        """The JAX state of a reference game: its options and stacks, then its decisions replayed."""
        import numpy as np
        jg = self.engine
        state = jg.init(jax.random.PRNGKey(0), jg.params(game.options))
        stacks = np.full(np.asarray(state.stacks).shape, -1, np.int16)
        for seat, order in enumerate(game.deal):
            stacks[seat, :len(order)] = order
        seated = np.arange(stacks.shape[0]) < game.players
        state = state._replace(stacks=jnp.asarray(stacks), held=jnp.asarray(np.where(seated, stacks[:, 0], -1), jnp.int16))
        for a in game.history:
            state = jg.step(state, jnp.int32(a))
        return state
