"""The greedy agent's staircase values for the complete build action, in JAX.

The reference greedy (greedy.py, ``_complete_build_scores``) scores an anchor by the best
staircase that starts there, an arch step by the best staircase that begins with it, and
"finish" by the staircase built so far. The best is a maximum over *every* legal staircase,
and that maximum has no table form: the value grows with the arches, and a longest
self-avoiding path does not decompose (the masks' loop erasure only answers whether some
staircase exists). So this module walks the staircases themselves, as
``BuildSearch.staircases_from`` does: a depth-first walk with an explicit stack in a while
loop, for one game (greedy.batch_scores runs it for the games at a build decision, one at a time
on a CPU). An iteration visits one prefix and values all its children at once; a child gets a
visit of its own only if it may go on (a sound leaf test), and no iteration goes back.

What it visits: every prefix the rules allow (staircases.BuildSearch.extend) that is attached
or can still attach by the reference's own bound (``BuildSearch._promising``: the lattice
distance to an element and the ground supports on the way). That bound only removes prefixes
without a legal completion, so the finished staircases visited are exactly the legal ones;
a few unattached prefixes with no completion are walked in vain (with the reference's search
on greedy's positions, about a fifth more prefixes than with its exact completability test).
A stud is never revisited (rule I): arches join lattice points three studs apart, and two
arches share a stud only where they share a lattice point, so the walk compares far ends with
the path's points.

At an anchor decision only each anchor's best value is asked, so the walk is a branch and
bound: a child is not visited when no staircase through it can beat the anchor's best so far
(``value_bound``, from the units and arches left). Exact, since only subtrees whose every
staircase is worth at most that best are skipped; it visits about 30% fewer prefixes, on
random-play positions and on greedy's own alike (docs/ENVIRONMENTS.md).

Greedy's own decision (``choice_only``) needs less: only the best action, the lowest index on a
tie. Its walk cuts a subtree that cannot beat the best of every anchor walked before (lower
anchors win ties), and at an arch decision one that cannot beat its own first step's best so
far, a lower first step's, or come level with a higher one's (finish is the highest). The
action with the best value and the lowest index is never cut, so the choice is the exact one;
the other actions' scores are then lower bounds. On greedy self-play this walks an anchor
decision in about a third of the time and an arch decision in two thirds.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from monkey_env.monkey_palace.agents.staircase_values import NO_PAIR, bonus_value, colour_values, purchase_table
from monkey_env.monkey_palace.geometry import BOARD_SIZE
from monkey_env.monkey_palace.jaxgame import complete_masks as cm
from monkey_env.monkey_palace.jaxgame.complete_build import planes
from monkey_env.monkey_palace.jaxgame.legality import HEADING_STEPS
from monkey_env.monkey_palace.jaxgame.state import State
from monkey_env.monkey_palace.jaxgame.tables import Static, Tables

FAR = 1 << 12   # lattice distance from a class without any element (the reference's "far")
SPAN = cm.SPAN
LEVELS = 128        # levels the value bound tabulates: heights are int8, so above them every height test passes


def element_distance(height, rest_ok) -> jnp.ndarray:
    """(32, 32) int32: the fewest arches whose last far leg, from a near leg here, can stand on
    an element (BuildSearch._arches_to_element): the L1 distance on the stud's lattice class."""
    element = cm.to_classes((height > 0) & rest_ok, False)                     # (9, 11, 11) [class, j, i]
    idx = jnp.arange(cm.GRID)
    apart = jnp.abs(idx[:, None] - idx[None, :])                                # (11, 11)
    d = jnp.where(element, 0, FAR)
    d = (d[:, :, None, :] + apart[None, None]).min(-1)                          # along i
    d = (d[:, None, :, :] + apart[None, :, :, None]).min(2)                     # along j
    return jnp.minimum(cm.from_classes(d), FAR).astype(jnp.int32)


