"""The JAX complete build action's masks (jaxgame/complete_masks.py) against the reference's
own: BuildSearch's legal anchors, next steps and finish are the truth, on positions of real
games of the four maps and 2-4 players, with the players' supplies and column-heavy ones."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from test_complete_staircases import POSITIONS

from monkey_env.monkey_palace.jaxgame import complete_masks as cm
from monkey_env.monkey_palace.staircases import BuildSearch

CAPS = cm.Caps(max_units=16)
# Columns make the remainders bind, which real games' supplies rarely do.
SUPPLIES = [None, (6, 4, 3), (8, 2, 6), (7, 0, 5)]


def _planes(search: BuildSearch):
    return (jnp.asarray(search.height, jnp.int8), jnp.asarray(search.clearance, jnp.int8),
            jnp.asarray(search.rest_ok), jnp.asarray(search.anchor_ok))


_anchor_mask = jax.jit(lambda h, c, r, a, s: cm.anchor_mask(h, c, r, a, s, CAPS))


@pytest.mark.parametrize("index", range(len(POSITIONS)), ids=[p[2] for p in POSITIONS])
def test_the_anchor_mask_is_buildsearch_s(index):
    palace, held, _ = POSITIONS[index]
    for supply in [held] + SUPPLIES[1:]:
        search = BuildSearch(palace, *supply)
        got = np.asarray(_anchor_mask(*_planes(search), jnp.asarray(supply, jnp.int32)))
        wrong = np.argwhere(got != search.legal_anchors())
        assert len(wrong) == 0, f"supply {supply}: differ at [y, x] {wrong[:5].tolist()}"


def test_the_caps_bound_what_a_ground_landing_can_afford():
    caps = cm.Caps(max_units=16)
    assert caps.top_level == 8 and caps.levels == 10 and caps.columns == 6
    assert 2 * (caps.top_level + 1) - 1 > caps.max_units     # one level more costs too much
    assert cm.beyond_cap(jnp.asarray([3, 5, 4]), caps) and not cm.beyond_cap(jnp.asarray([3, 4, 4]), caps)


def test_the_lattice_classes_round_trip():
    plane = jnp.arange(32 * 32, dtype=jnp.int32).reshape(32, 32)
    classes = cm.to_classes(plane, -1)
    assert classes.shape == (9, 11, 11)
    assert int(classes[1 * 3 + 2, 4, 5]) == (3 * 4 + 1) * 32 + 3 * 5 + 2   # class (y%3, x%3), point (x//3, y//3)
    assert (cm.from_classes(classes) == plane).all()
