"""The PPO agent of the JAX trainer: a checkpoint of a game's network (the one its ``policy`` part
builds, agents/ppo_games.py; each product game's in monkey_env/<game>/agents/network.py) playing
behind both agent interfaces.

``act_batch`` runs jitted on JAX batches (greedy's batched scores are the network's derived
inputs, as in training); ``act`` plays one reference-engine game through the same program.
Decisions are the most probable legal action unless ``deterministic=False`` (then drawn from
the policy with the key, or the seed for ``act``). :meth:`JaxPPOAgent.prior_value` gives the
search agent a jittable ``states -> (logits, value)``.

Checkpoints are msgpack files (flax serialization, no pickle): the network's sizes, what the
run was (config name, game, decisions, reward scale) and the parameters. The agent's ``version``
is the file's SHA-256 prefix, so results record which weights played. A checkpoint without a
``game`` in its facts is Monkey Palace's (the first ones); one of another game is refused.
"""

from __future__ import annotations

import hashlib
from functools import partial
from pathlib import Path

import numpy as np

from monkey_env.games import DEFAULT_GAME, GAMES  # the registry says which game is the default, once

CHECKPOINT_FORMAT = "monkey-palace/ppo-jax"
CHECKPOINT_VERSION = 1
CHECKPOINTS = Path(__file__).resolve().parent / "checkpoints"
DEFAULT_CHECKPOINT = CHECKPOINTS / "ppo_jax.msgpack"
# The games with a JAX PPO: those with a policy part (agents/ppo_games.py's PolicyGame; named without importing JAX)
JAX_PPO_GAMES = tuple(name for name, spec in GAMES.items() if spec.has("policy"))


def default_checkpoint(game: str = DEFAULT_GAME, jax_game=None) -> Path:
    """The shipped checkpoint that plays ``jax_game`` (None: the game's engine for its default
    options): its policy's ``shipped_checkpoint`` (Monkey Palace's ppo_jax.msgpack, or
    ppo_jax_complete.msgpack on the complete build action), else ppo_jax_<game>.msgpack."""
    spec = GAMES.get(game)
    if spec is None or not spec.has("policy"):
        return CHECKPOINTS / f"ppo_jax_{game}.msgpack"
    from monkey_env.agents.ppo_games import policy_game
    return CHECKPOINTS / policy_game(game, jax_game or spec.load("jax_engine")()).shipped_checkpoint()


def shipped_version(game: str = DEFAULT_GAME) -> str:
    """What identifies a game's shipped ``ppo``: its one checkpoint's hash, or with one network
    per action space (Monkey Palace's two build actions) a hash of all of theirs that exist."""
    names = GAMES[game].load("policy").shipped_checkpoints()
    hashes = [checkpoint_hash(CHECKPOINTS / n) for n in names if (CHECKPOINTS / n).exists()]
    if len(hashes) <= 1:
        return hashes[0] if hashes else "missing"
    return hashlib.sha256("+".join(hashes).encode()).hexdigest()[:16]


class CheckpointError(ValueError):
    """A file that is not a readable JAX PPO checkpoint (the message says what is wrong)."""


def save_checkpoint(path, params, network: dict, meta: dict | None = None) -> Path:
    """Write a playing checkpoint: the network's sizes, the run's facts, the parameters."""
    import flax.serialization as fs
    import jax

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    blob = fs.msgpack_serialize({"format": CHECKPOINT_FORMAT, "version": CHECKPOINT_VERSION,
                                 "network": dict(network), "meta": dict(meta or {}),
                                 "params": jax.tree_util.tree_map(np.asarray, fs.to_state_dict(params))})
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(blob)
    tmp.replace(path)          # never a half-written checkpoint under the real name
    return path


def load_checkpoint(path, jax_game, game: str = DEFAULT_GAME):
    """(params, network sizes, meta) of a checkpoint of ``game``, checked against the network it names."""
    import flax.serialization as fs
    import jax

    path = Path(path)
    if not path.exists():
        raise CheckpointError(f"PPO checkpoint not found: {path} (train one with `monkey-palace train`)")
    try:
        raw = fs.msgpack_restore(path.read_bytes())
    except Exception as e:
        raise CheckpointError(f"{path}: not a JAX PPO checkpoint (unreadable msgpack: {e})") from None
    if not isinstance(raw, dict) or raw.get("format") != CHECKPOINT_FORMAT:
        found = raw.get("format") if isinstance(raw, dict) else type(raw).__name__
        raise CheckpointError(f"{path}: not a JAX PPO checkpoint (format is {found!r})")
    if raw.get("version") != CHECKPOINT_VERSION:
        raise CheckpointError(f"{path}: checkpoint version {raw.get('version')}, this code reads {CHECKPOINT_VERSION}")
    meta = dict(raw.get("meta", {}))
    trained_on = meta.get("game", DEFAULT_GAME)
    if trained_on != game:
        raise CheckpointError(f"{path}: a checkpoint of {trained_on}, not of {game}")
    network = {k: (float(v) if isinstance(v, float) else int(v)) for k, v in raw["network"].items()}
    trained_for = f"trained for {int(meta['actions']):,} actions" if "actions" in meta else "its action count not recorded"
    if "actions" in meta and int(meta["actions"]) != jax_game.num_actions:
        raise CheckpointError(f"{path}: {trained_for}, and these game options have {jax_game.num_actions:,} "
                              f"(another build action or layout): train one for them with `monkey-palace train`")
    try:
        template = init_params(jax_game, network, game=game)
    except TypeError as e:
        raise CheckpointError(f"{path}: its network {network} is not {game}'s: {e}") from None
    try:
        params = fs.from_state_dict(template, raw["params"])
    except (ValueError, KeyError, TypeError) as e:
        raise CheckpointError(f"{path}: parameters do not fit the network {network} for these game options "
                              f"({jax_game.num_actions:,} actions; the checkpoint: {trained_for}): {e}") from None
    bad = [jax.tree_util.keystr(p) for p, a, b in zip(
        [p for p, _ in jax.tree_util.tree_flatten_with_path(template)[0]],
        jax.tree_util.tree_leaves(template), jax.tree_util.tree_leaves(params)) if np.shape(a) != np.shape(b)]
    if bad:
        raise CheckpointError(f"{path}: parameters of the wrong shape for the network {network}: {', '.join(bad[:5])}")
    return jax.tree_util.tree_map(jax.numpy.asarray, params), network, meta


