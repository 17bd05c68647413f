"""The search agent: Gumbel MuZero tree search (DeepMind's ``mctx``) over the JAX engine.

    agent = make_agent("mcts:sims=32,det=1")        # or MCTSAgent(MCTSSettings(sims=32), seed=0)
    actions = agent.act_batch(jax_game, states, masks, key)   # every game of the batch searched at once

**The model is the engine.** A tree node's embedding is the game's State (plus the node's
candidate actions and the searching seat); expanding a node is one ``JaxGame.batch_step`` of
the whole batch of searches, so the tree's transitions are the rules themselves.

**A narrow tree.** An action space can be wide (Monkey Palace's is 2,438: 1,024 anchor studs,
1,392 shapes, the small decisions). Each node keeps only its ``width`` best legal actions by prior (all of them at the
small decisions: buying, slots, the monkey, the frog), so the tree's arrays are (batch, nodes,
width) instead of (batch, nodes, 2,438); at the root Gumbel's sequential halving considers
``considered`` of them. A padding candidate repeats the best one and is masked (its prior is
the lowest float), so the engine never sees an illegal action.

**Any game.** The search reads a game through its parts (monkey_env.games): its JAX engine
(``batch_step``, ``batch_legal_mask``), its PPO's PolicyGame (agents/ppo_games.py: the player
count, places and score change, as the PPO's reward counts them) and its ``search`` part
(monkey_env.core.search_hooks.SearchHooks, in the game's own folder: the redraw of what a seat
cannot see, and a greedy prior where the game has one). Nothing here names a game
(tests/test_game_boundaries.py). A game's search part is all a new game adds.

**No peeking.** Before searching, each determinization redraws what the searching seat cannot
see with the game's ``redraw(state, seat, key)`` (Monkey Palace: the order of the cards under
the pile tops; The Shadow Theater: the other hand, the deck and the cards set aside, the scrolls
not seen and later rounds; Forbidden City: every stack's order and the other seats' held
tiles). A redraw is a function of the seat's view and the key only: the seat's ``observe`` is
the same before and after (tests/test_mcts_games.py), and two states that differ only in what
is hidden search the same tree (tests/games/monkey_palace/test_mcts.py). With ``det`` > 1 the searches of several
redraws are combined at the root: visits summed, completed Q-values averaged, and mctx's own
final rule applied to them (among the most visited actions, the best Gumbel noise + prior
logit + scaled Q).

**Values for several decisions per turn and 2-4 players.** ``mctx`` backs up one scalar with a
per-step ``discount``: Q(s, a) = r + discount * V(s'), each from the view of the player to move
at its node. The utility is zero-sum, "the searching seat against the mean of the others":
u = points(root seat) - mean(points of the other seats), counted from the root on. A node
where the root seat moves holds u; a node where another seat moves holds -u: the other seats
are taken to play against the searching seat together (the "paranoid" reading of a
multi-player game; with 2 players it is the usual zero-sum negamax exactly). So an edge's
reward is +-(change of u) by who moved, and the discount is +1 while the same side moves (the
several decisions of one turn; one opponent's turn followed by another's) and -1 where the
side changes; 0 at the end of the game. tests/games/monkey_palace/test_mcts.py checks it on a hand-made 3-player
tree.

**Or: the other seats played by the prior** (``opponents=policy``). The tree then holds the
searching seat's decisions only: after each of its actions that hands the turn on, the other
seats' decisions are played by the prior's best legal action (the opponent model: the PPO
policy's argmax by default) until the searching seat is to move again or the game ends, all in
one edge (:func:`play_opponents`). Every node is then the searching seat's, so its value is the
network's own value of that seat, with no conversion, the discount is +1 (0 at the end), and an
edge's reward is the change of u over the searching seat's action and the other seats'
decisions after it (:func:`policy_backup_terms`). With 4 players this replaces the paranoid
reading by "the others play as the policy does", the usual opponent model of multi-player
search; the price is that every simulation that ends a turn plays the other seats' turns (the
batch waits for its longest), several network calls each.

**By default (``opponents=auto``) the tree with 2 players, the policy's replies with 3 or 4**:
each game of a batch is searched with its own player count's model (one compiled program per
model). With 4 players another seat's value barely predicts the searching seat's future
(experiments/value_calibration.py: correlation -0.05, where the seat's own value has 0.52), so
the paranoid tree's leaves past the end of the turn are noise; with the policy's replies every
leaf is the searching seat's own. The policy's replies won the 4-player tournament, the tree
tied (docs/AGENTS.md).

**Prior and value, pluggable.** ``prior_value(states) -> (logits (B, A) float32, value (B,)
float32)``, jittable: the value is the predicted future zero-sum score of the seat to
move (its points from now to the end minus the mean of the other seats', plus the win bonus in
the same units). Where a seat other than the searching one moves, its value v is turned into
the node's -u as v * (players - 1) (the seats' utilities sum to zero; with 2 players that is v
itself). By default (``prior=ppo``) they are the shipped PPO checkpoint's policy logits and
value head (``JaxPPOAgent.prior_value``: its value is the seat to move's, divided by the run's
reward scale); the edge that ends the game adds ``win_points`` x (the root seat's share of the
win - 1 / players), the PPO's win bonus in the same units, so the tree's ends and its value
agree. ``prior=greedy`` needs no network: a game's greedy prior (its search part; Monkey Palace's
greedy_prior_value, monkey_env/monkey_palace/apps/search.py), greedy's one-turn scores
as the prior, and as value what the mover still gets this turn by greedy's estimate minus
``turn_points`` (one turn's expected points) for each seat still to play in the round, so that
every node's value counts the same horizon, the end of the round.

**Calibrated values** (``value=fitted``). The network's value v is its mover's; reading it as
the searching seat's u is a model too. ``raw`` takes u = v at the searching seat's nodes and
u = -v x (players - 1) at the others' (above). ``fitted`` takes E[u | v], a straight line per
player count and node kind measured on games (agents/value_calibration.py,
experiments/value_calibration.py): with 4 players another seat's value barely predicts the
searching seat's future, so its line is nearly flat, and the shipped value's slope at its own
nodes is 0.68 to 0.77 (it overstates differences, so the exact rewards on the edges weigh
more). Measured, it does not play better than ``raw`` (docs/AGENTS.md): ``raw`` is the default.

**Or: values read after the prior's replies** (``rollout=N``). Each new node's value is read
after N more decisions of every seat by the prior's best legal action (:func:`rollout_utility`):
the points gained on the way, plus the win's worth where the game ends, else the network's value
at the last state. In a redrawn deal against an opponent that plays the prior's argmax (the
``ppo`` agent), a rollout to the game's end (N above its length) is the rules' exact outcome of
that line, where the value head only guesses; each simulation then costs up to N more network
calls and engine steps.

**No noise by default.** ``gumbel`` scales the root's Gumbel noise (mctx's ``gumbel_scale``);
it is 0 by default, mctx's advice for evaluation: the search is then deterministic for a given
state and redraw, and sequential halving considers the best ``considered`` actions by prior.

Deterministic for a given key (``act_batch``) or seed (``act``): each game's randomness comes
from ``fold_in(key, row)``, so its search does not depend on the other games of the batch.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from functools import partial

import numpy as np

from monkey_env.agents.value_calibration import RAW, ValueCalibration, calibration_path
from monkey_env.games import DEFAULT_GAME

NAME = "mcts"
# The prior of a masked (illegal or padding) candidate: mctx's own choice for masked logits.
MASKED_LOGIT = float(np.finfo(np.float32).min)


PRIORS = ("ppo", "greedy", "uniform")
OPPONENTS = ("auto", "tree", "policy")
VALUES = ("raw", "fitted")
# The most decisions of other seats one edge of an ``opponents=policy`` tree plays (three whole
# turns of 4 players stay far below it; it only bounds the loop).
MAX_OPPONENT_DECISIONS = 96


def _show(value) -> str:
    return value if isinstance(value, str) else f"{value:g}"


@dataclass(frozen=True)
class MCTSSettings:
    """What ``mcts:key=value,...`` sets (the defaults fit one second per decision, batched, on a 2-core CPU)."""

    sims: int = 32              # simulations per decision (per determinization)
    det: int = 1                # determinizations: redraws of the hidden pile order, results combined
    depth: int = 0              # maximum tree depth, 0 = no limit beyond the simulations
    temp: float = 0.0           # 0: the search's choice; > 0: draw from its improved policy ** (1 / temp)
    gumbel: float = 0.0         # scale of the root's Gumbel noise (mctx's gumbel_scale; 0: none, for play)
    prior: str = "ppo"          # prior and value: "ppo" (the game's shipped checkpoint), "greedy" (no
    #                             network, a game's greedy prior) or "uniform" (every legal action alike, value 0)
    opponents: str = "auto"     # "tree": the other seats' decisions are searched too (paranoid);
    #                             "policy": they are played by the prior's best action, and the tree
    #                             holds the searching seat's decisions only (see the module docstring);
    #                             "auto": the tree with 2 players, the policy with 3 or 4 (the best
    #                             measured for each, docs/AGENTS.md); a game's own ``mcts_settings``
    #                             may choose otherwise (core/search_hooks.py)
    value: str = "raw"          # "raw": the network's value as it is; "fitted": E[u | value] measured
    #                             on games (ValueCalibration, experiments/value_calibration.py)
    width: int = 32             # candidate actions kept per node (the best by prior)
    considered: int = 16        # actions Gumbel's sequential halving considers at the root
    chunk: int = 32             # games searched together (the compiled batch is chunk * det)
    win_points: float = -1.0    # a win's worth in the game's score at its end; < 0: the game's PPO
    #                             checkpoint's win_bonus / reward_scale (so the tree's ends agree with
    #                             its value; 5 with Monkey Palace's), or 5 without one
    turn_points: float = 4.0    # the greedy prior's estimate of one turn's points (a game's greedy_prior_value)
    capacity: int = 256         # tree nodes - 1 (at least sims); searches of up to that many
    #                             simulations share one compiled program (the count is traced)
    rollout: int = 0            # decisions played by the prior's best action from each new node
    #                             before its value is read (0: the node's own value; see rollout_utility)

    @property
    def nodes(self) -> int:
        return max(self.capacity, self.sims)

    @classmethod
    def parse(cls, text: str) -> MCTSSettings:
        """Settings from ``"sims=64,det=2"`` (empty: the defaults); unknown keys are refused."""
        known = {f.name: f.type for f in fields(cls)}
        values: dict = {}
        for item in filter(None, (p.strip() for p in text.split(","))):
            key, sep, raw = item.partition("=")
            key = key.strip()
            if not sep or key not in known:
                raise ValueError(f"mcts setting {item!r}: expected key=value with key one of {', '.join(known)}")
            if known[key] == "str":
                values[key] = raw.strip()
                continue
            try:
                values[key] = float(raw) if known[key] == "float" else int(raw)
            except ValueError:
                raise ValueError(f"mcts setting {key}={raw!r} is not a number") from None
        settings = cls(**values)
        settings.check()
        return settings

    def check(self) -> None:
        if self.sims < 1 or self.det < 1 or self.width < 2 or self.considered < 1 or self.chunk < 1:
            raise ValueError(f"mcts settings out of range: {self}")
        if self.capacity < 0:
            raise ValueError(f"mcts settings: capacity must be >= 0 ({self})")
        if self.depth < 0 or self.temp < 0 or self.gumbel < 0 or self.rollout < 0:
            raise ValueError(f"mcts settings: depth, temp, gumbel and rollout must be >= 0 ({self})")
        if self.prior not in PRIORS:
            raise ValueError(f"mcts setting prior={self.prior!r}: expected one of {', '.join(PRIORS)}")
        if self.opponents not in OPPONENTS:
            raise ValueError(f"mcts setting opponents={self.opponents!r}: expected one of {', '.join(OPPONENTS)}")
        if self.value not in VALUES:
            raise ValueError(f"mcts setting value={self.value!r}: expected one of {', '.join(VALUES)}")
        if self.value == "fitted" and self.prior != "ppo":
            raise ValueError("mcts setting value=fitted: the calibration is the PPO value's (prior=ppo)")

    def spec(self) -> str:
        """The agent's name: ``mcts`` plus the settings that differ from the defaults."""
        default = MCTSSettings()
        changed = [f"{f.name}={_show(getattr(self, f.name))}" for f in fields(self)
                   if getattr(self, f.name) != getattr(default, f.name)]
        return NAME + (":" + ",".join(changed) if changed else "")


