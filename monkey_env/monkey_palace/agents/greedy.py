"""The greedy baseline: a one-turn lookahead, the same decisions on both engines.

Every decision is the argmax of an integer score over the legal actions; equal scores go
to the lowest action index. The scores:

* **Anchor and shape.** Each legal staircase (anchor, shape) is worth what it brings this turn:

      value = 256 * (B + bonus + trophies) + decoration top

  - B: the Banana Points of the cards the buying rule below would take with the credits
    the staircase earns (its arches, + 1 if its decoration is strictly the highest of its
    colour), from the visible pile tops, in the decoration's colour or multicolour;
  - bonus: a bonus card's points if its tallest stack reaches the bonus threshold and one is left;
  - trophies: the Monkey trophy for a gold anchor, the Butterfly trophy (when the option is on)
    for a decoration that wins it, each only when the player does not hold it already;
  - decoration top (brick units, always < 256): among equal points, the higher decoration
    (it makes the colour's "highest decoration" credit harder for the others).

  The anchor's score is its best staircase's value; at the shape decision the score is the
  value of each shape at the chosen anchor, so the shape taken is the one that made the anchor
  best. Ties: the lowest anchor index (y * 32 + x), then the lowest catalogue index. With the
  complete build action each arch step scores the best staircase that begins with it and
  "finish" the staircase built so far: the staircase taken is again the best of the anchor's,
  over every staircase the rules allow (ties: the lowest action index at each step).
* **Buy.** The affordable pile top with the most Banana Points, then the cheaper, then the
  lowest pile index; stop when none is affordable.
* **Arch or brick.** An arch (arches earn credits) unless the player holds more arches than bricks.
* **Slot (full board).** Cover the top card with the least recurring supply (elements per
  turn), the lowest slot on a tie: the covered card still scores, only its supply is lost.
* **Monkey.** Stay when allowed; otherwise the open arch end with the lowest index.
* **Frog.** Decline: the Frog trophy is worth -3 Banana Points, more than its column is.

``act`` reads only public information of a reference :class:`~monkey_env.monkey_palace.engine.Game` (the pile
tops, never the order inside a pile). ``act_batch`` computes the same scores on the JAX engine,
jit-compiled over the batch, for the games at an anchor or build decision only (in small groups).
The catalogue's staircase values come from :mod:`monkey_env.monkey_palace.agents.staircase_values`,
which evaluates every legal pair along the walk that computes the anchor mask; the complete
action's from :mod:`monkey_env.monkey_palace.agents.complete_values`, a depth-first walk over
every legal staircase (the same maximum as the reference's, which has no table form).
tests/games/monkey_palace/test_greedy.py plays both in lockstep and asserts identical choices.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from monkey_env.monkey_palace.actions import N_PILES, N_SLOTS, Phase

# One Banana Point in a staircase's value, and the buying order: shared with the JAX scores.
from monkey_env.monkey_palace.agents.staircase_values import POINT, buy_preference
from monkey_env.monkey_palace.geometry import GROUND_OF_COLOUR, NUM_CELLS, Colour, cell_xy


class GreedyAgent:
    name = "greedy"

    def __init__(self, seed: int = 0):
        self.seed = seed  # the greedy agent draws nothing; kept for the registry's factories

    # ------------------------------------------------------------ reference engine
    def act(self, game, mask: np.ndarray) -> int:
        if not mask.any():
            raise ValueError("no legal action to choose from")
        scores = action_scores(game)
        return int(np.argmax(np.where(mask, scores, np.iinfo(np.int64).min)))

    # ------------------------------------------------------------ JAX engine
    def act_batch(self, jax_game, states, masks, key):
        del key  # deterministic
        return _batch_policy(jax_game)(states, masks)


# ================================================================ the reference scores
def action_scores(game) -> np.ndarray:
    """(A,) int64 score of every action for the decision asked now (meaningful where legal)."""
    L, phase, t = game.layout, game.phase, game.turn
    scores = np.zeros(L.size, np.int64)
    if phase in (Phase.ANCHOR, Phase.SHAPE) and game.complete_build:
        _complete_build_scores(game, scores)
    elif phase == Phase.ANCHOR:
        cells = scores[L.cell:L.cell + NUM_CELLS]
        cells[:] = -1
        for shape, anchor in np.argwhere(game.build_matrix()):
            cells[anchor] = max(cells[anchor], staircase_value(game, int(anchor), int(shape)))
    elif phase == Phase.SHAPE:
        for shape in np.flatnonzero(game.build_matrix()[:, t.anchor]):
            scores[L.shape + shape] = staircase_value(game, t.anchor, int(shape))
    elif phase == Phase.BUY:
        for pile, cards in enumerate(game.piles):
            if cards:
                card = game.data.cards[cards[-1]]
                scores[L.buy_pile + pile] = buy_preference(card.bananas, card.cost)
        scores[L.buy_end] = 0  # below every card: stop only when nothing is affordable
    elif phase == Phase.INSTANT:
        s = game.player.supply
        scores[L.instant_arch if s.arches <= s.bricks else L.instant_brick] = 1
    elif phase == Phase.SLOT:
        for slot, cards in enumerate(game.player.slots):
            scores[L.slot + slot] = -sum(game.data.cards[cards[-1]].recurring) if cards else 0
    elif phase == Phase.MONKEY:
        scores[L.monkey_stay] = 1
    elif phase == Phase.FROG:
        scores[L.frog_decline] = 1
    return scores


def staircase_value(game, anchor: int, shape: int) -> int:
    """What building `shape` from `anchor` brings this turn (see the module docstring)."""
    plan = game.palace.check_staircase(cell_xy(anchor), game.data.shapes[shape], game.player.supply,
                                       game.data.tray.column_units)
    assert plan.legal, plan.reason
    return built_value(game, plan.colour, len(plan.arches), plan.deco_top,
                       max((s.units for s in plan.stacks), default=0))


def built_value(game, colour: int, arches: int, deco_top: int, tallest: int, bought=None) -> int:
    """The value of a staircase of ``arches`` arches whose decoration of ``colour`` tops out at
    ``deco_top`` and whose tallest stack has ``tallest`` units (``bought``: a cache of
    purchase_bananas by (colour, credits))."""
    tray, holders, current = game.data.tray, game.holders, game.current
    deco_max = game.palace.deco_max
    highest_of_colour = deco_top > deco_max[colour]
    credits = arches + highest_of_colour
    if bought is None:
        points = purchase_bananas(game, colour, credits)
    else:
        if (colour, credits) not in bought:
            bought[colour, credits] = purchase_bananas(game, colour, credits)
        points = bought[colour, credits]
    if tallest >= tray.bonus.min_stack and game.bonus_left > 0:
        points += tray.bonus.points
    if colour == Colour.GOLD and holders["monkey"] != current:
        points += tray.trophies.monkey
    if game.options.butterfly and holders["butterfly"] != current:
        overall = game.options.butterfly_rule == "highest_overall"
        if (deco_top > max(deco_max)) if overall else highest_of_colour:
            points += tray.trophies.butterfly
    return POINT * points + deco_top


def _complete_build_scores(game, scores: np.ndarray) -> None:
    """The complete build action: an anchor's score is its best staircase's value; an arch's,
    the best staircase that begins with it; finishing, the staircase built so far."""
    L, search, bought = game.layout, game.build_search(), {}
    ground = game.palace.ground

    def value(colour: int, prefix) -> int:
        return built_value(game, colour, prefix.arches, prefix.level + 2, prefix.tallest, bought)

    def best(colour: int, prefix) -> int:
        return max(value(colour, done) for done in search.staircases_from(prefix))

    if game.phase == Phase.ANCHOR:
        scores[L.cell:L.cell + NUM_CELLS] = -1
        for y, x in zip(*np.nonzero(search.legal_anchors())):
            colour = GROUND_OF_COLOUR.index(int(ground[y, x]))
            scores[L.encode_cell(int(x), int(y))] = best(colour, search.start((int(x), int(y))))
        return
    prefix = game.build_prefix()
    colour = GROUND_OF_COLOUR.index(int(ground.flat[game.turn.anchor]))
    for heading, rise in search.next_steps(prefix):
        scores[L.encode_arch(heading, rise)] = best(colour, search.extend(prefix, heading, rise))
    if search.can_finish(prefix):
        scores[L.finish] = value(colour, prefix)


def purchase_bananas(game, colour: int, credits: int) -> int:
    """Banana Points of the cards the buying rule takes with `credits` after a decoration of
    `colour`, from the visible pile tops (one card per pile per turn)."""
    colour_name = ("light", "dark", "gold")[colour]
    tops = [(pile, game.data.cards[cards[-1]]) for pile, cards in enumerate(game.piles) if cards]
    tops = [(pile, c) for pile, c in tops if c.colour in ("multi", colour_name)]
    total = 0
    while True:
        affordable = [(pile, c) for pile, c in tops if c.cost <= credits]
        if not affordable:
            return total
        pile, card = max(affordable, key=lambda pc: (buy_preference(pc[1].bananas, pc[1].cost), -pc[0]))
        total += card.bananas
        credits -= card.cost
        tops.remove((pile, card))


# ================================================================ the JAX scores
@cache
def _batch_policy(jg):
    """The jit-compiled batched decision for one JaxGame: (states, masks) -> (B,) int32."""
    import jax

    scores_of = batch_scores(jg, choice_only=True)

    @jax.jit
    def policy(states, masks):
        return greedy_choice(scores_of(states, masks), masks)
    return policy


@cache
def batch_scores(jg, choice_only: bool = False):
    """The greedy scores of every action for a batch, jit-compiled for one JaxGame:
    (states, masks) -> (B, A) int32, meaningful where legal (the search agent's prior, the JAX
    PPO's derived inputs; traceable inside a caller's jit). The walks run only for rows with a
    legal action at an anchor or shape decision. ``choice_only``: only greedy_choice of the scores
    is exact (the complete action's anchor scores below the best are then lower bounds)."""
    import jax
    import jax.numpy as jnp

    from monkey_env.monkey_palace.agents import staircase_values as sv

    t, st, L = jg.tables, jg.static, jg.layout

    def only_where(fn, args, need, width, group=None):
        """fn(*args of one game) -> (width,) for the games in `need`, zeros for the others. Under
        vmap both sides of a branch run, so the walks must not run for every game: the games that
        need them are gathered a small group at a time (on a CPU small groups keep the walk in
        cache, as in the engine's batched step; a GPU takes a quarter of the batch at once).
        ``group``: games at a time (default: the engine's)."""
        batch = need.shape[0]
        group = min(batch, group or jg.group_for(batch))

        def work(carry):
            need, out = carry
            idx = jnp.nonzero(need, size=group, fill_value=batch)[0]
            sub = jax.tree_util.tree_map(lambda x: jnp.take(x, jnp.minimum(idx, batch - 1), axis=0), args)
            # Materialise the gathered games: fused into the walk's many reads, the gather is slow.
            values = jax.vmap(fn)(*jax.lax.optimization_barrier(sub))
            return need.at[idx].set(False, mode="drop"), out.at[idx].set(values, mode="drop")

        # The work sits in a conditional's branch, as in the engine's batched step: XLA on a CPU
        # compiles the walk about ten times slower when it is directly a while loop's body.
        body = lambda c: jax.lax.cond(c[0].any(), work, lambda c: c, c)
        out = jnp.zeros((batch, width), jnp.int32)
        return jax.lax.while_loop(lambda c: c[0].any(), body, (need, out))[1]

    def other_scores(s, cells, shapes):
        top, has = sv.pile_tops(s, t)
        buy = jnp.where(has, sv.buy_preference(s.card_bananas[top], t.card_cost[top]), 0)
        arches, bricks = s.supply[s.current, 0], s.supply[s.current, 1]
        slot_top = s.slot_top[s.current]
        slot = jnp.where(slot_top >= 0, -t.card_recurring[jnp.maximum(slot_top, 0)].sum(-1), 0)
        tail = jnp.concatenate([
            buy, jnp.zeros(1, jnp.int32),                                    # buy piles, stop buying
            jnp.stack([arches <= bricks, arches > bricks]).astype(jnp.int32),  # instant arch, brick
            slot, jnp.ones(1, jnp.int32),                                    # slots, monkey stays
            jnp.asarray([0, 1], jnp.int32)])                                 # frog take, decline
        cells = jnp.where(s.phase == Phase.ANCHOR, cells, 0)  # monkey moves score 0, below staying
        return jnp.concatenate([cells, shapes, tail.astype(jnp.int32)])

    @jax.jit
    def scores(states, masks):
        live = masks.any(-1)
        if st.complete:      # anchors and arch steps both from the walk over every staircase
            from monkey_env.monkey_palace.agents.complete_values import walk_scores

            def walk(s, cell_mask):
                cells, steps = walk_scores(s, cell_mask, t, st, s.phase == Phase.ANCHOR, choice_only)
                return jnp.concatenate([cells, steps])
            building = live & ((states.phase == Phase.ANCHOR) | (states.phase == Phase.SHAPE))
            # One game at a time on a CPU: the walk indexes its stack at every arch, and in a
            # group every game waits for the longest walk (docs/ENVIRONMENTS.md).
            both = only_where(walk, (states, masks[:, L.cell:L.cell + NUM_CELLS]), building,
                              NUM_CELLS + L.buy_pile - L.shape,
                              group=jg.group_size or (1 if jax.default_backend() == "cpu" else None))
            cells, shapes = both[:, :NUM_CELLS], both[:, NUM_CELLS:]
        else:
            cells = only_where(lambda s: sv.anchor_values(s, t, st), (states,),
                               live & (states.phase == Phase.ANCHOR), NUM_CELLS)
            shapes = only_where(lambda s: sv.shape_values(s, t, st, s.anchor), (states,),
                                live & (states.phase == Phase.SHAPE), st.n_shapes)
        return jax.vmap(other_scores)(states, cells, shapes)

    assert L.size == L.buy_pile + N_PILES + 1 + 2 + N_SLOTS + 1 + 2
    return scores


def greedy_choice(scores, masks):
    """Greedy's decision from its scores: the best legal action, the lowest index on a tie."""
    import jax.numpy as jnp
    return jnp.argmax(jnp.where(masks, scores, jnp.iinfo(jnp.int32).min), -1).astype(jnp.int32)