def build_network(jax_game, network: dict, game: str = DEFAULT_GAME):
    from monkey_env.agents.ppo_games import policy_game
    return policy_game(game, jax_game).build_network(network)


def init_params(jax_game, network: dict, key=None, game: str = DEFAULT_GAME):
    from monkey_env.agents.ppo_games import policy_game
    return policy_game(game, jax_game).init_params(network, key)


def checkpoint_hash(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


class JaxPPOAgent:
    name = "ppo"

    def __init__(self, checkpoint=None, seed: int = 0, deterministic: bool = True, *, params=None,
                 network: dict | None = None, jax_game=None, game: str = DEFAULT_GAME):
        self.game = game
        # Without a checkpoint: the shipped one for each engine played (one per action space).
        self._shipped = checkpoint is None and params is None
        self.checkpoint = Path(checkpoint) if checkpoint else default_checkpoint(game, jax_game)
        self.deterministic = deterministic
        self.seed = seed
        self._calls = 0
        self._given = (params, network)
        self.version = ("in-memory" if params is not None else shipped_version(game) if self._shipped
                        else checkpoint_hash(self.checkpoint) if self.checkpoint.exists() else "missing")
        if params is None and not self.checkpoint.exists():
            raise CheckpointError(f"PPO checkpoint not found: {self.checkpoint} (train one with `monkey-palace train`)")
        self._by_game: dict[int, tuple] = {}
        self.meta: dict = {}
        if jax_game is not None:
            self._loaded(jax_game)

    def _loaded(self, jax_game):
        """(params, network, compiled decision) for one JaxGame (loaded once per engine)."""
        import jax

        from monkey_env.agents.ppo_games import policy_game

        entry = self._by_game.get(id(jax_game))
        if entry is None:
            params, network = self._given
            if params is None:
                path = default_checkpoint(self.game, jax_game) if self._shipped else self.checkpoint
                params, network, self.meta = load_checkpoint(path, jax_game, self.game)
            pg = policy_game(self.game, jax_game)
            net = pg.build_network(network)
            decide = jax.jit(partial(_decide, pg, net), static_argnums=4)
            entry = (params, network, decide, pg, net)
            self._by_game[id(jax_game)] = entry
        return entry

    def act_batch(self, jax_game, states, masks, key):
        import jax
        import jax.numpy as jnp

        params, _, decide, _, _ = self._loaded(jax_game)
        if key is None:
            key = jax.random.PRNGKey(self.seed)
        return decide(params, states, jnp.asarray(masks, bool), key, self.deterministic)

    def act(self, game, mask: np.ndarray) -> int:
        import jax

        from monkey_env.games import game_spec

        jg = game_spec(self.game).load("jax_engine")(game.options)
        pg = self._loaded(jg)[3]
        state = jax.tree_util.tree_map(lambda x: jax.numpy.asarray(x)[None], pg.state_of(game))
        key = jax.random.fold_in(jax.random.PRNGKey(self.seed), self._calls)
        self._calls += 1
        return int(np.asarray(self.act_batch(jg, state, np.asarray(mask, bool)[None], key))[0])

    def prior_value(self, jax_game):
        """A jittable ``states -> (logits (B, A) with illegal actions at -1e9, value (B,))``; the
        value is the network's, divided by the run's reward scale: about the seat to move's
        future zero-sum Banana Points (its points from now on minus the mean of the others'),
        plus the win bonus in the same units."""
        params, _, _, pg, net = self._loaded(jax_game)
        scale = float(self.meta.get("reward_scale", 0.1))

        def fn(states):
            logits, value = _policy(pg, net, params, states, jax_game.batch_legal_mask(states))
            return logits, value / scale
        return fn


def _policy(pg, net, params, states, masks):
    import jax.numpy as jnp

    from monkey_env.agents.networks import masked_logits

    inputs, _ = pg.inputs(states, masks, jnp.ones(masks.shape[0], bool))
    logits, value = net.apply(params, inputs)
    return masked_logits(logits, masks), value


def _decide(pg, net, params, states, masks, key, deterministic: bool):
    import jax
    import jax.numpy as jnp

    logits, _ = _policy(pg, net, params, states, masks)
    action = jnp.argmax(logits, -1) if deterministic else jax.random.categorical(key, logits)
    return jnp.where(masks.any(-1), action, 0).astype(jnp.int32)