# ==================================================================== the value backup
def side(seat, root_seat):
    """+1 where the searching seat moves, -1 where another seat does."""
    import jax.numpy as jnp
    return jnp.where(seat == root_seat, 1.0, -1.0)


def root_utility(points, root_seat, players):
    """(B,) the root seat's points minus the mean of the other seats' (points: (B, 4) per seat)."""
    import jax.numpy as jnp
    seats = jnp.arange(points.shape[-1])[None, :]
    present = seats < players[:, None]
    mine = jnp.take_along_axis(points, root_seat[:, None], axis=1)[:, 0]
    others = jnp.sum(jnp.where(present & (seats != root_seat[:, None]), points, 0.0), -1)
    return mine - others / (players - 1)


def backup_terms(mover, next_mover, rewards, terminated, mover_value, root_seat, players, shares=None,
                 win_points: float = 0.0, calibration: ValueCalibration = RAW):
    """What mctx needs for one edge: (reward, discount, node value), all (B,) float32.

    mover: seat that acted; next_mover: seat to move at the new node; rewards: (B, 4) each
    seat's points gained on the edge; mover_value: the new node's value from its mover's view
    (future zero-sum points, as prior_value gives); shares: (B, 4) each seat's share of the win
    where the edge ends the game (the root seat's share - 1 / players, times ``win_points``, is
    added to the utility there, as the PPO's reward adds its win bonus); calibration: how a
    value is read as u (RAW: u = v for the searching seat, u = -(players - 1) v for another)."""
    import jax.numpy as jnp
    s_from, s_to = side(mover, root_seat), side(next_mover, root_seat)
    utility = root_utility(rewards, root_seat, players)
    if shares is not None:
        mine = jnp.take_along_axis(shares, root_seat[:, None], axis=1)[:, 0]
        utility = utility + jnp.where(terminated, win_points * (mine - 1.0 / players), 0.0)
    reward = s_from * utility
    discount = jnp.where(terminated, 0.0, s_from * s_to)
    # Raw: the seats' utilities sum to zero, so the other seats share -u: one of them, v, stands
    # for -u as v * (players - 1) (exact with 2 players; with more, as if the others were alike).
    # A node where another seat moves holds -u.
    value = jnp.where(next_mover == root_seat, calibration.own(mover_value, players),
                      -calibration.other(mover_value, players))
    return reward.astype(jnp.float32), discount.astype(jnp.float32), jnp.where(terminated, 0.0, value).astype(jnp.float32)


