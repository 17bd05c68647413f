"""What a staircase brings this turn, for every legal (anchor, shape) pair: the greedy agent's
value (monkey_env/monkey_palace/agents/greedy.py states it readably on the reference engine; the two are held together
by tests/games/monkey_palace/test_greedy.py).

    value = POINT * (bananas of the cards the credits buy + bonus card + trophies) + decoration top

* credits: the staircase's arches, + 1 if its decoration is strictly the highest of its colour;
  the cards are those the greedy buying rule takes with them from the visible pile tops
  (:func:`purchase_table`, one entry per colour and credit count);
* bonus card: its points if the tallest stack reaches the bonus threshold and one is left;
* trophies: the Monkey on a gold stud, the Butterfly (when that option is on) for the
  decoration that wins it, each only if the player does not hold it already;
* the decoration's top height breaks ties between equal points (higher first); it is below
  POINT, so it never outweighs a Banana Point.

At the anchor decision the values of all pairs come from the walk that computes the anchor
mask (legality.lane_walk: the tallest stack and the last arch's level are carried along the
tree), keeping per anchor the best value; at the shape decision the same walk runs at the
chosen anchor only (legality.walk_at_anchor).
"""

from __future__ import annotations

import jax.numpy as jnp

from monkey_env.monkey_palace.actions import N_PILES
from monkey_env.monkey_palace.geometry import BOARD_SIZE, Colour
from monkey_env.monkey_palace.jaxgame.legality import lane_walk, walk_at_anchor
from monkey_env.monkey_palace.jaxgame.rules import BUTTERFLY, MONKEY, OPT_BUTTERFLY, OPT_BUTTERFLY_OVERALL
from monkey_env.monkey_palace.jaxgame.state import State
from monkey_env.monkey_palace.jaxgame.tables import Static, Tables

POINT = 256        # one Banana Point; decoration tops stay below it (at most 122 in the JAX engine)
MULTI = 3          # tables.COLOUR_CODES["multi"]
NO_PAIR = -1       # the value of an anchor without a legal staircase


def buy_preference(bananas, cost):
    """The greedy buying rule's order of cards: most Banana Points, then the cheaper (it
    leaves more credits); equal cards go to the lowest pile index (argmax takes the first)."""
    return 16 * bananas + 8 - cost


def pile_tops(state: State, tables: Tables):
    """(12,) top card of each pile (garbage where empty), and whether the pile has one."""
    top = state.pile_cards[jnp.arange(N_PILES), jnp.maximum(state.pile_len - 1, 0)]
    return top, state.pile_len > 0


def purchase_table(state: State, tables: Tables, static: Static, most_arches: int | None = None) -> jnp.ndarray:
    """(3, most_arches + 2) int32: Banana Points of the cards the greedy buying rule takes
    with n credits after a decoration of colour c, from the visible pile tops (one card per
    pile per turn, so a pile's next card is never reached). ``most_arches``: the most arches
    of a staircase (the catalogue's longest shape unless given)."""
    most_arches = static.max_arches if most_arches is None else most_arches
    top, has = pile_tops(state, tables)
    cost, bananas, colour = tables.card_cost[top], state.card_bananas[top], tables.card_colour[top]
    pref = buy_preference(bananas, cost)
    colours = jnp.arange(3)[:, None, None]
    left = jnp.broadcast_to(jnp.arange(most_arches + 2)[None, :], (3, most_arches + 2))
    open_ = jnp.broadcast_to((has & ((colour == MULTI) | (colour == colours))), (3,) + left.shape[1:] + (N_PILES,))
    total = jnp.zeros_like(left)
    for _ in range(N_PILES):  # each round buys at most one card per (colour, credits)
        can = open_ & (cost <= left[..., None])
        pick = jnp.argmax(jnp.where(can, pref, -1), -1)
        bought = can.any(-1)
        total = total + jnp.where(bought, bananas[pick], 0)
        left = left - jnp.where(bought, cost[pick], 0)
        open_ = open_ & ~(bought[..., None] & (jnp.arange(N_PILES) == pick[..., None]))
    return total


def colour_values(state: State, tables: Tables, table, depth, deco_top) -> jnp.ndarray:
    """(..., 3) int32: value of a staircase of `depth` arches whose decoration top is `deco_top`
    (arrays of any shape), for each anchor colour, without the bonus card."""
    deco_top = jnp.asarray(deco_top, jnp.int32)[..., None]
    depth = jnp.asarray(depth, jnp.int32)[..., None]
    colours = jnp.arange(3)
    highest_of_colour = deco_top > state.deco_max
    credits = depth + highest_of_colour
    bananas = table[colours, credits]
    points = state.trophy_points
    monkey = jnp.where((colours == Colour.GOLD) & (state.holders[MONKEY] != state.current), points[MONKEY], 0)
    wins = jnp.where(state.options[OPT_BUTTERFLY_OVERALL], deco_top > jnp.max(state.deco_max), highest_of_colour)
    butterfly = jnp.where(state.options[OPT_BUTTERFLY] & wins & (state.holders[BUTTERFLY] != state.current),
                          points[BUTTERFLY], 0)
    return POINT * (bananas + monkey + butterfly) + deco_top


def bonus_value(state: State, static: Static, tallest) -> jnp.ndarray:
    """The bonus card's share of the value for a staircase whose tallest stack is `tallest`."""
    earns = (tallest >= static.bonus_min_stack) & (state.bonus_left > 0)
    return jnp.where(earns, POINT * state.bonus_points, 0)


def anchor_values(state: State, tables: Tables, static: Static) -> jnp.ndarray:
    """(1024,) int32: the best value of a legal staircase from each anchor, NO_PAIR if none."""
    table = purchase_table(state, tables, static)

    def on_node(best, colour, node):
        by_colour = colour_values(state, tables, table, node["depth"], node["level"].astype(jnp.int32) + 2)
        # Ground knobs 0, 1, 2 are the light, dark and gold studs (geometry.GROUND_OF_COLOUR);
        # a cell of another knob is never a legal anchor.
        value = jnp.where(colour == 0, by_colour[0], jnp.where(colour == 1, by_colour[1], by_colour[2]))
        value = value + bonus_value(state, static, node["tallest"])
        return jnp.maximum(best, jnp.where(node["legal"], value, NO_PAIR))

    init = jnp.full((BOARD_SIZE, BOARD_SIZE), NO_PAIR, jnp.int32)
    return lane_walk(state, static, on_node, init, extra=state.knob).max(0).reshape(-1)


def shape_values(state: State, tables: Tables, static: Static, anchor) -> jnp.ndarray:
    """(S,) int32: the value of every shape built from `anchor` (meaningful where legal)."""
    table = purchase_table(state, tables, static)
    tallest = walk_at_anchor(state, static, anchor)["tallest"].astype(jnp.int32)
    last = tables.shape_k - 1
    deco_top = tables.arch_level[jnp.arange(static.n_shapes), last] + 2
    colour = jnp.clip(state.knob.reshape(-1)[anchor].astype(jnp.int32), 0, 2)
    by_colour = colour_values(state, tables, table, tables.shape_k, deco_top)
    return by_colour[:, colour] + bonus_value(state, static, tallest)

