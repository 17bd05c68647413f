"""The Shadow Theater's agents (the game's ``agents`` part in monkey_env.games): ``greedy``
here, ``random`` is the generic one (monkey_env.agents.random_agent).

**The greedy agent's one-turn evaluation.** For every legal action it plays that one decision
on a look-ahead copy of the game (``lookahead``: a round's end is noted, not scored, since
scoring reveals the hands) and scores the position reached, from its own side (``me``), with
only what it knows: the opponent's hand, and any card the decision would draw, count at the
mean value of the cards it has not seen (``public_points``):

    value = 100 x (my Lanterns - the opponent's)
          + 100 x clip(lead, -1, 1)                     a decision that ends the round
          + lead = my round points - the opponent's     as if the round ended now, as known
          + 0.25 x (my monkeys - the opponent's)        monkeys to place later, and the first tie-break
          - 0.5 x (most monkeys on one location)        if the opponent plays next: what they could collect

and takes the best (ties broken at random from its seed or key). A Garden placement is scored
after the King's move it leads to is asked (the King move is its own decision, scored the same way).
The reference form (``act``) and the JAX form (``act_batch``, every action of every game in one
vmapped step) compute the same values (tests/games/shadow_theater/test_shadow_theater_hidden.py).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

LANTERN_WEIGHT, MONKEY_WEIGHT, EXPOSURE_WEIGHT = 100.0, 0.25, 0.5


def reference_value(after, me: int, before) -> float:
    """The value of ``after`` (a look-ahead from ``before``) to ``me``, from what ``me`` knows at ``before``."""
    from monkey_env.shadow_theater.actions import TURN

    opp = 1 - me
    pts = after.public_points(me, seen_from=before)
    lead = pts[me] - pts[opp]
    value = LANTERN_WEIGHT * (after.lanterns[me] - after.lanterns[opp]) + lead
    if after.round_end_held:
        value += LANTERN_WEIGHT * min(max(lead, -1.0), 1.0)
    value += MONKEY_WEIGHT * (after.supply[me][0] - after.supply[opp][0])
    if not after.game_over and after.current == opp and after.phase == TURN:
        value -= EXPOSURE_WEIGHT * max(after.board)
    return float(value)


def reference_values(game, actions) -> np.ndarray:
    """The one-turn value of each of ``actions`` to the seat to play."""
    values = []
    for a in actions:
        after = game.lookahead()
        after.apply(int(a))
        values.append(reference_value(after, game.current, game))
    return np.asarray(values)


class ShadowTheaterGreedy:
    name = "greedy"

    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)

    def act(self, game, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        if len(legal) == 0:
            raise ValueError("no legal action to choose from")
        values = reference_values(game, legal)
        best = legal[np.flatnonzero(values >= values.max() - 1e-9)]
        return int(self.rng.choice(best))

    def act_batch(self, engine, states, masks, key):
        return _batch_policy(engine)(states, masks, key)


def action_values(engine):
    """A traceable ``state -> (A,) float32``: the one-turn value of every action for the seat to
    play (meaningful where legal); the batched greedy's and the JAX PPO's per-action inputs."""
    import jax
    import jax.numpy as jnp

    from monkey_env.shadow_theater.actions import TURN

    actions = jnp.arange(engine.num_actions, dtype=jnp.int32)

    def value(after, round_ends, before):
        me = before.current
        opp = 1 - me
        pts = engine.public_points(after, me, before)
        lead = pts[me] - pts[opp]
        v = LANTERN_WEIGHT * (after.lanterns[me] - after.lanterns[opp]) + lead
        v = v + jnp.where(round_ends, LANTERN_WEIGHT * jnp.clip(lead, -1.0, 1.0), 0.0)
        v = v + MONKEY_WEIGHT * (after.supply[me, 0] - after.supply[opp, 0])
        exposed = ~after.terminated & (after.current == opp) & (after.phase == TURN)
        return v - jnp.where(exposed, EXPOSURE_WEIGHT * after.board.max(), 0.0)

    def values(state):
        after, round_ends = jax.vmap(engine.lookahead, in_axes=(None, 0))(state, actions)
        return jax.vmap(value, in_axes=(0, 0, None))(after, round_ends, state).astype(jnp.float32)

    return values


def greedy_from_values(values, mask, key):
    """Greedy's decision from its values: the best legal action, ties broken at random by ``key``."""
    import jax
    import jax.numpy as jnp

    noise = jax.random.uniform(key, values.shape, maxval=1e-3)      # ties broken at random
    return jnp.argmax(jnp.where(mask, values + noise, -jnp.inf)).astype(jnp.int32)


@lru_cache(maxsize=8)
def _batch_policy(engine):
    import jax

    values = action_values(engine)

    def one(state, mask, key):
        return greedy_from_values(values(state), mask, key)

    @jax.jit
    def policy(states, masks, key):
        keys = jax.random.split(key, masks.shape[0])
        return jax.vmap(one)(states, masks, keys)

    return policy