def play_prior(jax_game, prior_value, states, logits, value, playing, score_change):
    """Play the prior's best legal action in every game of the batch while ``playing(state,
    decisions played) -> (B,) bool`` holds. states: (B,) with their prior (logits, value).
    Returns (states, logits, value, points (B, seats) each seat's points gained on the way
    (score_change of each decision, read before the state moves on), decisions (B,) int32)."""
    import jax
    import jax.numpy as jnp

    def running(carry):
        st, _, _, _, n = carry
        return playing(st, n)

    def body(carry):
        st, lg, v, points, n = carry
        active = running(carry)
        masks = jax_game.batch_legal_mask(st)
        nxt = jax_game.batch_step(st, jnp.argmax(jnp.where(masks, lg, -jnp.inf), -1).astype(jnp.int32))
        nlg, nv = prior_value(nxt)
        keep = lambda new, old: jnp.where(active.reshape(active.shape + (1,) * (new.ndim - 1)), new, old)
        gained = jnp.where(active[:, None], score_change(st, nxt), 0.0)
        st = jax.tree_util.tree_map(keep, nxt, st)
        return st, keep(nlg, lg), keep(nv, v), points + gained, n + active.astype(jnp.int32)

    carry = (states, logits, value, jnp.zeros_like(score_change(states, states)),
             jnp.zeros(states.terminated.shape, jnp.int32))
    return jax.lax.while_loop(lambda c: running(c).any(), body, carry)


