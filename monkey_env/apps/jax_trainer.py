"""Self-play PPO compiled end to end on the JAX engine (PureJaxRL-style).

    trainer = make_train(config)          # static sizes from the config; nothing compiled yet
    runner = trainer.init(key)            # network, optimizer, the first batch of games
    runner, metrics = trainer.iteration(runner)   # one compiled program: rollout + advantages + update
    runner, metrics = trainer.train(runner, n)    # n iterations under one lax.scan (pure)

One iteration is a ``lax.scan`` of ``num_steps`` decisions over ``num_envs`` batched games, with
the policy, the opponents (greedy's batched JAX form, random, frozen snapshots of the learner)
and the engine's ``batch_step`` inside the same compiled program; then the per-seat advantages
and ``num_epochs`` passes of minibatch updates. Nothing crosses to numpy except the metrics.

**Self-play for turn-based games of 2–4 players.** One network plays every learner seat from
that seat's point of view (``observe`` is seat-relative). A seat's trajectory is its own
decisions: the reward of a decision is the seat's reward accumulated from it until the seat's
next decision (other seats' moves in between included), the bootstrap is the value at that next
decision, and a game's end ends every seat's trajectory (:func:`per_seat_advantages`). A seat's
last decision of a rollout, whose next decision is not yet played, is not trained on; it serves
as the bootstrap of the decisions before it. The per-decision reward is the zero-sum change of
the game's score (Banana Points, coins; The Shadow Theater: Lanterns and the round's points; own
change minus the others' mean, × ``reward_scale``) plus, at a game's end,
``win_bonus`` × (the seat's share of the win − 1 / players).

**Opponents.** Each new game draws its opponent kind by the league's weights: ``self`` (every
seat the learner), ``snapshot`` (one seat the learner, the others a frozen copy of it, one of
``snapshots`` kept, refreshed every ``snapshot_every``), ``greedy`` or ``random``; and its player
count and map from ``game.players``/``game.maps`` (the engine's params are traced, so one batch
mixes them). With ``league.greedy_slots: n`` the first n games always play greedy instead (its
batched form then runs on those n rows only: Forbidden City's greedy is costly).

**Any game with a flat action space.** ``game:`` names the game; everything game-specific (the
network and its inputs, the batched greedy opponent, the score whose change is the reward, the
places, the settings trained on) comes from its :class:`~monkey_env.agents.ppo_games.PolicyGame`
(agents/ppo_games.py): Monkey Palace, The Shadow Theater, Forbidden City. The network's config
is the game's (its ``network`` part, monkey_env.games: ``network_config(game)``), its
``games.options`` the game's own options model.
"""

from __future__ import annotations

import math
from typing import Any, Literal, NamedTuple

import jax
import jax.numpy as jnp
import optax
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from monkey_env.agents.networks import masked_entropy, masked_log_softmax, masked_logits
from monkey_env.agents.ppo_games import PolicyGame, policy_game
from monkey_env.agents.random_agent import random_legal_actions
from monkey_env.games import DEFAULT_GAME, game_spec

OPPONENT_KINDS = ("self", "snapshot", "greedy", "random")
SELF, SNAPSHOT, GREEDY, RANDOM = range(4)


# ============================================================== the config
def network_config(game: str) -> type[BaseModel]:
    """The model of a game's ``network:`` (its ``network`` part); a game without one has no JAX PPO."""
    spec = game_spec(game)
    if not spec.has("network"):
        raise ValueError(f"game: {game!r} has no JAX PPO (no network part)")
    return spec.load("network")


def clip_by_flat_norm(max_norm: float) -> optax.GradientTransformation:
    """optax.clip_by_global_norm's scaling, its norm taken as one dot product of every gradient
    flattened together: XLA's GPU compiler (jax 0.11) fails on the per-leaf square-and-sum of a
    shape-(1,) parameter (a value head's bias: "Expected instruction to have shape f32[], actual
    f32[1]"). The state is optax's empty state, so checkpoints keep their layout."""

    def scale(updates):
        flat = jnp.concatenate([jnp.ravel(u) for u in jax.tree_util.tree_leaves(updates)])
        norm = jnp.sqrt(jnp.dot(flat, flat))
        factor = jnp.where(norm < max_norm, 1.0, max_norm / norm)
        return jax.tree_util.tree_map(lambda u: (u * factor).astype(u.dtype), updates)

    return optax.stateless(lambda updates, params: scale(updates))


class PPOConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    learning_rate: float = Field(3e-4, gt=0)
    anneal_lr: bool = Field(False, description="decay the learning rate linearly to 0 over total_decisions")
    num_envs: int = Field(256, ge=2, description="games stepped together")
    num_steps: int = Field(32, ge=2, description="decisions of each game per iteration (rollout length)")
    num_epochs: int = Field(2, ge=1)
    num_minibatches: int = Field(4, ge=1)
    gamma: float = Field(0.995, gt=0, le=1, description="discount per decision of the same seat")
    gae_lambda: float = Field(0.95, ge=0, le=1)
    clip_eps: float = Field(0.2, gt=0)
    ent_coef: float = Field(0.01, ge=0)
    vf_coef: float = Field(0.5, ge=0)
    max_grad_norm: float = Field(0.5, gt=0)
    scan_updates: bool = Field(False, description=(
        "run the minibatch updates in a lax.scan (a small program that compiles fast: for a GPU) instead of "
        "unrolled straight-line code (several times faster per update on a CPU)"))
    update_share: float | None = Field(None, gt=0, le=1, description=(
        "the share of a rollout's decisions that each update trains on: the learner's decisions, in a random "
        "order, then (when fewer) others with weight 0; learner decisions beyond it are left out (the metric "
        "learner_decisions_left_out). None: the league's expected share of learner decisions plus 0.05 "
        "(expected_learner_share); 1: every decision, the opponents' with weight 0"))
    reward_scale: float = Field(0.1, gt=0, description="the game's score to reward units")
    win_bonus: float = Field(0.5, ge=0, description="reward units for a win, zero-sum over the seats")


class LeagueConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    weights: dict[Literal["self", "snapshot", "greedy", "random"], float] = {
        "self": 0.4, "snapshot": 0.2, "greedy": 0.3, "random": 0.1}
    snapshots: int = Field(4, ge=1, description="frozen copies of the learner kept")
    snapshot_every: int = Field(25, ge=1, description="iterations between two snapshots")
    greedy_slots: int | None = Field(None, ge=1, description=(
        "None: every game draws its opponent kind by the weights; n: the first n of num_envs games always "
        "play greedy and the others draw among the other kinds (greedy's batched form then runs on those n "
        "only, for a game whose greedy is costly)"))

    @field_validator("weights")
    @classmethod
    def _weights(cls, v):
        if not v or any(w < 0 for w in v.values()) or sum(v.values()) <= 0:
            raise ValueError("opponent weights must be non-negative and not all zero")
        return v


class TrainGames(BaseModel):
    """Which games are trained on: each new game draws a player count (and a map, where the game has maps)."""
    model_config = ConfigDict(extra="forbid")
    players: list[int] = Field([2], min_length=1)
    maps: list[str] = Field(["1"], min_length=1, description="the game's maps, where its options have a map")
    options: Any = Field(default_factory=lambda: game_spec(DEFAULT_GAME).load("options")(),
                         description="the game's other options (its own options model: expansions, rule readings, config_dir)")

    @field_validator("players")
    @classmethod
    def _players(cls, v):
        if any(p not in (2, 3, 4) for p in v):
            raise ValueError("players must be 2, 3 or 4")
        return v

    @field_validator("maps", mode="before")
    @classmethod
    def _maps(cls, v):
        return [str(m) for m in v] if isinstance(v, list) else v


class EvalConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    every_decisions: int = Field(1_000_000, ge=1, description="learner decisions between evaluations")
    games: int = Field(200, ge=2, description="games against each opponent (seats alternated)")
    players: int = Field(2, ge=2, le=4)
    map: str = "1"
    max_decisions: int = Field(3000, ge=10, description="a game's decisions at most (a bound, never reached)")

    @field_validator("map", mode="before")
    @classmethod
    def _map(cls, v):
        return str(v)


