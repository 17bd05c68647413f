"""Monkey Palace's JAX PPO parts (its ``policy`` part; agents/ppo_games.py says what a PolicyGame is).

The network and its compact inputs (agents/network.py: greedy's scores are per-action inputs),
the batched greedy (agents/greedy.py) as the league's opponent, Banana Points as the score.
"""

from __future__ import annotations

from functools import partial

import jax

from monkey_env.agents.ppo_games import PolicyGame


class MonkeyPalacePolicy(PolicyGame):
    name, seats = "monkey_palace", 4
    checkpoint_file = "ppo_jax.msgpack"      # the first game's, named before there were others
    complete_checkpoint_file = "ppo_jax_complete.msgpack"   # the complete build action's network

    def __init__(self, engine):
        from monkey_env.monkey_palace.agents.greedy import batch_scores
        super().__init__(engine)
        # Either build action: greedy's scores are the network's inputs (on the complete action
        # from a walk over every staircase, a few ms a building decision: docs/AGENTS.md).
        self.complete = bool(engine.static.complete)
        self._scores = batch_scores(engine)

    def shipped_checkpoint(self) -> str:
        return self.complete_checkpoint_file if self.complete else self.checkpoint_file

    @classmethod
    def shipped_checkpoints(cls) -> tuple[str, ...]:
        return cls.checkpoint_file, cls.complete_checkpoint_file

    def build_network(self, network: dict):
        from monkey_env.monkey_palace.agents.network import PalaceNet
        return PalaceNet(n_shapes=self.engine.static.n_shapes, n_actions=self.engine.num_actions,
                         n_rises=self.engine.static.n_rises if self.complete else 0, **network)

    def init_params(self, network: dict, key=None):
        from monkey_env.monkey_palace.agents.network import dummy_inputs
        net = self.build_network(network)
        return net.init(jax.random.PRNGKey(0) if key is None else key, dummy_inputs(self.engine, 1))

    def settings(self, games) -> list:
        return [self.engine.params(games.options.replace(players=p, map=m)) for p in games.players for m in games.maps]

    def eval_params(self, games, evaluation):
        return self.engine.params(games.options.replace(players=evaluation.players, map=evaluation.map))

    def inputs(self, states, masks, need):
        from monkey_env.monkey_palace.agents.network import compact_inputs
        scores = self._scores(states, masks & need[:, None])
        inputs = jax.vmap(partial(compact_inputs, self.engine))(states, states.current, scores, masks)
        return inputs, scores

    def greedy(self, states, masks, aux, key, need):
        from monkey_env.monkey_palace.agents.greedy import greedy_choice
        return greedy_choice(aux, masks)

    def greedy_needs_inputs(self) -> bool:
        return True     # greedy's choice is read from the inputs' scores

    def state_of(self, game):
        from monkey_env.monkey_palace.jaxgame.from_reference import jax_state_from_game
        return jax_state_from_game(self.engine, game)