def play_opponents(jax_game, prior_value, states, logits, value, root_seat, limit: int = MAX_OPPONENT_DECISIONS,
                   score_change=None):
    """Play the other seats' decisions by the prior's best legal action until the searching seat
    is to move again or the game ends (the ``opponents=policy`` model). states: (B,) after the
    searching seat's action, with its prior (logits, value). Returns (states, logits, value,
    points (B, seats) each seat's points gained on the way, decisions (B,) int32 played)."""
    score_change = score_change or (lambda before, after: after.rewards)
    return play_prior(jax_game, prior_value, states, logits, value,
                      lambda st, n: ~st.terminated & (st.current != root_seat) & (n < limit), score_change)


def rollout_utility(jax_game, prior_value, states, logits, value, root_seat, steps: int, score_change, places,
                    players, win_points: float = 0.0, calibration: ValueCalibration = RAW):
    """(B,) float32 a node's value as the searching seat's u, read after playing ``steps``
    decisions of every seat by the prior's best legal action (the ``rollout`` setting): the
    points gained on the way, the win's worth if the game ends, else the value at the last state
    (as backup_terms reads it). The search plays against its own prior's replies, so a leaf's
    value is then mostly the rules' exact outcome in the redrawn deal rather than the network's
    guess. states: (B,) a new node, not ended, with its prior (logits, value)."""
    import jax.numpy as jnp

    end, _, v, points, _ = play_prior(jax_game, prior_value, states, logits, value,
                                      lambda st, n: ~st.terminated & (n < steps), score_change)
    n = players(end)
    shares = jnp.take_along_axis(win_shares(places(end)), root_seat[:, None], axis=1)[:, 0]
    tail = jnp.where(end.terminated, win_points * (shares - 1.0 / n),
                     jnp.where(end.current == root_seat, calibration.own(v, n), calibration.other(v, n)))
    return (root_utility(points, root_seat, n) + tail).astype(jnp.float32)


def policy_backup_terms(rewards, points, terminated, next_mover, mover_value, root_seat, players, shares=None,
                        win_points: float = 0.0, calibration: ValueCalibration = RAW):
    """One edge of an ``opponents=policy`` tree, all from the searching seat's view: (reward,
    discount, node value). rewards: (B, 4) the searching seat's step; points: (B, 4) the other
    seats' decisions after it (play_opponents); the node's mover is the searching seat (its
    value as prior_value gives it) unless the loop's limit stopped it first."""
    import jax.numpy as jnp
    utility = root_utility(rewards + points, root_seat, players)
    if shares is not None:
        mine = jnp.take_along_axis(shares, root_seat[:, None], axis=1)[:, 0]
        utility = utility + jnp.where(terminated, win_points * (mine - 1.0 / players), 0.0)
    value = jnp.where(next_mover == root_seat, calibration.own(mover_value, players),
                      calibration.other(mover_value, players))
    discount = jnp.where(terminated, 0.0, 1.0)
    return utility.astype(jnp.float32), discount.astype(jnp.float32), jnp.where(terminated, 0.0, value).astype(jnp.float32)


def win_shares(places):
    """(B, seats) float32 each seat's share of the win (1/k to each of k tied winners), as the PPO's
    reward; places: (B, seats) 1 = winner."""
    import jax.numpy as jnp
    first = places == 1
    return (first / jnp.maximum(first.sum(1, keepdims=True), 1)).astype(jnp.float32)


# ==================================================================== the search
def _node(state, candidates, root_seat):
    """A tree node's embedding: the game state, the node's candidate actions (B, width) int32
    and the searching seat (B,) int32."""
    return {"state": state, "candidates": candidates, "root_seat": root_seat}