class JaxTrainConfig(BaseModel):
    """One run of the JAX trainer. Every field has a default; a config file overrides some."""
    model_config = ConfigDict(extra="forbid")
    trainer: Literal["jax"] = "jax"
    game: str = Field(DEFAULT_GAME, description="the game trained, one with a network part (agents/ppo_games.py: "
                                                 "its network, inputs and opponents)")
    name: str = Field("ppo_jax", pattern=r"^[A-Za-z0-9_.-]+$")
    seed: int = Field(0, ge=0)
    budget_minutes: float = Field(60.0, gt=0, description="wall time of the whole run, evaluations included")
    total_decisions: int = Field(50_000_000, ge=1, description="learner decisions, at most")
    games: TrainGames = Field(default_factory=TrainGames)
    ppo: PPOConfig = Field(default_factory=PPOConfig)
    network: Any = Field(None, description="the game's network sizes (its network part's model; default: its defaults)")
    league: LeagueConfig = Field(default_factory=LeagueConfig)
    eval: EvalConfig = Field(default_factory=EvalConfig)
    checkpoint_every: int = Field(50, ge=1, description="iterations between two resumable checkpoints")
    out_dir: str = "runs"

    @model_validator(mode="before")
    @classmethod
    def _game_models(cls, raw):
        """The network's and the options' models are the game's own."""
        if not isinstance(raw, dict):
            return raw
        raw = dict(raw)
        game = raw.get("game", DEFAULT_GAME)
        if not isinstance(game, str):
            return raw                                    # the field's own check says what is wrong
        model = network_config(game)                      # an unknown game, or one without a JAX PPO, raises
        network = raw.get("network")
        if network is None or isinstance(network, dict):
            raw["network"] = model.model_validate(network or {})
        games = raw.get("games", {})
        if isinstance(games, dict):
            options_model = game_spec(game).load("options")
            games = dict(games)
            options = games.get("options", {})
            games["options"] = options_model.model_validate(options) if isinstance(options, dict) else options
            raw["games"] = games
        return raw

    @model_validator(mode="after")
    def _divisible(self):
        n = self.ppo.num_envs * self.ppo.num_steps
        if n % self.ppo.num_minibatches:
            raise ValueError(f"num_envs × num_steps ({n}) must divide into num_minibatches ({self.ppo.num_minibatches})")
        if not isinstance(self.network, network_config(self.game)):
            raise ValueError(f"network: {type(self.network).__name__} is not {self.game}'s network")
        model = game_spec(self.game).load("options")
        if "players" in model.model_fields:              # the counts the game's options allow
            def allowed(p: int) -> bool:
                try:
                    model(players=p)
                except ValueError:
                    return False
                return True
            wrong = sorted(p for p in set(self.games.players) | {self.eval.players} if not allowed(p))
            if wrong:
                counts = " or ".join(str(p) for p in (2, 3, 4) if allowed(p))
                raise ValueError(f"players: {game_spec(self.game).title} is a game for {counts} players, "
                                 f"not {', '.join(map(str, wrong))}")
        slots = self.league.greedy_slots
        if slots is not None and slots >= self.ppo.num_envs:
            raise ValueError(f"league.greedy_slots ({slots}) must be below ppo.num_envs ({self.ppo.num_envs})")
        return self


def opponent_draw_weights(config: JaxTrainConfig) -> dict[str, float]:
    """The weight with which a new game draws each opponent kind: the league's, but without greedy
    when greedy has fixed slots (``league.greedy_slots``), and self-play when nothing else is left."""
    weights = {kind: config.league.weights.get(kind, 0.0) for kind in OPPONENT_KINDS}
    if config.league.greedy_slots is not None:     # the other slots draw among the other kinds
        weights["greedy"] = 0.0
        if sum(weights.values()) <= 0:
            weights["self"] = 1.0
    return weights


def opponent_shares(config: JaxTrainConfig) -> dict[str, float]:
    """Each opponent kind's expected share of a batch's games: greedy's fixed slots, the rest drawn."""
    weights = opponent_draw_weights(config)
    total = sum(weights.values())
    fixed = (config.league.greedy_slots or 0) / config.ppo.num_envs
    shares = {kind: (1 - fixed) * w / total for kind, w in weights.items()}
    shares["greedy"] += fixed
    return shares


def expected_learner_share(config: JaxTrainConfig) -> float:
    """The share of a rollout's decisions the learner takes, expected from the league: every seat
    in a self-play game, one seat in any other, over the player counts trained (each seat taking
    about as many decisions as another)."""
    p_self = opponent_shares(config)["self"]
    one_seat = sum(1 / p for p in config.games.players) / len(config.games.players)
    return p_self + (1 - p_self) * one_seat


def update_samples(config: JaxTrainConfig) -> int:
    """Decisions in one update's batch (``ppo.update_share`` of the rollout's, a multiple of the minibatches)."""
    c = config.ppo
    rollout = c.num_envs * c.num_steps
    share = c.update_share if c.update_share is not None else min(1.0, expected_learner_share(config) + 0.05)
    per_minibatch = max(1, math.ceil(rollout * share / c.num_minibatches - 1e-9))
    return min(rollout, per_minibatch * c.num_minibatches)


def learner_first(key, trained, size: int):
    """(size,) indices of a rollout's (flattened) decisions for one update: the learner's
    (``trained``) in a random order, then the others'."""
    u = jax.random.uniform(key, trained.shape)
    return jnp.argsort(jnp.where(trained, u, u + 2.0))[:size]


