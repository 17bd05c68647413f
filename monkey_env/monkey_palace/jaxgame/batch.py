"""The JAX engine's batched driver: many games stepped together, with the expensive pending
work (a turn's anchor mask, a chosen anchor's shape mask, long runs of automatic steps) done
only for the games that need it, gathered into compact groups. Same result as vmap(step)."""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp

from monkey_env.monkey_palace.jaxgame.state import PENDING_NONE, State


class BatchedPlay:
    """Mixed into JaxGame: needs its rules, _deal, _check, _finish, settle_steps and group_size."""

    def batch_init(self, keys: jax.Array, params=None) -> State:
        """A batch of games; params is one Params (shared) or a Params with a batch axis."""
        params = self.default_params if params is None else params
        if params.players.ndim == 0:
            params = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (keys.shape[0],) + x.shape), params)
        dealt = self._batch_deal(keys, params)
        return self._batch_resolve(dealt, dealt, jnp.ones(keys.shape[0], bool))

    def group_for(self, batch: int, share: float | None = None) -> int:
        """How many games of a batch the compaction loops (here and in batched agents) take at
        once; ``share`` (PendingWork.share): a CPU takes that part of the batch, for work whose
        cost per game falls with wider groups."""
        wide = jax.default_backend() != "cpu"
        # On a CPU the complete build's anchor masks are memory-bound: 4 at a time ran 3 times
        # faster per mask than 16 (docs/ENVIRONMENTS.md).
        cpu = 4 if self.static.complete else 16
        if share is not None:
            cpu = max(cpu, round(batch * share))
        return min(batch, self.group_size or (max(1, batch // 4) if wide else cpu))

    def batch_step(self, states: State, actions) -> State:
        """vmap(step), with the expensive work (the anchor mask at a turn's start, the shape
        mask at a chosen anchor, long runs of automatic steps) done only for the games that
        need it, in compact groups."""
        after, legal = self._batch_act(states, jnp.asarray(actions, jnp.int32))
        return self._batch_resolve(states, after, legal)

    def _act(self, states: State, actions):
        rules = self.rules
        actions, legal = jax.vmap(self._check)(states, actions)
        after = jax.vmap(lambda s, a: rules.settle(rules.apply(s, a), with_pending=False,
                                                   max_iterations=self.settle_steps))(
            states, jnp.where(legal, actions, 0))
        return after, legal

    def _resolve_and_finish(self, states: State, after: State, legal) -> State:
        rules = self.rules
        batch = legal.shape[0]

        def pending(s, kind, which):
            need = (s.pending == kind) & ~s.terminated
            return need if which is None else need & jax.vmap(which)(s)

        def run(s, need, work, group):
            """Do `work` for up to `group` of the games in `need`, gathered together."""
            idx = jnp.nonzero(need, size=group, fill_value=batch)[0]
            sub = jax.tree_util.tree_map(lambda x: x[jnp.minimum(idx, batch - 1)], s)
            sub = jax.vmap(lambda x: rules.settle(work(x), with_pending=False))(sub)
            return jax.tree_util.tree_map(lambda x, y: x.at[idx].set(y, mode="drop"), s, sub)

        def body(s):
            for kind, which, work, share in rules.pending_work():
                need = pending(s, kind, which)
                s = jax.lax.cond(need.any(), partial(run, work=work, group=self.group_for(batch, share)),
                                 lambda s, need: s, s, need)
            return s

        def needs(s):
            return ((s.pending != PENDING_NONE) & ~s.terminated).any()

        after = jax.lax.while_loop(needs, body, after)
        return jax.vmap(self._finish)(states, after, legal)