def score_considered(visits, gumbel, logits, q, target=None):
    """mctx's seq_halving.score_considered: among the actions visited ``target`` times (default:
    the most visited), the best Gumbel noise + prior logit + scaled completed Q; with the most
    visited, Gumbel MuZero's final choice."""
    import jax.numpy as jnp
    logits = logits - jnp.max(logits, axis=-1, keepdims=True)
    target = visits.max(-1, keepdims=True) if target is None else target
    penalty = jnp.where(visits == target, 0.0, -jnp.inf)
    return jnp.maximum(-1e9, gumbel + logits + q) + penalty


def visit_table(considered: int, sims: int, nodes: int) -> np.ndarray:
    """(considered + 1, nodes) int32: sequential halving's visits of each considered action
    before each simulation (mctx's table for ``sims`` simulations), padded to ``nodes``."""
    from mctx._src.seq_halving import get_table_of_considered_visits

    table = np.zeros((considered + 1, nodes), np.int32)
    table[:, :sims] = np.asarray(get_table_of_considered_visits(considered, sims), np.int32).reshape(considered + 1, sims)
    return table


def build_search(jax_game, settings: MCTSSettings, prior_value: Callable, calibration: ValueCalibration = RAW,
                 game=None):
    """The jit-compiled search of a chunk of games: (states, masks, keys, root logits, root
    value) -> (actions (C,) int32, root visit counts (C, width), candidates (C, width)). The
    root's prior and value (``prior_value(states)``, public information only, shared by the
    redraws) come in computed by their own program: it compiles once for every setting, and the
    search program, already the slowest to compile, does not hold a second copy of it.
    calibration: how the values are read as the searching seat's u (agents/value_calibration.py).
    game: the game's :class:`SearchGame` (its redraw, players, places, score change)."""
    import jax
    import jax.numpy as jnp
    import mctx

    sg = game

    # a node's candidates: at most the game's whole action space (The Shadow Theater has 29 actions)
    jg, K, D = jax_game, min(settings.width, int(jax_game.num_actions)), settings.det

    def candidates_of(logits, masks):
        masked = jnp.where(masks, logits, -jnp.inf)
        top, cand = jax.lax.top_k(masked, K)
        valid = jnp.isfinite(top) & jnp.take_along_axis(masks, cand, 1)
        cand = jnp.where(valid, cand, cand[:, :1]).astype(jnp.int32)
        return cand, jnp.where(valid, top, MASKED_LOGIT), valid

    def recurrent_fn(params, rng_key, action, node):
        del params, rng_key   # the engine is the model, and it draws nothing
        before = node["state"]
        real = jnp.take_along_axis(node["candidates"], action[:, None], 1)[:, 0]
        after = jg.batch_step(before, real)
        stepped = sg.score_change(before, after)
        logits, value = prior_value(after)
        if settings.opponents == "policy":
            after, logits, value, points, _ = play_opponents(jg, prior_value, after, logits, value, node["root_seat"],
                                                             score_change=sg.score_change)
        masks = jg.batch_legal_mask(after)
        cand, prior, _ = candidates_of(logits, masks)
        shares = win_shares(sg.places(after)) if settings.win_points else None
        players = sg.players(after)
        if settings.opponents == "policy":
            reward, discount, value = policy_backup_terms(stepped, points, after.terminated, after.current, value,
                                                          node["root_seat"], players, shares, settings.win_points,
                                                          calibration)
        else:
            reward, discount, value = backup_terms(before.current, after.current, stepped, after.terminated,
                                                   value, node["root_seat"], players, shares,
                                                   settings.win_points, calibration)
        if settings.rollout:
            u = rollout_utility(jg, prior_value, after, logits, value, node["root_seat"], settings.rollout,
                                sg.score_change, sg.places, sg.players, settings.win_points, calibration)
            # the node's value from its mover's side of the tree (the searching seat's under "policy")
            mine = (after.current == node["root_seat"]) | (settings.opponents == "policy")
            value = jnp.where(after.terminated, 0.0, jnp.where(mine, u, -u)).astype(jnp.float32)
        out = mctx.RecurrentFnOutput(reward=reward, discount=discount, prior_logits=prior, value=value)
        return out, _node(after, cand, node["root_seat"])

    qtransform = mctx.qtransform_completed_by_mix_value
    nodes = settings.nodes

    def search(states, masks, keys, logits, value, sims, table):
        """sims: () int32 simulations to run (<= settings.nodes); table: (considered + 1, nodes)
        int32 sequential halving's visit schedule for that count (visit_table)."""
        C = masks.shape[0]

        def root_selection(rng_key, tree, node_index):
            """mctx.gumbel_muzero_root_action_selection with the schedule of a traced count."""
            del rng_key
            visits = tree.children_visits[node_index]
            q = qtransform(tree, node_index)
            invalid = tree.root_invalid_actions.astype(bool)
            considered = jnp.minimum(settings.considered, jnp.sum(~invalid, -1))
            target = table[considered, jnp.minimum(jnp.sum(visits, -1), nodes - 1)]
            to_argmax = score_considered(visits, tree.extra_data.root_gumbel, tree.children_prior_logits[node_index],
                                         q, target)
            return jnp.argmax(jnp.where(invalid, -jnp.inf, to_argmax)).astype(jnp.int32)

        cand, prior, valid = candidates_of(logits, masks)
        rep = lambda x: jnp.repeat(x, D, axis=0)
        det_keys = jax.vmap(lambda k: jax.random.split(jax.random.fold_in(k, 1), D))(keys).reshape(C * D, -1)
        roots = jax.vmap(sg.redraw)(jax.tree_util.tree_map(rep, states), rep(states.current), det_keys)
        gumbel = settings.gumbel * jax.vmap(lambda k: jax.random.gumbel(jax.random.fold_in(k, 2), (K,)))(keys)
        root = mctx.RootFnOutput(prior_logits=rep(prior), value=rep(calibration.own(value, sg.players(states))),
                                 embedding=_node(roots, rep(cand), rep(states.current)))
        invalid = rep(~valid)
        tree = mctx.search(
            params=(), rng_key=jax.random.PRNGKey(0), root=root, recurrent_fn=recurrent_fn,
            root_action_selection_fn=root_selection,
            interior_action_selection_fn=partial(mctx.gumbel_muzero_interior_action_selection,
                                                 qtransform=qtransform),
            num_simulations=nodes, max_depth=settings.depth or None, invalid_actions=invalid,
            extra_data=mctx.GumbelMuZeroExtraData(root_gumbel=rep(gumbel)),
            loop_fn=lambda lo, hi, body, init: jax.lax.fori_loop(lo, sims, body, init))
        visits = tree.summary().visit_counts.reshape(C, D, K).sum(1)
        q = jax.vmap(qtransform, in_axes=[0, None])(tree, tree.ROOT_INDEX).reshape(C, D, K).mean(1)
        # mctx's final rule on the combined searches (with one redraw, exactly gumbel_muzero_policy's)
        score = score_considered(visits, gumbel, prior, q)
        if settings.temp > 0:
            # the improved policy softmax(prior + q), sharpened by 1 / temp
            logits = jnp.where(valid, prior + q, -jnp.inf) / settings.temp
            choice = jax.vmap(lambda k, lg: jax.random.categorical(jax.random.fold_in(k, 3), lg))(keys, logits)
        else:
            choice = jnp.argmax(jnp.where(valid, score, -jnp.inf), -1)
        action = jnp.take_along_axis(cand, choice[:, None], 1)[:, 0]
        return action.astype(jnp.int32), visits, cand

    return jax.jit(search)


