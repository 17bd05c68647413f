"""The single-game program's size (what a new process compiles before the AEC env's first step)
and the node-vectorised shape mask against the unrolled walk of the anchor mask."""

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from monkey_env.monkey_palace.jaxgame.env import jax_game_for
from monkey_env.monkey_palace.jaxgame.legality import anchor_mask, build_parts, walk_at_anchor
from monkey_env.monkey_palace.options import GameOptions

# The catalogue's engine: its shape walk and program size.
CATALOGUE = GameOptions(build_action="catalogue")
COMPLETE = GameOptions(build_action="complete")

# Instructions of `_reset_or_step` before XLA's optimisation, per build action. XLA's compile
# time grows with them: lower a ceiling when the program shrinks, never raise it
# (docs/JAX_ENGINE.md, "Start-up"). The catalogue's: 15,849 when the shape mask and the build were
# unrolled node by node and arch by arch, 9,733 after (8,764 now). The complete action's: 11,408
# while its finish wrote the arches' studs one scatter at a time (compiling in 11 s), 6,064 since.
MAX_SINGLE_GAME_HLO = {"catalogue": 10_500, "complete": 7_000}


@pytest.mark.parametrize("options", [CATALOGUE, COMPLETE], ids=lambda o: o.build_action)
def test_single_game_program_stays_small(options):
    jg = jax_game_for(options)
    lowered = jax.jit(jg._reset_or_step).lower(jg.blank_state(), jnp.int32(0), jax.random.PRNGKey(0),
                                                jg.default_params, jnp.asarray(True))
    count = len(re.findall(r"= \S+ \w[\w-]*\(", lowered.compiler_ir("hlo").as_hlo_text()))
    assert 1_000 < count <= MAX_SINGLE_GAME_HLO[options.build_action], \
        f"the {options.build_action} single-game program has {count} HLO instructions"


def test_shape_mask_agrees_with_the_anchor_mask_and_the_built_stacks():
    """At every anchor of positions from random games, some shape is legal by the node-vectorised
    walk exactly where the unrolled walk's anchor mask says so, and a legal shape's tallest stack
    is the tallest of the stacks its building would use."""
    jg = jax_game_for(CATALOGUE)
    static, tables = jg.static, jg.tables
    anchors = jnp.arange(1024)
    walk = jax.jit(jax.vmap(lambda s, a: walk_at_anchor(s, static, a), in_axes=(None, 0)))
    tallest_built = jax.jit(jax.vmap(jax.vmap(lambda s, a, shape: build_parts(s, tables, a, shape).max(),
                                              in_axes=(None, None, 0)), in_axes=(None, 0, None)))
    masks = jax.jit(lambda s: anchor_mask(s, tables, static))
    rng = np.random.default_rng(0)
    states = jg.batch_init(jax.random.split(jax.random.PRNGKey(1), 4))
    legal_anchors = 0
    for turn in range(12):
        for g in range(4):
            s = jax.tree_util.tree_map(lambda x, g=g: x[g], states)
            if bool(s.terminated):
                continue
            if turn % 2:   # a short or odd supply: the bricks-and-columns check decides more shapes
                s = s._replace(supply=s.supply.at[s.current].set(jnp.asarray(rng.integers(0, 8, 3), jnp.int32)))
            out = walk(s, anchors)
            legal = np.asarray(out["legal"])
            np.testing.assert_array_equal(legal.any(1), np.asarray(masks(s)))
            legal_anchors += int(legal.any(1).sum())
            some = np.flatnonzero(legal.any(1))[:3]
            if some.size:
                built = np.asarray(tallest_built(s, jnp.asarray(some), jnp.arange(static.n_shapes)))
                walked = np.asarray(out["tallest"])[some]
                np.testing.assert_array_equal(np.where(legal[some], walked, 0), np.where(legal[some], built, 0))
        acts = [rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in np.asarray(jg.batch_legal_mask(states))]
        states = jg.batch_step(states, jnp.asarray(acts, jnp.int32))
    assert legal_anchors > 100


def test_blank_state_compiles_nothing_and_matches_the_traced_one(caplog):
    """The blank state is built on the host (no eager op compiled one by one at a new process's
    first reset) and is the State the traced deal starts from: fields, dtypes, shapes, values."""
    from monkey_env.monkey_palace.jaxgame.env import JaxGame
    from monkey_env.monkey_palace.options import GameOptions

    for options in (GameOptions(), GameOptions(build_action="complete")):
        jg = JaxGame(options)
        with caplog.at_level("WARNING"), jax.log_compiles():
            caplog.clear()
            blank = jg.blank_state()
        compiled = [r.getMessage() for r in caplog.records if "Compiling" in r.getMessage()]
        assert not compiled, f"blank_state compiled {compiled}"
        traced = jax.jit(jg._empty_state)()
        for field, a, b in zip(blank._fields, blank, traced):
            assert isinstance(a, jax.Array), field
            assert jax.typeof(a) == jax.typeof(b), (field, jax.typeof(a), jax.typeof(b))
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=field)