def snapshot_rows(config: JaxTrainConfig) -> int:
    """Rows of a rollout step on which the snapshot's network runs gathered (Trainer._snapshot_actions):
    the expected number of games where a snapshot seat is to decide, plus four standard deviations
    and one, rounded up to a multiple of 8; a step with more runs it on every row."""
    share = opponent_shares(config)["snapshot"]
    mean = config.ppo.num_envs * share * max((p - 1) / p for p in config.games.players)
    return min(config.ppo.num_envs, 8 * math.ceil((mean + 4 * math.sqrt(mean) + 1) / 8))


# ============================================================== advantages
def per_seat_advantages(rewards, values, actors, dones, gamma: float, lam: float):
    """GAE over each seat's own decisions in a rollout of interleaved turns.

    rewards (T, B, 4): every seat's reward from the transition of step t; values (T, B): the
    value of the decision at t for its actor; actors (T, B): the seat deciding at t; dones (T, B):
    the game ended at step t (the next step is a new game). Returns (advantages, targets, known),
    each (T, B): ``known`` is False for a seat's last decision of the rollout (its return is not
    complete yet), whose advantage and target are 0.
    """
    batch = rewards.shape[1]
    n_seats = rewards.shape[-1]
    seats = jnp.arange(n_seats)

    def back(carry, step):
        next_value, next_adv, acc, known = carry            # each (B, 4)
        reward, value, actor, done = step
        reset = done[:, None]
        next_value = jnp.where(reset, 0.0, next_value)
        next_adv = jnp.where(reset, 0.0, next_adv)
        acc = jnp.where(reset, 0.0, acc) + reward
        known = known | reset
        me = seats[None, :] == actor[:, None]                # (B, 4)
        take = lambda x: jnp.sum(jnp.where(me, x, 0), 1)
        is_known = take(known.astype(jnp.int32)) > 0
        delta = take(acc) + gamma * take(next_value) - value
        adv = jnp.where(is_known, delta + gamma * lam * take(next_adv), 0.0)
        next_value = jnp.where(me, value[:, None], next_value)
        next_adv = jnp.where(me, adv[:, None], next_adv)
        acc = jnp.where(me, 0.0, acc)
        known = known | me
        return (next_value, next_adv, acc, known), (adv, jnp.where(is_known, adv + value, 0.0), is_known)

    zeros = jnp.zeros((batch, n_seats), jnp.float32)
    init = (zeros, zeros, zeros, jnp.zeros((batch, n_seats), bool))
    _, (adv, targets, known) = jax.lax.scan(back, init, (rewards, values, actors, dones), reverse=True)
    return adv, targets, known


def win_shares(pg: PolicyGame, states):
    """(B, seats) float32: each seat's share of the win (1/k to each of k tied winners, 0 to the rest)."""
    first = pg.places(states) == 1
    return first / jnp.maximum(first.sum(1, keepdims=True), 1)


def shaped_rewards(pg: PolicyGame, before, after, reward_scale: float, win_bonus: float):
    """(B, seats) float32: each seat's zero-sum score change (the game's score_change: Banana Points,
    coins, Lanterns and round points), scaled, and the win bonus at the end."""
    players = pg.players(after)
    seat_in = jnp.arange(pg.seats)[None, :] < players[:, None]
    deltas = jnp.where(seat_in, pg.score_change(before, after), 0.0)
    others = (deltas.sum(1, keepdims=True) - deltas) / (players[:, None] - 1)
    zero_sum = jnp.where(seat_in, deltas - others, 0.0) * reward_scale
    share = win_shares(pg, after)
    ended = (after.terminated & ~before.terminated)[:, None]
    bonus = jnp.where(ended & seat_in, win_bonus * (share - 1.0 / players[:, None]), 0.0)
    return (zero_sum + bonus).astype(jnp.float32)


# ============================================================== the trainer
class Runner(NamedTuple):
    """Everything one iteration carries to the next (a pytree)."""
    params: Any
    opt_state: Any
    snapshots: Any             # the league's frozen params, stacked (K, ...)
    snapshot_count: jnp.ndarray  # () int32 snapshots taken so far
    states: Any                # the games being played (B)
    learner: jnp.ndarray       # (B, seats) bool seats played by the learner
    opponent: jnp.ndarray      # (B,) int32 opponent kind of each game
    key: jnp.ndarray
    iteration: jnp.ndarray     # () int32


