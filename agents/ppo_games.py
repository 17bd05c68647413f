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
a batched greedy trains through the same machinery by adding its subclass, the ``policy`` part
of its GameSpec (each product game's in ``monkey_env/<game>/agents/policy.py``, beside its
network and its greedy). ``FlatPolicyGame`` serves a game whose network reads ``observe``'s
planes and vector (``networks.FlatInputs``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


class PolicyGame:
    """The defaults of a game with a flat action space, an engine following monkey_env.core.protocol.JaxEngine."""

    name: str
    seats: int                       # the seat axis of rewards and places
    checkpoint_file: str = ""        # the shipped checkpoint in agents/checkpoints/ (ppo_jax_<name>.msgpack when empty)
    network_defaults: dict = {}

    def __init__(self, engine):
        self.engine = engine

    def shipped_checkpoint(self) -> str:
        """The file name of the shipped checkpoint that plays this engine (its action space)."""
        return self.checkpoint_file or f"ppo_jax_{self.name}.msgpack"

    @classmethod
    def shipped_checkpoints(cls) -> tuple[str, ...]:
        """Every shipped checkpoint of the game (one per action space it ships a network for)."""
        return (cls.checkpoint_file or f"ppo_jax_{cls.name}.msgpack",)

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
        return self.engine.seat_places(states)

    def score_change(self, before, after):
        return after.rewards.astype(jnp.float32)


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
        return flat_inputs(obs, values, masks), values

    def _values_where(self, states, masks, need):
        """Greedy's values for the rows that need them (the others 0); skipped when no row does."""
        return jax.lax.cond(need.any(), lambda _: self._values(states, masks).astype(jnp.float32),
                            lambda _: jnp.zeros(masks.shape, jnp.float32), None)

    def greedy(self, states, masks, aux, key, need):
        values = aux if self.greedy_needs_inputs() else self._values_where(states, masks, need)
        keys = jax.random.split(key, masks.shape[0])
        return jax.vmap(self._choose)(values, masks, keys)


def flat_inputs(obs, values, masks):
    from monkey_env.agents.networks import FlatInputs
    return FlatInputs(planes=obs["planes"], vector=obs["vector"], values=values, mask=masks)


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
