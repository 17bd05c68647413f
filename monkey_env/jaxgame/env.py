"""The JAX engine's public face: Pgx-like pure functions over a batched palace state.

    game = JaxGame(players=2, map=1)
    state = game.init(key)                        # one game; jax.vmap(game.init)(keys) for a batch
    mask = game.legal_action_mask(state)          # (A,) bool, the same indices as the reference engine
    state = game.step(state, action)              # pure, jittable, vmappable
    state.rewards, state.terminated               # (4,) float32 per seat, () bool
    obs = game.observe(state, player)

    states = game.batch_step(states, actions)     # the fast batched step (same result as vmap(step))

Rules of the step (as in Pgx): stepping a finished game changes nothing and gives zero
rewards; an illegal action ends the game for everyone, with ``illegal_penalty`` (−10) as
that step's reward to the player who made it; the reference engine raises instead.
Rewards are the change of every seat's Banana Points at that step (a card counts when
bought), so a seat's rewards over a game sum to its final score.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from monkey_env.actions import N_PILES, ActionLayout, Phase
from monkey_env.game_data import GameData, load_game_data
from monkey_env.geometry import BOARD_SIZE, NUM_CELLS
from monkey_env.jaxgame.rules import Rules
from monkey_env.jaxgame.state import MAX_PLAYERS, PENDING_NONE, PENDING_TURN_START, State, empty_state
from monkey_env.jaxgame.tables import build_tables
from monkey_env.palace import Palace


class JaxGame:
    def __init__(self, players: int = 2, map: int | str = 1, *, butterfly: bool = False, frog: bool = False,
                 monkey_move: str = "optional", butterfly_rule: str = "highest_overall",
                 end_trigger: str = "shortfall", data: GameData | None = None, illegal_penalty: float = -10.0):
        if not 2 <= players <= 4:
            raise ValueError(f"players must be 2, 3 or 4, not {players}")
        self.data = data or load_game_data(map)
        self.tables, self.static = build_tables(self.data)
        self.layout = ActionLayout(self.static.n_shapes)
        self.players = players
        self.illegal_penalty = illegal_penalty
        self.rules = Rules(self.tables, self.static, players, butterfly, frog, monkey_move == "mandatory",
                           butterfly_rule == "highest_overall", end_trigger == "last_taken", self.layout)
        # The starting palace, built once by the reference engine's own code.
        palace = Palace.from_map(self.data.map, self.data.tray.animal_height)
        s = self.data.map.start
        from monkey_env.geometry import HEADING_NAMES
        palace.place_start_staircase(tuple(s.anchor), HEADING_NAMES.index(s.heading))
        self._start_height = jnp.asarray(palace.height, jnp.int8)
        self._start_knob = jnp.asarray(palace.knob, jnp.int8)
        self._start_deco_max = jnp.asarray(palace.deco_max, jnp.int32)
        self._queue_size = N_PILES * self.static.max_icons
        self.init = jax.jit(self._init)
        self.step = jax.jit(self._step)
        self.batch_step = jax.jit(self._batch_step)
        self.batch_init = jax.jit(jax.vmap(self._init))

    @property
    def num_actions(self) -> int:
        return self.layout.size

    # ------------------------------------------------------------------ init
    def _init(self, key: jax.Array) -> State:
        st, t = self.static, self.tables
        s = empty_state(st.n_cards, st.n_shapes, st.max_arches, st.max_pile, self._queue_size)
        # Shuffle each pile: sort random keys, padding last.
        noise = jax.random.uniform(key, (N_PILES, st.max_pile))
        noise = jnp.where(t.pile_cards >= 0, noise, 2.0)
        order = jnp.argsort(noise, axis=1)
        pile_cards = jnp.take_along_axis(t.pile_cards, order, axis=1)
        tray = t.tray_total - jnp.asarray([2, 1, 0], jnp.int32)  # the starting staircase
        supply = jnp.zeros((MAX_PLAYERS, 3), jnp.int32)
        for seat in range(self.players):
            got = jnp.minimum(t.board_start[seat], tray)
            tray = tray - got
            supply = supply.at[seat].set(got)
        s = s._replace(height=self._start_height, knob=self._start_knob, deco_max=self._start_deco_max,
                       pile_cards=pile_cards, pile_len=t.pile_size, tray=tray, supply=supply,
                       bonus_left=jnp.int32(st.bonus_cards), pending=jnp.int32(PENDING_TURN_START))
        return self.rules.settle(s)

    # ------------------------------------------------------------------ step
    def legal_action_mask(self, state: State) -> jnp.ndarray:
        return self.rules.legal_action_mask(state) & ~state.terminated

    def _check(self, state: State, action):
        action = jnp.asarray(action, jnp.int32)
        ok = (action >= 0) & (action < self.layout.size)
        legal = ok & self.rules.legal_action_mask(state)[jnp.clip(action, 0, self.layout.size - 1)]
        return action, legal

    def _finish(self, before: State, after: State, legal) -> State:
        """Rewards, the illegal-action ending, and no change to a finished game."""
        rewards = (self.rules.bananas(after) - self.rules.bananas(before)).astype(jnp.float32)
        done = before.terminated
        penalty = jnp.zeros((MAX_PLAYERS,), jnp.float32).at[before.current].set(self.illegal_penalty)
        illegal_state = before._replace(terminated=jnp.asarray(True), illegal=jnp.asarray(True), rewards=penalty)
        after = after._replace(rewards=rewards)
        out = jax.tree_util.tree_map(lambda a, b: jnp.where(legal, a, b), after, illegal_state)
        return jax.tree_util.tree_map(lambda a, b: jnp.where(done, a, b),
                                      before._replace(rewards=jnp.zeros((MAX_PLAYERS,), jnp.float32)), out)

    def _step(self, state: State, action, key: jax.Array | None = None) -> State:
        del key  # no chance after the deal
        action, legal = self._check(state, action)
        after = self.rules.settle(self.rules.apply(state, jnp.where(legal, action, 0)))
        return self._finish(state, after, legal)

    def _batch_step(self, states: State, actions) -> State:
        """vmap(step), with the expensive work (the anchor mask at a turn's start, the shape
        mask at a chosen anchor) done only for the games that need it, in compact groups."""
        rules = self.rules
        actions, legal = jax.vmap(self._check)(states, actions)
        after = jax.vmap(lambda s, a: rules.settle(rules.apply(s, a), with_pending=False))(
            states, jnp.where(legal, actions, 0))
        batch = actions.shape[0]
        group = max(1, batch // 4)

        def needs(s):
            return (s.pending != PENDING_NONE) & ~s.terminated

        def body(s):
            need = needs(s)
            idx = jnp.nonzero(need, size=group, fill_value=batch)[0]
            sub = jax.tree_util.tree_map(lambda x: x[jnp.minimum(idx, batch - 1)], s)
            sub = jax.vmap(lambda x: rules.settle(rules.do_pending(x), with_pending=False))(sub)
            return jax.tree_util.tree_map(lambda x, y: x.at[idx].set(y, mode="drop"), s, sub)

        after = jax.lax.while_loop(lambda s: needs(s).any(), body, after)
        return jax.vmap(self._finish)(states, after, legal)

    # ------------------------------------------------------------------ observation
    @partial(jax.jit, static_argnums=0)
    def observe(self, state: State, player) -> dict:
        """Public information from `player`'s seat: planes over the plate and a vector.

        planes (21, 32, 32) float32: height / 16, one-hot knob (13), monkey, butterfly, frog,
        legal anchors (when this player is choosing one), the chosen anchor, the new decoration.
        vector float32: phase one-hot (8), seat to play relative to `player` (4), supplies (4×3, rotated
        so `player` is first), tray (3), pile sizes (12), pile top cards' cost/bananas/recurring (12×5),
        top cards of every seat's slots' recurring supply (4×4×3), bonus cards (4), trophy holders
        relative (3×5), credits, round, end triggered, bonus cards left, Banana Points (4).
        """
        t, st = self.tables, self.static
        player = jnp.asarray(player, jnp.int32)
        rot = (jnp.arange(MAX_PLAYERS) + player) % MAX_PLAYERS
        knob = jax.nn.one_hot(state.knob, 13, axis=0)
        animal = jnp.zeros((3, NUM_CELLS), jnp.float32)
        animal = animal.at[jnp.arange(3), jnp.maximum(state.animals, 0)].set((state.animals >= 0).astype(jnp.float32))
        mine = (state.current == player) & (state.phase == Phase.ANCHOR)
        anchor = jnp.zeros((NUM_CELLS,), jnp.float32).at[jnp.maximum(state.anchor, 0)].set((state.anchor >= 0) * 1.0)
        deco = jnp.zeros((NUM_CELLS,), jnp.float32).at[jnp.maximum(state.deco_cell, 0)].set((state.deco_cell >= 0) * 1.0)
        planes = jnp.concatenate([
            state.height[None].astype(jnp.float32) / 16.0, knob,
            animal.reshape(3, BOARD_SIZE, BOARD_SIZE),
            (state.anchor_mask & mine).reshape(1, BOARD_SIZE, BOARD_SIZE).astype(jnp.float32),
            anchor.reshape(1, BOARD_SIZE, BOARD_SIZE), deco.reshape(1, BOARD_SIZE, BOARD_SIZE)])
        top = state.pile_cards[jnp.arange(N_PILES), jnp.maximum(state.pile_len - 1, 0)]
        has = (state.pile_len > 0)[:, None]
        pile_top = jnp.where(has, jnp.concatenate([t.card_cost[top][:, None], t.card_bananas[top][:, None],
                                                    t.card_recurring[top]], 1), 0)
        slot_rec = jnp.where(state.slot_top[..., None] >= 0, t.card_recurring[jnp.maximum(state.slot_top, 0)], 0)
        holders = jax.nn.one_hot(jnp.where(state.holders >= 0, (state.holders - player) % MAX_PLAYERS, 4), 5)
        vector = jnp.concatenate([
            jax.nn.one_hot(state.phase, 8), jax.nn.one_hot((state.current - player) % MAX_PLAYERS, 4),
            state.supply[rot].reshape(-1) / 10.0, state.tray / 80.0, state.pile_len / 8.0,
            pile_top.reshape(-1) / 8.0, slot_rec[rot].reshape(-1) / 4.0, state.bonus_cards[rot] / 4.0,
            holders.reshape(-1), jnp.stack([state.credits / 6.0, state.round / 16.0,
                                            state.end_triggered * 1.0, state.bonus_left / 14.0]),
            self.rules.bananas(state)[rot] / 40.0,
        ]).astype(jnp.float32)
        return {"planes": planes, "vector": vector}

    # ------------------------------------------------------------------ helpers
    def pile_orders(self, state: State) -> list[list[int]]:
        """The deal of a (single) state, for starting the reference engine on the same game."""
        cards = np.asarray(state.pile_cards)
        sizes = np.asarray(self.tables.pile_size)
        return [[int(c) for c in cards[p, :sizes[p]]] for p in range(N_PILES)]

    def scores(self, state: State) -> np.ndarray:
        return np.asarray(self.rules.bananas(state))[:self.players]