# A frame of the walk's stack: one prefix, and the steps after it still to walk.
CELL, HEADING, LEVEL, ARCHES, UNITS, REMAINDER, ATTACHED, TALLEST, FIRST = range(9)
N_FIELDS = 9


def walk_scores(s: State, mask_cells, tables: Tables, static: Static, at_anchor, choice_only: bool = False):
    """((1024,) int32, (4 * R + 1,) int32): the greedy's scores of this decision for one game.

    ``at_anchor`` (traced bool): an anchor decision, whose legal anchors are ``mask_cells``;
    each gets its best staircase's value (NO_PAIR elsewhere). With ``choice_only`` only the
    choice is kept exact, not every anchor's value: the walk prunes against the best staircase of
    every anchor so far, not only this one's (the module's docstring). Otherwise an arch decision of the
    prefix in ``s``: each next step gets the best staircase that begins with it (NO_PAIR where
    none), and the last entry, finish, the staircase as it stands (NO_PAIR if it may not finish).

    The stack holds one frame per arch count (the prefix, then a bit per next step still to
    walk, a 32-bit word per heading); a last row takes the writes an iteration does not make,
    so no iteration copies the stack."""
    R, cu = static.n_rises, static.column_units
    # The rises a player within the caps can pay (past them the engine refuses the game by name).
    W = min(R, static.caps.max_units + 1)
    assert W <= 32, "a heading's rises are one 32-bit word"
    D = static.caps.max_arches + 1                  # frames: one per arch count, 0..max_arches
    n_cells = BOARD_SIZE * BOARD_SIZE
    height, clearance, rest_ok, _ = planes(s, static)
    # One row per stud (and one off the plate): height, clearance, leg may rest, distance.
    info = jnp.stack([height.astype(jnp.int32), clearance.astype(jnp.int32), rest_ok.astype(jnp.int32),
                      element_distance(height, rest_ok)], -1).reshape(n_cells, 4)
    info = jnp.concatenate([info, jnp.asarray([[FAR, FAR, 0, FAR]], jnp.int32)])
    arches_held, bricks, columns = s.supply[s.current, 0], s.supply[s.current, 1], s.supply[s.current, 2]
    most = bricks + cu * columns
    table = purchase_table(s, tables, static, static.caps.max_arches)
    most_arches = jnp.minimum(arches_held, D - 1)   # a staircase's arches: the player's, one frame each
    highest = height.max().astype(jnp.int32)        # no far leg stands on a taller knob
    # value_bound's value without the bonus, by colour and last level: every arch allowed,
    # the most Banana Points up to each credit count (the running maximum of the cards' table).
    by_level = colour_values(s, tables, jax.lax.cummax(table, axis=1), most_arches,
                             jnp.arange(LEVELS) + 2).T                   # (3, LEVELS)
    rises = jnp.arange(W, dtype=jnp.int32)
    bits = jnp.left_shift(jnp.uint32(1), rises.astype(jnp.uint32))
    slots = jnp.arange(D + 1)
    dx, dy = HEADING_STEPS[:, 0], HEADING_STEPS[:, 1]
    span = jnp.arange(1, SPAN + 1)
    headings = jnp.arange(4)

    def value(colour, arches, level, tallest):
        by_colour = colour_values(s, tables, table, arches, level + 2)
        return by_colour[..., colour] + bonus_value(s, static, tallest)

    def value_bound(colour, lv, units, tallest, arches_after):
        """At least the value of every staircase that goes on from a child (level ``lv``,
        ``units`` used, ``tallest`` stack, ``arches_after`` arches still allowed after it). Its
        last level L: each rise is a unit and the last far support is L minus a knob's height,
        so with k more arches L - lv - k + L - highest <= the units left; the credits are at most
        every arch allowed plus one; the tallest new stack at most the units left. Every term of
        the value grows with these (the cards' table through its running maximum)."""
        left = most - units
        last = jnp.minimum(lv + arches_after + left, (left + lv + arches_after + highest) // 2)
        return (by_level[colour, jnp.clip(last, 0, LEVELS - 1)] + jnp.maximum(last - LEVELS + 1, 0)
                + bonus_value(s, static, jnp.maximum(tallest, left)))

    def expand(f, path, colour, beat_of):
        """Every arch after frame ``f`` at once: ((4,) uint32, (4, W) int32). The words hold a
        bit per (heading, rise) of the children still to visit: allowed by the rules, with a
        legal completion still possible by the reference's bound, not surely a leaf, and able to
        beat ``beat_of(values)`` by :func:`value_bound` (at an anchor decision the root's best
        staircase so far, with these children's own: the walk wants only each root's best value,
        and a subtree that cannot exceed it changes nothing; with ``choice_only``, walk_scores'
        docstring). The values are every allowed
        child's own as a staircase (NO_PAIR where it may not finish), so a leaf is valued here
        and never visited."""
        x, y = f[CELL] % BOARD_SIZE, f[CELL] // BOARD_SIZE
        cx, cy = x + dx[:, None] * span, y + dy[:, None] * span                  # (4, 3)
        inside = (0 <= cx) & (cx < BOARD_SIZE) & (0 <= cy) & (cy < BOARD_SIZE)
        on = inside.all(-1)
        far = jnp.where(on, cy[:, 2] * BOARD_SIZE + cx[:, 2], n_cells)
        # The far knobs' neighbours an arch later, for the leaf test: (4 here, 4 next).
        fx, fy = cx[:, 2, None] + SPAN * dx[None], cy[:, 2, None] + SPAN * dy[None]
        beyond = (0 <= fx) & (fx < BOARD_SIZE) & (0 <= fy) & (fy < BOARD_SIZE)
        next_far = jnp.where(beyond, fy * BOARD_SIZE + fx, n_cells)
        v = info[jnp.concatenate([jnp.where(inside, cy * BOARD_SIZE + cx, n_cells), next_far], 1)]   # (4, 7, 4)
        revisits = ((path[None, :] == far[:, None]) & (slots < f[ARCHES])[None]).any(-1)
        back = (f[HEADING] >= 0) & ((headings - f[HEADING]) % 4 == 2)
        under, middle = v[:, 2, 0, None], jnp.maximum(v[:, 0, 1], v[:, 1, 1])[:, None]
        lv = f[LEVEL] + 1 + rises[None]                                          # (1, W)
        support = lv - under
        units = f[UNITS] + rises + support
        remainder = f[REMAINDER] + rises % cu + support % cu
        legal = ((on & ~revisits & ~back & (v[:, 2, 2] > 0))[:, None] & (f[ARCHES] < most_arches)
                 & (middle <= lv) & (under <= lv) & (units <= most) & (remainder <= bricks))
        attached = (f[ATTACHED] > 0) | (under > 0)
        # BuildSearch._promising of the child: an unattached prefix must still reach an
        # element within its arches, paying a ground support for each arch before that one.
        need = jnp.maximum(1, v[:, 2, 3, None])
        near = need <= arches_held - f[ARCHES] - 1
        need = jnp.minimum(need, D)
        promising = near & (units + (need - 1) * lv + (need - 1) * need // 2 <= most)
        ok = legal & (attached | promising)
        # A child is surely a leaf when it holds no arch more, or when every next arch costs
        # more units than are left: an arch on a knob of height u after level l costs at least
        # |l + 1 - u| (a rise up to u, or a support down to it).
        next_under, next_rest = v[:, 3:, 0], v[:, 3:, 2]                          # (4 here, 4 next)
        turn_ok = (headings[:, None] - headings[None, :]) % 4 != 2
        cheapest = jnp.min(jnp.where((turn_ok & (next_rest > 0))[:, None], jnp.abs(lv[..., None] + 1 - next_under[:, None]),
                                     FAR), -1)                                   # (4, W)
        inner = (f[ARCHES] + 2 <= most_arches) & (units + cheapest <= most)
        tallest = jnp.maximum(f[TALLEST], jnp.maximum(rises, support))
        values = jnp.where(ok & attached, value(colour, f[ARCHES] + 1, lv, tallest), NO_PAIR)
        worth = value_bound(colour, lv, units, tallest, most_arches - f[ARCHES] - 1) > beat_of(values)
        words = jnp.where(ok & inner & worth, bits, jnp.uint32(0)).sum(-1, dtype=jnp.uint32)
        return words, values

    def child(f, h, r, first):
        level = f[LEVEL] + 1 + r
        far = f[CELL] + SPAN * (dy[h] * BOARD_SIZE + dx[h])
        under = info[far, 0]
        support = level - under
        return jnp.stack([far, h, level, f[ARCHES] + 1, f[UNITS] + r + support,
                          f[REMAINDER] + r % cu + support % cu, jnp.maximum(f[ATTACHED], (under > 0).astype(jnp.int32)),
                          jnp.maximum(f[TALLEST], jnp.maximum(r, support)), first])

    # The roots: the legal anchors in index order, or the prefix in ``s`` (one root).
    anchors = jnp.nonzero(mask_cells, size=n_cells, fill_value=0)[0].astype(jnp.int32)
    n_roots = jnp.where(at_anchor, mask_cells.sum(), 1)
    root_depth = jnp.where(at_anchor, 0, s.b_arches)
    held = jnp.stack([s.b_cursor, s.b_heading, s.b_level, s.b_arches, s.b_units, s.b_remainder,
                      s.b_attached.astype(jnp.int32), s.b_tallest, 0]).astype(jnp.int32)

    def root(i):
        cell = anchors[jnp.minimum(i, n_cells - 1)]
        fresh = jnp.stack([cell, -1, -1, 0, 0, 0, 0, 0, 0]).astype(jnp.int32)
        return jnp.where(at_anchor, fresh, held)

    def colour_at(cell):
        return jnp.clip(s.knob.reshape(-1)[cell].astype(jnp.int32), 0, 2)

    # The path's studs: the prefix's arch ends (near legs) in the frames below the root.
    frames = jnp.zeros((D + 1, N_FIELDS), jnp.int32)
    ends = jnp.take(s.arch_ends, jnp.minimum(slots, s.arch_ends.shape[0] - 1))
    frames = frames.at[:, CELL].set(jnp.where(slots < root_depth, ends, -1))

    def body(c):
        # The deepest frame with a child left to visit (the frames above it are spent): no
        # iteration goes back. None left: the root is done, and the next one starts.
        live = (c["words"] != 0).any(-1) & (slots >= root_depth) & (slots <= c["depth"])
        t = jnp.max(jnp.where(live, slots, -1))
        starting = t < 0
        td = jnp.maximum(t, 0)
        top, words = c["frames"][td], c["words"][td]
        # That frame's first child left, or the next root (an anchor, or the prefix itself).
        h = jnp.argmax(words != 0)
        word = words[h]
        low = word & (~word + jnp.uint32(1))
        r = jax.lax.population_count(low - jnp.uint32(1)).astype(jnp.int32)
        new = jnp.where(starting, root(c["next_root"]), child(top, h, r, jnp.where(t == root_depth, h * R + r, top[FIRST])))
        colour = jnp.where(starting, colour_at(jnp.where(at_anchor, new[CELL], s.anchor)), c["colour"])
        at = jnp.where(starting, root_depth, t + 1)
        best = jnp.where(starting, NO_PAIR, c["best"])
        # The first step this visit is under (at an arch decision's root: all of them at once).
        first = (new[FIRST] // R) * W + new[FIRST] % R

        def known_after(values):
            """c["known"] with this visit's children's values (a root's children: each first step)."""
            return jnp.where(starting, c["known"].at[:4 * W].set(values.reshape(-1)), c["known"].at[first].max(values.max()))

        def beat_of(values):
            """What a child must be able to exceed to be visited (its bound is compared with it)."""
            anchor = jnp.maximum(jnp.maximum(best, c["seen"]) if choice_only else best, values.max())
            if not choice_only:   # every first step's own best is asked, so arch decisions do not prune
                return jnp.where(at_anchor, anchor, NO_PAIR)
            # The choice only: a subtree is cut when it cannot beat its own first step's best so far,
            # or a lower first step's (which wins a tie), or come level with a higher one's
            # (finish is the highest).
            now = known_after(values)
            lower = jnp.concatenate([jnp.full(1, NO_PAIR, jnp.int32), jax.lax.cummax(now)[:-1]])
            higher = jnp.concatenate([jax.lax.cummax(now, reverse=True)[1:], jnp.full(1, NO_PAIR, jnp.int32)])
            beat = jnp.maximum(jnp.maximum(now, lower), higher - 1)
            arch = jnp.where(starting, beat[:4 * W].reshape(4, W), beat[first])
            return jnp.where(at_anchor, anchor, arch)

        new_words, values = expand(new, c["frames"][:, CELL].at[at].set(new[CELL]), colour, beat_of)
        grow = (new_words != 0).any()
        words_out = c["words"].at[jnp.where(starting, D, td), h].set(word & ~low)
        return dict(
            frames=c["frames"].at[jnp.where(grow, at, D)].set(new),
            words=words_out.at[jnp.where(grow, at, D)].set(new_words),
            depth=jnp.where(grow, at, t),
            next_root=c["next_root"] + starting.astype(jnp.int32),
            colour=colour,
            best=jnp.maximum(best, values.max()),
            # Only the choice reads these (the exact scores' carry stays as small as it was).
            **({"seen": jnp.maximum(c["seen"], values.max()), "known": known_after(values)} if choice_only else {}),
            # A root starting after another: the one before is done.
            cells=c["cells"].at[jnp.where(starting & (c["next_root"] > 0) & at_anchor, c["root_cell"], n_cells)]
            .max(c["best"]),
            root_cell=jnp.where(starting, new[CELL], c["root_cell"]),
            # Under the root each child is a first step of its own (kept apart, placed at the end).
            root_values=jnp.where(starting, values, c["root_values"]),
            step_best=c["step_best"].at[jnp.where(starting, 4 * R, new[FIRST])].max(values.max()),
            done=starting & (c["next_root"] >= n_roots))

    prefix_value = value(colour_at(s.anchor), s.b_arches, s.b_level, s.b_tallest)
    finish = jnp.where(~at_anchor & (s.b_arches > 0) & s.b_attached, prefix_value, NO_PAIR)
    carry = dict(frames=frames, words=jnp.zeros((D + 1, 4), jnp.uint32), depth=root_depth - 1,
                 next_root=jnp.int32(0), root_cell=jnp.int32(0), colour=jnp.int32(0),
                 best=jnp.int32(NO_PAIR),
                 cells=jnp.full(n_cells + 1, NO_PAIR, jnp.int32), step_best=jnp.full(4 * R + 1, NO_PAIR, jnp.int32),
                 root_values=jnp.full((4, W), NO_PAIR, jnp.int32), done=n_roots == 0)
    if choice_only:   # the best staircase of every root so far; per first step (heading, rise), finish last
        carry.update(seen=jnp.int32(NO_PAIR), known=jnp.full(4 * W + 1, NO_PAIR, jnp.int32).at[4 * W].set(finish))
    carry = jax.lax.while_loop(lambda c: ~c["done"], body, carry)

    firsts = (headings[:, None] * R + rises[None]).reshape(-1)
    steps = carry["step_best"].at[firsts].max(carry["root_values"].reshape(-1))
    # At an anchor decision the steps are not asked (and the pruned walk did not value them all).
    steps = jnp.where(at_anchor, NO_PAIR, steps.at[4 * R].set(finish))
    return carry["cells"][:n_cells], steps
