"""The complete build action's turn in the JAX engine: a staircase built arch by arch.

The same steps as the reference engine's (engine.Game with ``build_action: complete``): the
anchor starts a prefix, each ``(heading, rise)`` adds an arch to it (BuildSearch.extend), and
FINISH puts the staircase on the palace (Palace.check_steps, then build_staircase). The
prefix lives in the State's ``b_*`` fields and ``arch_ends``/``arch_heading``/``arch_level``
(one entry per arch); the masks are jaxgame/complete_masks.py's, and the build decision's mask
is held in ``shape_mask``: the ARCH range then FINISH (the layout's SHAPE range is empty).
"""

from __future__ import annotations

import jax.numpy as jnp

from monkey_env.monkey_palace.actions import Phase
from monkey_env.monkey_palace.geometry import BOARD_SIZE
from monkey_env.monkey_palace.jaxgame import complete_masks as cm
from monkey_env.monkey_palace.jaxgame.legality import (
    _BUILDABLE,
    _GROUND,
    HEADING_STEPS,
    animal_plane,
    last_writes,
    place_staircase,
)
from monkey_env.monkey_palace.jaxgame.state import PENDING_NONE, PENDING_SHAPE_MASK, State
from monkey_env.monkey_palace.jaxgame.tables import Static


def planes(s: State, static: Static):
    """The palace as the masks read it: height, clearance (an animal adds its height), knobs an
    arch's leg may rest on, anchors (open coloured ground)."""
    animal = animal_plane(s)
    clearance = s.height + (animal * static.animal_height).astype(jnp.int8)
    return s.height, clearance, _BUILDABLE[s.knob] & ~animal, _GROUND[s.knob] & ~animal


def over_cap(s: State, static: Static):
    """The current player holds more than the masks' tables are sized for (refused by name)."""
    return cm.beyond_cap(s.supply[s.current], static.caps)


def tier_of(s: State, static: Static):
    """() int32: which of the tables' sizes (complete_masks.tiers) the current player's masks use."""
    return cm.tier_of(s.supply[s.current], static.caps)


def caps_of(static: Static, tier=None) -> cm.Caps:
    """The tables' sizes of ``tier`` (complete_masks.tiers: the batched driver's groups are one
    tier each), or the caps themselves when None: one game at a time (the single-game step, or
    under vmap) a switch between tiers would put every tier's tables in the program and, under
    vmap, run them all."""
    return static.caps if tier is None else cm.tiers(static.caps)[tier]


def anchor_mask(s: State, static: Static, tier=None) -> jnp.ndarray:
    """(1024,) bool: the anchors from which a legal staircase can be built this turn."""
    height, clearance, rest_ok, anchor_ok = planes(s, static)
    return cm.anchor_mask(height, clearance, rest_ok, anchor_ok, s.supply[s.current],
                          caps_of(static, tier)).reshape(-1)


def begin(s: State, anchor) -> State:
    """The anchor is chosen: an empty prefix standing on it."""
    J = s.arch_ends.shape[0]
    return s._replace(anchor=anchor, phase=jnp.int32(Phase.SHAPE), pending=jnp.int32(PENDING_SHAPE_MASK),
                      b_cursor=anchor, b_heading=jnp.int32(-1), b_level=jnp.int32(-1), b_arches=jnp.int32(0),
                      b_units=jnp.int32(0), b_remainder=jnp.int32(0), b_attached=jnp.asarray(False),
                      b_tallest=jnp.int32(0),
                      b_covered=jnp.zeros_like(s.b_covered).reshape(-1).at[anchor].set(True).reshape(s.b_covered.shape),
                      arch_ends=jnp.full((J,), -1, jnp.int32), arch_heading=jnp.full((J,), -1, jnp.int8),
                      arch_level=jnp.zeros((J,), jnp.int32))


def add_arch(s: State, heading, rise, static: Static) -> State:
    """One more arch (assumed legal: the mask allowed it), as BuildSearch.extend."""
    cu = static.column_units
    x, y = s.b_cursor % BOARD_SIZE, s.b_cursor // BOARD_SIZE
    dx, dy = HEADING_STEPS[heading, 0], HEADING_STEPS[heading, 1]
    level = s.b_level + 1 + rise
    fx, fy = x + 3 * dx, y + 3 * dy
    under = s.height[fy, fx].astype(jnp.int32)
    support = level - under
    covered = s.b_covered
    for t in (1, 2, 3):
        covered = covered.at[y + t * dy, x + t * dx].set(True)
    j = s.b_arches
    return s._replace(
        b_cursor=fy * BOARD_SIZE + fx, b_heading=heading, b_level=level, b_arches=j + 1,
        b_units=s.b_units + rise + support, b_remainder=s.b_remainder + rise % cu + support % cu,
        b_attached=s.b_attached | (under > 0), b_tallest=jnp.maximum(s.b_tallest, jnp.maximum(rise, support)),
        b_covered=covered, arch_ends=s.arch_ends.at[j].set(s.b_cursor),
        arch_heading=s.arch_heading.at[j].set(heading.astype(jnp.int8)), arch_level=s.arch_level.at[j].set(level),
        pending=jnp.int32(PENDING_SHAPE_MASK))


def step_mask(s: State, static: Static, tier=None) -> State:
    """The build decision's mask after the prefix: every allowed arch, then FINISH."""
    height, clearance, rest_ok, _ = planes(s, static)
    prefix = dict(x=s.b_cursor % BOARD_SIZE, y=s.b_cursor // BOARD_SIZE, heading=s.b_heading, level=s.b_level,
                  arches=s.b_arches, units=s.b_units, remainder=s.b_remainder, attached=s.b_attached,
                  covered=s.b_covered)
    steps, finish = cm.next_step_mask(height, clearance, rest_ok, s.supply[s.current], prefix, static.n_rises,
                                      caps_of(static, tier))
    return s._replace(shape_mask=jnp.concatenate([steps.reshape(-1), finish[None]]), pending=jnp.int32(PENDING_NONE))


def arch_studs(s: State, written) -> jnp.ndarray:
    """(4J,) int32: the flat studs of the prefix's arches (near end, middles, far end, arch by arch
    in building order) for the arches ``written`` ((J,) bool), NUM_CELLS for a stud a later arch
    writes again or an arch not written (legality.last_writes: a chain of 4J scatters took most of
    the single-game program's compilation and ran at every step under vmap)."""
    near = jnp.maximum(s.arch_ends, 0)
    h = jnp.maximum(s.arch_heading.astype(jnp.int32), 0)
    t = jnp.arange(4)
    x = (near % BOARD_SIZE)[:, None] + t[None, :] * HEADING_STEPS[h, 0][:, None]
    y = (near // BOARD_SIZE)[:, None] + t[None, :] * HEADING_STEPS[h, 1][:, None]
    where = (jnp.clip(y, 0, BOARD_SIZE - 1) * BOARD_SIZE + jnp.clip(x, 0, BOARD_SIZE - 1)).reshape(-1)
    return last_writes(where, written)


def finish(s: State, static: Static) -> State:
    """The staircase goes on the palace: arches in building order (a later arch's near end covers
    the junction), the decoration on the last far end, the supply paid with columns first."""
    cu = static.column_units
    J = s.arch_ends.shape[0]
    used = jnp.minimum((s.b_units - s.b_remainder) // cu, s.supply[s.current, 2])
    paid = jnp.stack([s.b_arches, s.b_units - cu * used, used])
    return place_staircase(s, arch_studs(s, jnp.arange(J) < s.b_arches), s.arch_level, s.b_cursor, s.b_level + 2,
                           paid, s.b_tallest)
