"""What the JAX PPO (its trainer and its agent) needs of each game, behind one small interface.

    pg = policy_game("shadow_theater")            # or policy_game(name, engine)
    net = pg.build_network(network)               # a flax module: inputs -> (logits (B, A), value (B,))
    params = pg.init_params(network, key)
    inputs, aux = pg.inputs(states, masks, need)  # the network's input of each row (``inputs.mask``: legal)
    actions = pg.greedy(states, masks, aux, key, need_greedy)   # the batched greedy opponent
    gains = pg.score_change(before, after)        # (B, seats) each seat's score change at a step
    places = pg.places(states)                    # (B, seats) 1 = winner, 0 = no such seat

``need`` (B,) bool marks the rows whose network input must be exact (those the learner or a
snapshot decides, and those greedy decides when its values are the inputs' too): derived inputs
that cost time (greedy's values) are computed only there. The trainer (monkey_env/apps/jax_trainer.py)
and the agent (ppo_jax.JaxPPOAgent) use nothing else of a game, so a game with a JAX engine and
a batched greedy trains through the same machinery by adding a class here.

- **Monkey Palace**: agents/palace_network.py's network and compact inputs (greedy's scores are
  per-action inputs), its batched greedy, Banana Points.
- **The Shadow Theater**: an MLP (game_networks.FlatNet) over the observation, greedy's one-turn
  values as per-action inputs; the score is Lanterns × LANTERN_POINTS + the round's points as
  they stand (the shaping: a round's points change each step, a Lantern at the round's end).
- **Forbidden City**: a convolutional net (game_networks.CityNet) over the 27×27 cells with a
  per-cell × rotation head; greedy's values as inputs only if ``greedy_inputs: 1`` (they cost a
  lay and a scoring for each of 96 candidate placements), the majority potential of every
  placement (agents/forbidden_city_majority.py) if ``majority_inputs: 1``; coins.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp

# A Lantern in round points, for The Shadow Theater's shaped reward (a round is won with about
# 10-20 points): the round's points steer every step, the Lantern settles the round.
LANTERN_POINTS = 10.0


class PolicyGame:
    """The defaults of a game with a flat action space, an engine following monkey_env.core.protocol.JaxEngine."""

    name: str
    seats: int                       # the seat axis of rewards and places
    checkpoint_file: str = ""        # the shipped checkpoint in agents/checkpoints/ (ppo_jax_<name>.msgpack when empty)
    network_defaults: dict = {}

    def __init__(self, engine):
        self.engine = engine

    # the network
    def build_network(self, network: dict):
        raise NotImplementedError

    def init_params(self, network: dict, key=None):
        net = self.build_network(network)
        return net.init(jax.random.PRNGKey(0) if key is None else key, self.dummy_inputs(1))

    def dummy_inputs(self, batch: int):
        """Blank inputs of the right shapes (shapes traced, nothing compiled or run)."""
        def made():
            keys = jax.random.split(jax.random.PRNGKey(0), batch)
            params = self.default_params()
            if params is not None:
                params = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (batch,) + jnp.shape(x)), params)
            states = jax.vmap(self.engine.init)(keys, params) if params is not None else \
                jax.vmap(lambda k: self.engine.init(k))(keys)
            masks = jax.vmap(self.engine.legal_action_mask)(states)
            return self.inputs(states, masks, jnp.zeros(batch, bool))[0]
        shapes = jax.eval_shape(made)
        return jax.tree_util.tree_map(lambda x: jnp.ones(x.shape, x.dtype) if x.dtype == bool else jnp.zeros(x.shape, x.dtype),
                                      shapes)

    def default_params(self):
        return self.engine.params()

    def has_greedy(self) -> bool:
        """Whether ``greedy`` plays this engine (the trainer's greedy opponent and evaluation)."""
        return True

    # the games trained on and evaluated
    def settings(self, games) -> list:
        """The engine's params of every game setting trained on (config.games: players, maps, options)."""
        return [self.engine.params(games.options.replace(players=p)) for p in games.players]

    def eval_params(self, games, evaluation):
        return self.engine.params(games.options.replace(players=evaluation.players))

    # playing
    def players(self, states):
        return states.players

    def places(self, states):
        return self.engine._places(states)

    def score_change(self, before, after):
        return after.rewards.astype(jnp.float32)


# ============================================================== Monkey Palace
class MonkeyPalacePolicy(PolicyGame):
    name, seats = "monkey_palace", 4
    checkpoint_file = "ppo_jax.msgpack"      # the first game's, named before there were others

    def __init__(self, engine):
        from monkey_env.agents.greedy import batch_scores
        super().__init__(engine)
        # The complete build action: greedy's batched scores value the catalogue only, so its
        # network has no greedy inputs and its league has no greedy opponent (has_greedy).
        self.complete = bool(engine.static.complete)
        self._scores = (lambda states, masks: jnp.zeros(masks.shape, jnp.int32)) if self.complete else batch_scores(engine)

    def has_greedy(self) -> bool:
        """Whether the batched greedy plays this engine (not on the complete build action, so far)."""
        return not self.complete

    def build_network(self, network: dict):
        from monkey_env.agents.palace_network import PalaceNet
        return PalaceNet(n_shapes=self.engine.static.n_shapes, n_actions=self.engine.num_actions,
                         n_rises=self.engine.static.n_rises if self.complete else 0, **network)

    def init_params(self, network: dict, key=None):
        from monkey_env.agents.palace_network import dummy_inputs
        net = self.build_network(network)
        return net.init(jax.random.PRNGKey(0) if key is None else key, dummy_inputs(self.engine, 1))

    def settings(self, games) -> list:
        return [self.engine.params(games.options.replace(players=p, map=m)) for p in games.players for m in games.maps]

    def eval_params(self, games, evaluation):
        return self.engine.params(games.options.replace(players=evaluation.players, map=evaluation.map))

    def inputs(self, states, masks, need):
        from monkey_env.agents.palace_network import compact_inputs
        scores = self._scores(states, masks & need[:, None])
        inputs = jax.vmap(partial(compact_inputs, self.engine))(states, states.current, scores, masks)
        return inputs, scores

    def greedy(self, states, masks, aux, key, need):
        from monkey_env.agents.greedy import greedy_choice
        if self.complete:
            raise ValueError("greedy's batched scores value the catalogue's staircases only: a run on build_action "
                             "'complete' has no greedy opponent (league weight greedy: 0, no greedy_slots)")
        return greedy_choice(aux, masks)

    def greedy_needs_inputs(self) -> bool:
        return True              # greedy's choice is read from the inputs' scores

    def state_of(self, game):
        from monkey_env.monkey_palace.jaxgame.from_reference import jax_state_from_game
        return jax_state_from_game(self.engine, game)


# ============================================================== the flat games
class FlatPolicyGame(PolicyGame):
    """A game whose network reads ``observe``'s planes and vector, and greedy's per-action values."""

    value_scale = 1.0

    def greedy_needs_inputs(self) -> bool:
        """Whether greedy's values are part of the network's inputs (then computed with them)."""
        network = getattr(self, "network", self.network_defaults)
        return bool(network.get("greedy_inputs", 0))

    def _values(self, states, masks):
        raise NotImplementedError

    def _choose(self, values, mask, key):
        raise NotImplementedError

    def inputs(self, states, masks, need):
        players = states.current
        obs = jax.vmap(self.engine.observe)(states, players)
        if self.greedy_needs_inputs():
            values = self._values_where(states, masks, need)
        else:
            values = jnp.zeros(masks.shape, jnp.float32)
        return _flat(obs, values, masks), values

    def _values_where(self, states, masks, need):
        """Greedy's values for the rows that need them (the others 0); skipped when no row does."""
        return jax.lax.cond(need.any(), lambda _: self._values(states, masks).astype(jnp.float32),
                            lambda _: jnp.zeros(masks.shape, jnp.float32), None)

    def greedy(self, states, masks, aux, key, need):
        values = aux if self.greedy_needs_inputs() else self._values_where(states, masks, need)
        keys = jax.random.split(key, masks.shape[0])
        return jax.vmap(self._choose)(values, masks, keys)


def _flat(obs, values, masks):
    from monkey_env.agents.game_networks import FlatInputs
    return FlatInputs(planes=obs["planes"], vector=obs["vector"], values=values, mask=masks)


class ShadowTheaterPolicy(FlatPolicyGame):
    name, seats = "shadow_theater", 2
    network_defaults = {"hidden": 128, "greedy_inputs": 1}

    def __init__(self, engine):
        from monkey_env.agents.shadow_theater import action_values
        super().__init__(engine)
        self._one_values = action_values(engine)

    def build_network(self, network: dict):
        from monkey_env.agents.game_networks import FlatNet
        self.network = {**self.network_defaults, **network}
        return FlatNet(n_actions=self.engine.num_actions, value_scale=self.value_scale, **self.network)

    def _values(self, states, masks):
        return jax.vmap(self._one_values)(states)

    def _choose(self, values, mask, key):
        from monkey_env.agents.shadow_theater import greedy_from_values
        return greedy_from_values(values, mask, key)

    def settings(self, games) -> list:
        return [None]             # no traced settings (2 players, the game data compiled in)

    def eval_params(self, games, evaluation):
        return None

    def default_params(self):
        return None

    def players(self, states):
        return jnp.full(states.current.shape, 2, jnp.int32)

    def places(self, states):
        return self.engine.batch_places(states)

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


class ForbiddenCityPolicy(FlatPolicyGame):
    name, seats = "forbidden_city", 4
    network_defaults = {"width": 32, "hidden": 128, "blocks": 2, "greedy_inputs": 0, "majority_inputs": 0}

    def __init__(self, engine):
        from monkey_env.agents.forbidden_city_greedy import action_values
        from monkey_env.agents.forbidden_city_majority import majority_potential
        super().__init__(engine)
        self._one_values = action_values(engine)
        self._one_potential = majority_potential(engine)

    def build_network(self, network: dict):
        from monkey_env.agents.game_networks import CityNet
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
        from monkey_env.agents.forbidden_city_greedy import greedy_from_values
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


def policy_game(name: str, engine=None) -> PolicyGame:
    """The PPO parts of the game called ``name`` (its ``policy`` part in monkey_env.games), on
    ``engine``, else the game's default JAX engine."""
    from monkey_env.games import GAMES, game_spec

    spec = game_spec(name)
    if not spec.has("policy"):
        with_one = [g for g, s in GAMES.items() if s.has("policy")]
        raise ValueError(f"no JAX PPO for the game {name!r}; games with one: {', '.join(with_one)}")
    if engine is None:
        engine = spec.load("jax_engine")()
    return spec.load("policy")(engine)