_SEARCHES: dict = {}   # (engine id, compiled settings, chunk, prior) -> (engine, prior, root prior, search)


class SearchGame:
    """What the search reads of a game on its JAX engine: the game's ``search`` part (its redraw,
    its greedy prior if any, monkey_env.core.search_hooks) and its PPO's PolicyGame (players,
    places and score change, as the PPO's reward counts them: agents/ppo_games.py)."""

    def __init__(self, game: str, jax_game):
        from monkey_env.agents.ppo_games import policy_game
        from monkey_env.games import game_spec

        spec = game_spec(game)
        if not (spec.has("search") and spec.has("jax_engine")):
            raise ValueError(f"mcts needs a game's jax_engine and search parts; {game} lacks "
                             f"{', '.join(p for p in ('jax_engine', 'search') if not spec.has(p))}")
        self.name = game
        self.policy_engine = jax_game
        self.hooks = spec.load("search")
        self.policy = policy_game(game, jax_game) if has_ppo(game) else None
        if self.policy is None:
            missing = [h for h in ("players", "places", "score_change") if getattr(self.hooks, h) is None]
            if missing:
                raise ValueError(f"mcts: {game} has no JAX PPO, and its search part lacks {', '.join(missing)}")

    def redraw(self, state, seat, key):
        return self.hooks.redraw(state, seat, key)

    def players(self, states):
        return self.policy.players(states) if self.policy else self.hooks.players(states)

    def places(self, states):
        return self.policy.places(states) if self.policy else self.hooks.places(states)

    def score_change(self, before, after):
        return self.policy.score_change(before, after) if self.policy else self.hooks.score_change(before, after)

    def state_of(self, game):
        if self.policy:
            return self.policy.state_of(game)
        if self.hooks.state_of is None:
            raise ValueError(f"mcts.act: {self.name} has no PPO and its search part no state_of; use act_batch")
        return self.hooks.state_of(self.policy_engine, game)


def has_ppo(game: str) -> bool:
    """Whether ``game`` has a JAX PPO (agents/ppo_jax.py), the default prior and value."""
    from monkey_env.agents.ppo_jax import JAX_PPO_GAMES
    return game in JAX_PPO_GAMES


def uniform_prior_value(jax_game):
    """Every legal action alike, and a value of 0: the prior of a game without a network."""
    import jax.numpy as jnp

    def prior_value(states):
        masks = jax_game.batch_legal_mask(states)
        return jnp.where(masks, 0.0, -1e9).astype(jnp.float32), jnp.zeros(masks.shape[0], jnp.float32)
    return prior_value