class Transition(NamedTuple):
    inputs: Any                # (B, ...) the acting seat's network input (the game's; ``.mask`` (B, A) legal)
    action: jnp.ndarray        # (B,) int32
    logp: jnp.ndarray          # (B,) float32
    value: jnp.ndarray         # (B,) float32
    actor: jnp.ndarray         # (B,) int32
    trained: jnp.ndarray       # (B,) bool the learner decided (and had a choice)
    reward: jnp.ndarray        # (B, seats) float32
    done: jnp.ndarray          # (B,) bool


class Trainer:
    """The compiled pieces of one config: init, iteration, train, evaluate (see the module docstring)."""

    def __init__(self, config: JaxTrainConfig, jax_game=None):
        from monkey_env.games import game_spec

        self.config = config
        c = config.ppo
        base = config.games.options
        self.pg = policy_game(config.game, jax_game or game_spec(config.game).load("jax_engine")(base))
        self.jg = self.pg.engine
        self.seats = self.pg.seats
        self.net = self.pg.build_network(config.network.model_dump())
        settings = self.pg.settings(config.games)
        self.settings = jax.tree_util.tree_map(lambda *xs: jnp.stack(xs), *settings)
        self.n_settings = len(settings)
        self.greedy_slots = config.league.greedy_slots
        if not self.pg.has_greedy() and (self.greedy_slots is not None or config.league.weights.get("greedy", 0.0) > 0):
            raise ValueError("league: this engine has no batched greedy: set league.weights.greedy to 0 and no "
                             "greedy_slots")
        draw = opponent_draw_weights(config)
        weights = jnp.asarray([draw[k] for k in OPPONENT_KINDS], jnp.float32)
        self.opponent_logits = jnp.log(weights / weights.sum())
        # a league without greedy games does not compile greedy into the rollout (evaluate does)
        self.rollout_greedy = self.greedy_slots is not None or config.league.weights.get("greedy", 0.0) > 0
        self.samples = c.num_envs * c.num_steps
        self.update_samples = update_samples(config)
        self.snapshot_rows = snapshot_rows(config)
        self.minibatch = self.update_samples // c.num_minibatches
        iterations = max(1, config.total_decisions // self.samples)
        schedule = (optax.linear_schedule(c.learning_rate, 0.0, iterations * c.num_epochs * c.num_minibatches)
                    if c.anneal_lr else c.learning_rate)
        self.optimizer = optax.chain(clip_by_flat_norm(c.max_grad_norm), optax.adam(schedule, eps=1e-5))
        self._random = random_legal_actions()
        self.traces = 0                          # times `iteration` was traced (tests check it is 1)
        self.iteration = jax.jit(self._iteration)
        self.new_games = jax.jit(self.fresh_games)
        self.train = jax.jit(self._train, static_argnums=1)
        self.evaluate = jax.jit(self._evaluate, static_argnums=3)

    # ------------------------------------------------------------ set-up
    def init_params(self, key):
        return self.pg.init_params(self.config.network.model_dump(), key)

    def init(self, key, params=None) -> Runner:
        key, k_net, k_games = jax.random.split(key, 3)
        params = self.init_params(k_net) if params is None else params
        k = self.config.league.snapshots
        snapshots = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (k,) + x.shape), params)
        states, learner, opponent = self._shard(self._new_games(k_games, self.config.ppo.num_envs))
        return Runner(params=params, opt_state=self.optimizer.init(params), snapshots=snapshots,
                      snapshot_count=jnp.int32(0), states=states, learner=learner, opponent=opponent, key=key,
                      iteration=jnp.int32(0))

    def _new_games(self, key, batch: int, opponent=None):
        """A batch of fresh games: settings, the learner's seats and the opponent kind of each."""
        k_set, k_deal, k_opp, k_seat = jax.random.split(key, 4)
        which = jax.random.randint(k_set, (batch,), 0, self.n_settings)
        params = jax.tree_util.tree_map(lambda x: x[which], self.settings)
        states = self.jg.batch_init(jax.random.split(k_deal, batch), params)
        if opponent is None:
            opponent = jax.random.categorical(k_opp, self.opponent_logits, shape=(batch,)).astype(jnp.int32)
            if self.greedy_slots is not None:
                opponent = jnp.where(jnp.arange(batch) < self.greedy_slots, GREEDY, opponent).astype(jnp.int32)
        players = self.pg.players(states)
        seat = jax.random.randint(k_seat, (batch,), 0, players)
        seats = jnp.arange(self.seats)[None, :]
        learner = jnp.where((opponent == SELF)[:, None], seats < players[:, None], seats == seat[:, None])
        return states, learner, opponent

    # ------------------------------------------------------------ acting
    def policy(self, params, inputs):
        """(logits masked, value) for a batch of inputs."""
        logits, value = self.net.apply(params, inputs)
        return masked_logits(logits, inputs.mask), value

    def _act(self, params, snapshot, states, learner, opponent, key, deterministic: bool = False, greedy_slots=None,
             with_greedy: bool = True):
        """Every game's decision: the learner's where it sits, the opponent's elsewhere."""
        with_greedy = with_greedy and self.pg.has_greedy()   # without one no row is greedy's (refused above)
        masks = self.jg.batch_legal_mask(states)
        actor = states.current
        mine = jnp.take_along_axis(learner, actor[:, None], 1)[:, 0]
        kind = jnp.where(mine, SELF, opponent)
        k_me, k_snap, k_rand = jax.random.split(key, 3)
        needs_greedy = (kind == GREEDY) & masks.any(1) & with_greedy
        exact = (kind == SELF) | (kind == SNAPSHOT)
        inputs, aux = self.pg.inputs(states, masks, exact | needs_greedy if self.pg.greedy_needs_inputs() else exact)
        logits, value = self.policy(params, inputs)
        sampled = jax.random.categorical(k_me, logits).astype(jnp.int32)
        action = jnp.argmax(logits, -1).astype(jnp.int32) if deterministic else sampled
        logp = jnp.take_along_axis(jax.nn.log_softmax(logits), action[:, None], 1)[:, 0]

        snap = self._snapshot_actions(snapshot, inputs, (kind == SNAPSHOT) & masks.any(1), k_snap)
        greedy = (self._greedy(states, masks, aux, jax.random.fold_in(k_rand, 1), needs_greedy, greedy_slots)
                  if with_greedy else jnp.zeros_like(action))
        chosen = jnp.select([kind == SELF, kind == SNAPSHOT, kind == GREEDY], [action, snap, greedy],
                            self._random(k_rand, masks))
        chosen = jnp.where(masks.any(1), chosen, 0)
        return chosen, inputs, logp, value, mine & masks.any(1)

    def _snapshot_actions(self, snapshot, inputs, rows, key):
        """The frozen copy's sampled action in ``rows`` (B,) bool (0 elsewhere). A few rows need
        it at a time, so its network runs on those rows gathered, ``snapshot_rows`` of them, or
        on every row when more need it (then the same as gathered; none: no network)."""
        n, k = rows.shape[0], min(rows.shape[0], self.snapshot_rows)

        def draw(logits, at):          # each row's draw keyed by its row: the same gathered or not
            keys = jax.vmap(jax.random.fold_in, (None, 0))(key, at)
            return jax.vmap(jax.random.categorical)(keys, logits).astype(jnp.int32)

        def gathered(_):
            idx = jnp.argsort(~rows, stable=True)[:k]          # the rows that need it first
            logits, _ = self.policy(snapshot, jax.tree_util.tree_map(lambda x: x[idx], inputs))
            return jnp.zeros(n, jnp.int32).at[idx].set(draw(logits, idx))

        def every_row(_):
            logits, _ = self.policy(snapshot, inputs)
            return draw(logits, jnp.arange(n))

        count = rows.sum()
        branch = jnp.where(count == 0, 0, jnp.where(count <= k, 1, 2))
        return jax.lax.switch(branch, [lambda _: jnp.zeros(n, jnp.int32), gathered, every_row], None)

    def _greedy(self, states, masks, aux, key, needs, slots):
        """Greedy's decision in every row that needs one (with ``slots``: computed on the first ``slots`` rows only)."""
        g = slots
        if g is None or self.pg.greedy_needs_inputs():
            return self.pg.greedy(states, masks, aux, key, needs)
        head = lambda x: x[:g]
        part = self.pg.greedy(jax.tree_util.tree_map(head, states), masks[:g],
                              jax.tree_util.tree_map(head, aux), key, needs[:g])
        return jnp.zeros(masks.shape[0], jnp.int32).at[:g].set(part)

    # ------------------------------------------------------------ one iteration
    def _shard(self, games):
        """On several devices of one machine, the games' batch axis is split over them (the
        compiled iteration follows the inputs' sharding); on one device, nothing changes."""
        devices = jax.devices()
        if len(devices) == 1 or self.config.ppo.num_envs % len(devices):
            return games
        from jax.sharding import Mesh, NamedSharding, PartitionSpec
        sharding = NamedSharding(Mesh(devices, ("games",)), PartitionSpec("games"))
        return jax.device_put(games, sharding)

    def fresh_games(self, key):
        """The games that replace finished ones during the next rollout (each slot at most once);
        a program of its own, so the engine's set-up is not compiled into every iteration."""
        return self._new_games(key, self.config.ppo.num_envs)

    def _rollout(self, runner: Runner, fresh):
        c = self.config.ppo
        key, k_pick = jax.random.split(runner.key)
        filled = jnp.clip(runner.snapshot_count, 1, self.config.league.snapshots)
        pick = jax.random.randint(k_pick, (), 0, filled)
        snapshot = jax.tree_util.tree_map(lambda x: x[pick], runner.snapshots)
        fresh, fresh_learner, fresh_opponent = fresh

        def step(carry, _):
            states, learner, opponent, used, key = carry
            key, k_act = jax.random.split(key)
            action, inputs, logp, value, trained = self._act(runner.params, snapshot, states, learner, opponent, k_act,
                                                             greedy_slots=self.greedy_slots, with_greedy=self.rollout_greedy)
            actor = states.current
            after = self.jg.batch_step(states, action)
            reward = shaped_rewards(self.pg, states, after, c.reward_scale, c.win_bonus)
            done = after.terminated & ~states.terminated
            replace = done & ~used
            pick_b = lambda a, b: jax.tree_util.tree_map(
                lambda x, y: jnp.where(replace.reshape((-1,) + (1,) * (x.ndim - 1)), x, y), a, b)
            states = pick_b(fresh, after)
            learner = jnp.where(replace[:, None], fresh_learner, learner)
            opponent = jnp.where(replace, fresh_opponent, opponent)
            out = Transition(inputs=inputs, action=action, logp=logp, value=value, actor=actor,
                             trained=trained, reward=reward, done=done)
            return (states, learner, opponent, used | replace, key), out

        carry = (runner.states, runner.learner, runner.opponent, jnp.zeros(c.num_envs, bool), key)
        (states, learner, opponent, _, key), traj = jax.lax.scan(step, carry, None, length=c.num_steps)
        return runner._replace(states=states, learner=learner, opponent=opponent, key=key), traj

    def _loss(self, params, batch, adv, target):
        c = self.config.ppo
        logits, value = self.policy(params, batch.inputs)
        logp_all = masked_log_softmax(logits, batch.inputs.mask)
        logp = jnp.take_along_axis(logp_all, batch.action[:, None], 1)[:, 0]
        w = batch.trained.astype(jnp.float32)
        n = jnp.maximum(w.sum(), 1.0)
        mean = (adv * w).sum() / n
        std = jnp.sqrt((((adv - mean) ** 2) * w).sum() / n + 1e-8)
        norm_adv = (adv - mean) / std
        ratio = jnp.exp(logp - batch.logp)
        pg = -jnp.minimum(ratio * norm_adv, jnp.clip(ratio, 1 - c.clip_eps, 1 + c.clip_eps) * norm_adv)
        v_loss = 0.5 * (value - target) ** 2
        entropy = masked_entropy(logits, batch.inputs.mask)
        total = ((pg + c.vf_coef * v_loss - c.ent_coef * entropy) * w).sum() / n
        clipped = (jnp.abs(ratio - 1) > c.clip_eps).astype(jnp.float32)
        return total, {"policy_loss": (pg * w).sum() / n, "value_loss": (v_loss * w).sum() / n,
                       "entropy": (entropy * w).sum() / n, "clip_fraction": (clipped * w).sum() / n,
                       "approx_kl": (((ratio - 1) - (logp - batch.logp)) * w).sum() / n}

    def _iteration(self, runner: Runner, fresh):
        """One iteration: the rollout (``fresh``: :meth:`fresh_games`), the advantages, the update."""
        self.traces += 1
        runner, traj = self._rollout(runner, fresh)
        return self._update(runner, traj)

    def _update(self, runner: Runner, traj: Transition):
        """The per-seat advantages of a rollout and ``num_epochs`` passes of minibatch updates."""
        c = self.config.ppo
        adv, target, known = per_seat_advantages(traj.reward, traj.value, traj.actor, traj.done, c.gamma, c.gae_lambda)
        traj = traj._replace(trained=traj.trained & known)
        flat = jax.tree_util.tree_map(lambda x: x.reshape((self.samples,) + x.shape[2:]), (traj, adv, target))
        grad_fn = jax.value_and_grad(self._loss, has_aux=True)
        # The update's batch is the learner's decisions, in a random order (the opponents' would
        # cost a gradient each and weigh 0): the first `update_samples` of them, or all of them
        # and others (weight 0) after. The epochs and minibatches are unrolled in Python unless
        # `scan_updates`: XLA on a CPU runs a network's gradient several times slower inside a
        # loop's body (one update of 512 decisions: 3.8 s in a scan of length 1, 0.64 s as
        # straight-line code, measured), while on a GPU the unrolled program takes minutes to compile.
        key, k_batch, k_epochs = jax.random.split(runner.key, 3)
        is_learner = flat[0].trained
        chosen = learner_first(k_batch, is_learner, self.update_samples)
        perms = jnp.stack([chosen[jax.random.permutation(k, self.update_samples)].reshape(c.num_minibatches, self.minibatch)
                           for k in jax.random.split(k_epochs, c.num_epochs)]).reshape(-1, self.minibatch)

        def update(carry, idx):
            params, opt_state = carry
            batch, a, t = jax.tree_util.tree_map(lambda x: x[idx], flat)
            (_, info), grads = grad_fn(params, batch, a, t)
            updates, opt_state = self.optimizer.update(grads, opt_state, params)
            return (optax.apply_updates(params, updates), opt_state), info

        carry = (runner.params, runner.opt_state)
        if c.scan_updates:
            (params, opt_state), info = jax.lax.scan(update, carry, perms)
        else:
            infos = []
            for idx in perms:
                carry, step_info = update(carry, idx)
                infos.append(step_info)
            (params, opt_state), info = carry, jax.tree_util.tree_map(lambda *xs: jnp.stack(xs), *infos)
        # The league: every `snapshot_every` iterations the current learner joins the snapshots.
        iteration = runner.iteration + 1
        take = (iteration % self.config.league.snapshot_every) == 0
        slot = runner.snapshot_count % self.config.league.snapshots
        snapshots = jax.tree_util.tree_map(
            lambda s, p: jnp.where(take, s.at[slot].set(p), s), runner.snapshots, params)
        runner = runner._replace(params=params, opt_state=opt_state, key=key, iteration=iteration,
                                 snapshots=snapshots, snapshot_count=runner.snapshot_count + take)
        in_batch = is_learner[chosen].sum()
        trained = traj.trained.astype(jnp.float32)
        metrics = {k: v.mean() for k, v in info.items()}
        metrics.update(learner_decisions=in_batch.astype(jnp.float32), learner_decisions_left_out=trained.sum() - in_batch,
                       decisions=(traj.inputs.mask.any(-1)).sum(),
                       games_ended=traj.done.sum(), mean_value=(traj.value * trained).sum() / jnp.maximum(trained.sum(), 1),
                       mean_reward=traj.reward.sum() / jnp.maximum(traj.done.sum(), 1))
        return runner, metrics

    def _train(self, runner: Runner, iterations: int):
        """``iterations`` iterations as one pure program (PureJaxRL's ``train``): vmap it over keys for seeds."""
        def one(runner, _):
            key, k_fresh = jax.random.split(runner.key)
            return self._iteration(runner._replace(key=key), self.fresh_games(k_fresh))
        return jax.lax.scan(one, runner, None, length=iterations)

    # ------------------------------------------------------------ evaluation
    def _evaluate(self, params, opponent_params, opponent: int, games: int, key):
        """Win share of the learner (deterministic) against one opponent kind, seats alternated,
        on the evaluation's player count and map. opponent: GREEDY, RANDOM or SNAPSHOT (opponent_params)."""
        e = self.config.eval
        one = self.pg.eval_params(self.config.games, e)
        params_game = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (games,) + x.shape), one)
        k_deal, k_play = jax.random.split(key)
        states = self.jg.batch_init(jax.random.split(k_deal, games), params_game)
        seat = jnp.arange(games) % e.players
        learner = jnp.arange(self.seats)[None, :] == seat[:, None]
        kinds = jnp.full((games,), opponent, jnp.int32)   # traced: one program for every opponent

        def cond(carry):
            states, _, n = carry
            return (~states.terminated).any() & (n < e.max_decisions)

        def body(carry):
            states, key, n = carry
            key, k = jax.random.split(key)
            action, *_ = self._act(params, opponent_params, states, learner, kinds, k, deterministic=True)
            return self.jg.batch_step(states, action), key, n + 1

        states, _, _ = jax.lax.while_loop(cond, body, (states, k_play, jnp.int32(0)))
        share = win_shares(self.pg, states)
        return jnp.sum(jnp.where(learner, share, 0.0)) / games


def make_train(config: JaxTrainConfig, jax_game=None) -> Trainer:
    """The trainer of a config (PureJaxRL's ``make_train``): ``init(key)``, ``iteration(runner)``,
    ``train(runner, n)`` and ``evaluate(...)``, each compiled once per config."""
    return Trainer(config, jax_game)