class MCTSAgent:
    """Gumbel MCTS over the JAX engine, behind both agent interfaces (agents/base.py)."""

    def __init__(self, settings: MCTSSettings | None = None, seed: int = 0, prior_value: Callable | None = None,
                 name: str | None = None, calibration: ValueCalibration | None = None, game: str = DEFAULT_GAME):
        """prior_value: a jittable ``states -> (logits, value)`` (see the module docstring);
        None: the one ``prior`` names. calibration: how ``value=fitted`` reads the values; None:
        the shipped checkpoint's file (agents/value_calibration.py), loaded here so that a
        missing or stale file is refused before any game starts. game: the registered game
        searched (its ``search`` part and PPO checkpoint)."""
        from monkey_env.agents.ppo_jax import checkpoint_hash, default_checkpoint, shipped_version
        from monkey_env.games import game_spec

        spec = game_spec(game)
        if not spec.has("search"):
            raise ValueError(f"mcts: the game {game} has no search part (monkey_env.games; docs/AGENTS.md)")
        self.game = game
        self.checkpoint = default_checkpoint(game)
        self.settings = settings or MCTSSettings()
        self.settings.check()
        self.name = name or self.settings.spec()
        self.seed = seed
        self.version = self.settings.spec()
        if self.settings.prior == "ppo" and not has_ppo(game):
            raise ValueError(f"mcts setting prior=ppo: {game} has no JAX PPO; use prior=uniform")
        if self.settings.prior == "greedy" and spec.load("search").greedy_prior_value is None:
            raise ValueError(f"mcts setting prior=greedy: {game} has no greedy prior (its search part); use prior=ppo")
        if prior_value is None and self.settings.prior == "ppo":   # which weights searched, in results
            if self.checkpoint.exists():
                self.version += f"+ppo-{shipped_version(game)}"
        self._prior_value = prior_value
        # value=fitted with the shipped prior: each engine's checkpoint has its own calibration
        # (Monkey Palace ships one network per build action); the default options' is loaded here.
        self._calibrations = None if calibration is not None or self.settings.value == "raw" else {}
        if self.settings.value == "raw":
            calibration = RAW
        elif calibration is None:
            calibration = ValueCalibration.load(calibration_path(self.checkpoint), checkpoint_hash(self.checkpoint))
            self._calibrations[self.checkpoint] = calibration
        self.calibration = calibration
        st = self.settings
        self._table = visit_table(st.considered, st.sims, st.nodes)
        self._acts = 0
        self.seconds = 0.0       # time spent searching, and the decisions it made
        self.decisions = 0

    def opponents_for(self, players) -> np.ndarray:
        """Each game's opponent model, by its player count: the setting's, or with ``auto`` the
        paranoid tree with 2 players and the policy's replies with more."""
        players = np.asarray(players)
        if self.settings.opponents != "auto":
            return np.full(players.shape, self.settings.opponents)
        return np.where(players > 2, "policy", "tree")

    def search_for(self, jax_game, chunk: int, opponents: str | None = None):
        """The compiled root prior and search of `chunk` games for this engine (with the
        opponent model ``opponents``, "tree" or "policy"; None: the setting's, if not auto).
        Agents with the same engine, prior and compiled settings share them (module-level:
        compiling a search takes minutes), whatever their simulation count up to ``nodes``."""
        import jax

        opponents = opponents or self.settings.opponents
        if opponents not in ("tree", "policy"):
            raise ValueError(f"search_for needs the opponent model, tree or policy (got {opponents!r})")
        prior_key = id(self._prior_value) if self._prior_value is not None else self.settings.prior
        # what the program fixes
        shape = replace(self.settings, sims=self.settings.nodes, capacity=0, opponents=opponents,
                        win_points=self.win_points())
        calibration = self.calibration_for(jax_game)
        key = (id(jax_game), shape, chunk, prior_key, calibration, self.game)
        if key not in _SEARCHES:
            pv = self._prior_value or self.default_prior_value(jax_game)
            # the engine and the prior are kept with the program, so the ids of the key stay theirs
            _SEARCHES[key] = (jax_game, self._prior_value, jax.jit(pv),
                              build_search(jax_game, shape, pv, calibration, SearchGame(self.game, jax_game)))
        return _SEARCHES[key][2:]

    def calibration_for(self, jax_game) -> ValueCalibration:
        """How the values are read on this engine: the given calibration (or raw), else the
        calibration file of the shipped checkpoint that plays the engine, refused by
        ValueCalibration.load if it is missing or measured other weights."""
        if self._calibrations is None or self._prior_value is not None:
            return self.calibration
        from monkey_env.agents.ppo_jax import checkpoint_hash, default_checkpoint
        checkpoint = default_checkpoint(self.game, jax_game)
        if checkpoint not in self._calibrations:
            hash_ = checkpoint_hash(checkpoint) if checkpoint.exists() else None
            self._calibrations[checkpoint] = ValueCalibration.load(calibration_path(checkpoint), hash_)
        return self._calibrations[checkpoint]

    def win_points(self) -> float:
        """A win's worth in the game's score units: the setting, or (< 0) the game's PPO
        checkpoint's win_bonus / reward_scale (the PPO's value counts it so), or 5 without one."""
        if self.settings.win_points >= 0:
            return self.settings.win_points
        if not self.checkpoint.exists():
            return 5.0
        if not hasattr(self, "_checkpoint_win_points"):      # read once
            import flax.serialization as fs
            meta = fs.msgpack_restore(self.checkpoint.read_bytes()).get("meta", {})
            self._checkpoint_win_points = float(meta.get("win_bonus", 0.5)) / float(meta.get("reward_scale", 0.1))
        return self._checkpoint_win_points

    def default_prior_value(self, jax_game):
        """The prior and value that ``prior`` names: the game's shipped PPO checkpoint's policy
        logits and value head (agents/ppo_jax.py), or the game's greedy prior (no network; its
        search part's greedy_prior_value)."""
        from monkey_env.games import game_spec
        if self.settings.prior == "greedy":
            return game_spec(self.game).load("search").greedy_prior_value(jax_game, self.settings.turn_points)
        if self.settings.prior == "uniform":
            return uniform_prior_value(jax_game)
        from monkey_env.agents.ppo_jax import JaxPPOAgent
        return JaxPPOAgent(jax_game=jax_game, game=self.game).prior_value(jax_game)

    def act_batch(self, jax_game, states, masks, key):
        import jax
        import jax.numpy as jnp

        t0 = time.perf_counter()
        masks = np.asarray(masks, bool)
        batch = masks.shape[0]
        actions = np.zeros(batch, np.int32)
        live = np.flatnonzero(masks.any(1))
        if len(live) == 0:
            return actions
        chunk = 1 if batch == 1 else self.settings.chunk
        key = jax.random.PRNGKey(self.seed) if key is None else key
        keys = _row_keys(key, batch)
        models = self.opponents_for(np.asarray(self.players_of(jax_game, states))[live])
        for model in dict.fromkeys(models.tolist()):         # the games of each opponent model together
            prior_value, search = self.search_for(jax_game, chunk, model)
            group = live[models == model]
            for start in range(0, len(group), chunk):
                rows = group[start:start + chunk]
                padded = np.concatenate([rows, np.full(chunk - len(rows), rows[-1])])
                idx = jnp.asarray(padded)
                sub = _take(states, idx)
                chosen, _, _ = search(sub, jnp.asarray(masks[padded]), keys[idx], *prior_value(sub),
                                      jnp.int32(self.settings.sims), self._table)
                actions[rows] = np.asarray(chosen)[:len(rows)]
        self.seconds += time.perf_counter() - t0
        self.decisions += len(live)
        return actions

    def players_of(self, jax_game, states):
        """(B,) each game's player count (the game's PolicyGame or search part reads it)."""
        return SearchGame(self.game, jax_game).players(states)

    def act(self, game, mask: np.ndarray) -> int:
        """One decision of a reference game: its public state on the JAX engine, searched with
        the key ``fold_in(PRNGKey(seed), n)`` for the agent's n-th decision."""
        import jax

        from monkey_env.games import game_spec

        if not np.asarray(mask).any():
            raise ValueError("no legal action to choose from")
        jg = game_spec(self.game).load("jax_engine")(game.options)
        state = jax.tree_util.tree_map(lambda x: jax.numpy.asarray(x)[None], SearchGame(self.game, jg).state_of(game))
        key = self.key_for_act(self._acts)
        self._acts += 1
        return int(self.act_batch(jg, state, np.asarray(mask)[None], key)[0])

    def key_for_act(self, n: int):
        """The key of the agent's n-th ``act`` (from its seed)."""
        import jax
        return jax.random.fold_in(jax.random.PRNGKey(self.seed), n)


def _row_keys(key, batch: int):
    import jax.numpy as jnp
    return _fold_rows(key, jnp.arange(batch))


def _fold_rows_impl(key, rows):
    import jax
    return jax.vmap(lambda r: jax.random.fold_in(key, r))(rows)


def _take_impl(states, idx):
    import jax
    return jax.tree_util.tree_map(lambda x: x[idx], states)


def _lazy_jit(fn):
    compiled = []

    def call(*args):
        if not compiled:
            import jax
            compiled.append(jax.jit(fn))
        return compiled[0](*args)
    return call


_fold_rows = _lazy_jit(_fold_rows_impl)
_take = _lazy_jit(_take_impl)


def make_mcts(spec: str = "", seed: int = 0, game: str = DEFAULT_GAME) -> MCTSAgent:
    """The agent of ``mcts`` or ``mcts:sims=64,...`` (the part after the colon) for ``game``: the
    game's own defaults (its search part's ``mcts_settings``), then the name's settings over them."""
    from monkey_env.games import game_spec
    parts = game_spec(game)
    own = parts.load("search").mcts_settings if parts.has("search") else ""
    return MCTSAgent(MCTSSettings.parse(",".join(filter(None, (own, spec)))), seed=seed, game=game)

