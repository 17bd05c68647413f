"""The policy-and-value network of the JAX PPO agent, shaped like the factored action.

The action is a stud (1,024 anchors, or the monkey's new place), a staircase shape at the chosen
anchor (the catalogue), or one of a few small choices (buy a pile, stop, arch or brick, a slot,
the monkey stays, the frog). The network mirrors that:

    planes (20 + 2 derived, 32, 32) ──1×1──▶ per-stud features h (16) ──4×4 patches──▶ tokens (8×8×W)
    tokens ──2 residual 3×3 convolutions──▶ t ──flatten + the vector's MLP──▶ global features g
    stud logits   = per-stud MLP over [h, t unpatchified to studs, g projected]          (1,024)
    shape logits  = MLP over [h, t's 3×3 tokens around the anchor, g] at the chosen anchor (S)
    small logits  = linear over g                                                          (22)
    value         = MLP over g                                                              ()

**The complete build action** (``n_rises > 0``: a JaxGame with ``build_action: complete``, no
shapes): the input also has the observation's 2 planes of the staircase in progress (the arches
chosen so far, the cursor), 24 planes in all, and the build decision's logits are
factored like its action: the stud logits choose the anchor, then at the cursor (the anchor,
then the last arch's far end) an arch head gives the next arch's (heading, rise) logits, a
heading part plus a rise part per heading, and a finish logit:

    arch logits   = heading(4)[h] + rise(4 × R)[h, r] over [h, t's 3×3 tokens, g] at the cursor   (4 × R)
    finish logit  = linear over the same features                                                (1)

Greedy's scores on this action come from a walk over every legal staircase
(agents/complete_values.py) and enter as on the catalogue (below): the derived planes at the
anchor decision, the per-action features at every arch step and at finish.

Convolutions run only on the 8×8 token grid; everything at the studs' resolution is a 1×1
(a matrix product), because XLA's CPU convolutions (and their gradients) at 32×32 were what
bounded training on a laptop (docs/AGENTS.md gives the measurements).

**Engine-computed inputs.** The greedy agent's one-turn value of every legal action (its
``batch_scores``: the Banana Points a staircase brings this turn, then the decoration's height;
a pile's buying preference) is an input, as two derived stud planes (the best staircase's points
from each anchor, relative to the best anchor, and its decoration height) and, for every action,
as three per-action features added to the logits with learned per-phase weights: points
relative to the best legal action, the tie-break part, and whether greedy would choose it. The
network therefore starts near the greedy agent and learns what a one-turn rule cannot see.

The observation is stored compactly during a rollout (:func:`compact_inputs`, a few KB per
decision instead of 80 KB of float planes) and expanded into planes by :func:`planes_from_compact`,
which mirrors ``jaxgame.observe`` channel by channel (tests/test_jax_trainer.py checks it).
"""

from __future__ import annotations

from typing import NamedTuple

import flax.linen as nn
import jax
import jax.numpy as jnp

from monkey_env.monkey_palace.actions import Phase
from monkey_env.monkey_palace.agents.staircase_values import POINT
from monkey_env.monkey_palace.geometry import BOARD_SIZE, NUM_CELLS
from monkey_env.monkey_palace.jaxgame.observe import HEIGHT_SCALE, N_PLANES, observe

PATCH = 4                          # studs per token side: 32×32 studs are 8×8 tokens
TOKENS = BOARD_SIZE // PATCH
N_PHASES = len(Phase)
N_ACTION_FEATURES = 3              # points relative to the best, tie-break, greedy's choice
POINTS_SCALE = 4.0                 # Banana Points in the derived stud plane
TIE_SCALE = 64.0                   # decoration heights (brick units) in the tie-break features
BUY_SCALE = 16.0                   # greedy's buying preference is 16 × bananas + 8 − cost


class CompactInputs(NamedTuple):
    """What one decision's network input is made from (a few KB, stored by the rollout)."""
    height: jnp.ndarray        # (32, 32) int8
    knob: jnp.ndarray          # (32, 32) int8
    anchors: jnp.ndarray       # (1024,) bool legal anchors (the observer choosing one)
    cells: jnp.ndarray         # (5,) int32 monkey, butterfly, frog, chosen anchor, decoration; -1 none
    vector: jnp.ndarray        # (V,) float32 the observation's vector
    scores: jnp.ndarray        # (A,) int32 greedy's score of every action (meaningful where legal)
    mask: jnp.ndarray          # (A,) bool legal actions
    phase: jnp.ndarray         # () int32
    # the complete build action's staircase in progress (observe's planes 20-21); (0,) with the catalogue
    staircase: jnp.ndarray     # (1024,) int8 each covered stud's arch top (level + 1), 0 none
    cursor: jnp.ndarray        # () int32 flat stud where the next arch starts, -1 none (or the catalogue)


def compact_inputs(jax_game, state, player, scores, mask) -> CompactInputs:
    """One game's network input, from the seat `player` (the seat to decide)."""
    seen = observe(jax_game.tables, jax_game.rules, state, player)   # the planes are rebuilt (XLA drops the rest)
    mine = (state.current == player) & (state.phase == Phase.ANCHOR)
    cells = jnp.concatenate([state.animals, jnp.stack([state.anchor, state.deco_cell])]).astype(jnp.int32)
    staircase, cursor = jnp.zeros((0,), jnp.int8), jnp.int32(-1)
    if jax_game.static.complete:
        extra = seen["planes"][N_PLANES:].reshape(2, NUM_CELLS)
        staircase = jnp.round(extra[0] * HEIGHT_SCALE).astype(jnp.int8)
        cursor = jnp.where(extra[1].any(), jnp.argmax(extra[1]), -1).astype(jnp.int32)
    return CompactInputs(height=state.height, knob=state.knob, anchors=state.anchor_mask & mine, cells=cells,
                         vector=seen["vector"], scores=scores.astype(jnp.int32), mask=mask, phase=state.phase,
                         staircase=staircase, cursor=cursor)


def planes_from_compact(c: CompactInputs) -> jnp.ndarray:
    """(20, 32, 32) float32: the observation's planes (jaxgame.observe's channel order); (22, 32, 32)
    with the complete build action's staircase in progress."""
    knob = jax.nn.one_hot(c.knob, 13, axis=0)
    spots = jnp.zeros((5, NUM_CELLS), jnp.float32).at[jnp.arange(5), jnp.maximum(c.cells, 0)].set(
        (c.cells >= 0).astype(jnp.float32))
    side = (BOARD_SIZE, BOARD_SIZE)
    planes = jnp.concatenate([c.height[None].astype(jnp.float32) / HEIGHT_SCALE, knob, spots[:3].reshape(3, *side),
                              c.anchors.reshape(1, *side).astype(jnp.float32), spots[3:].reshape(2, *side)])
    assert planes.shape[0] == N_PLANES
    if c.staircase.shape[-1]:          # static: the complete build action
        cursor = jnp.zeros((NUM_CELLS,), jnp.float32).at[jnp.maximum(c.cursor, 0)].set((c.cursor >= 0) * 1.0)
        planes = jnp.concatenate([planes, jnp.stack([c.staircase.astype(jnp.float32) / HEIGHT_SCALE,
                                                     cursor]).reshape(2, *side)])
    return planes


def action_features(scores, mask, phase, n_build: int) -> jnp.ndarray:
    """(A, 3) float32 per-action features from greedy's scores (see the module docstring);
    ``n_build``: the build choices after the studs (the shapes, or the arch steps and finish)."""
    scores = scores.astype(jnp.int32)
    n_big = NUM_CELLS + n_build             # studs and build choices: POINT × points + decoration top
    index = jnp.arange(scores.shape[-1])
    staircase = (index < n_big) & (phase <= Phase.SHAPE)
    points = jnp.where(staircase, scores // POINT, scores / BUY_SCALE).astype(jnp.float32)
    tie = jnp.where(staircase, (scores % POINT) / TIE_SCALE, 0.0).astype(jnp.float32)
    best = jnp.max(jnp.where(mask, points, -1e9))
    relative = jnp.where(mask, jnp.maximum(points - best, -8.0), 0.0)
    chosen = jax.nn.one_hot(jnp.argmax(jnp.where(mask, scores, jnp.iinfo(jnp.int32).min)), scores.shape[-1])
    return jnp.stack([relative, jnp.where(mask, tie, 0.0), chosen * mask], -1)


def derived_planes(scores, mask, phase) -> jnp.ndarray:
    """(2, 32, 32): the best staircase's points from each legal anchor relative to the best anchor
    (/ POINTS_SCALE), and its decoration height (/ TIE_SCALE); zero outside the anchor decision."""
    cells = scores[:NUM_CELLS]
    legal = mask[:NUM_CELLS] & (phase == Phase.ANCHOR)
    points = (cells // POINT).astype(jnp.float32)
    best = jnp.max(jnp.where(legal, points, -1e9))
    rel = jnp.where(legal, jnp.maximum(points - best, -8.0) / POINTS_SCALE + 1.0, 0.0)
    tie = jnp.where(legal, (cells % POINT) / TIE_SCALE, 0.0)
    return jnp.stack([rel, tie]).reshape(2, BOARD_SIZE, BOARD_SIZE).astype(jnp.float32)


class PalaceNet(nn.Module):
    """Policy logits over the flat action space and a value, for a batch of compact inputs."""

    n_shapes: int
    n_actions: int
    n_rises: int = 0           # the complete build action's rises per arch (0: the catalogue)
    width: int = 32            # channels of the 8×8 token grid
    hidden: int = 128          # global features
    stud_features: int = 16    # per-stud features

    @nn.compact
    def __call__(self, c: CompactInputs):
        batch = c.phase.shape[0]
        complete = self.n_rises > 0
        planes = jax.vmap(planes_from_compact)(c)                              # (B, 20 or 22, 32, 32)
        # greedy's values as 2 derived planes
        planes = jnp.concatenate([planes, jax.vmap(derived_planes)(c.scores, c.mask, c.phase)], 1)
        x = planes.transpose(0, 2, 3, 1)                                       # (B, 32, 32, 22 or 24)
        h = nn.relu(nn.Dense(self.stud_features, name="stud_in")(x))          # (B, 32, 32, F)
        patches = h.reshape(batch, TOKENS, PATCH, TOKENS, PATCH, self.stud_features)
        patches = patches.transpose(0, 1, 3, 2, 4, 5).reshape(batch, TOKENS, TOKENS, -1)
        t = nn.relu(nn.Dense(self.width, name="patch_in")(patches))          # (B, 8, 8, W)
        for i in range(2):
            t = t + nn.relu(nn.Conv(self.width, (3, 3), padding="SAME", name=f"token_conv{i}")(t))
        v = nn.relu(nn.Dense(self.hidden, name="vector_in")(c.vector))
        g = nn.relu(nn.Dense(self.hidden, name="global")(jnp.concatenate([t.reshape(batch, -1), v], -1)))

        # Stud logits: the tokens back at the studs' resolution, with the per-stud features.
        up = nn.Dense(PATCH * PATCH * 8, name="unpatch")(t).reshape(batch, TOKENS, TOKENS, PATCH, PATCH, 8)
        up = up.transpose(0, 1, 3, 2, 4, 5).reshape(batch, BOARD_SIZE, BOARD_SIZE, 8)
        gs = jnp.broadcast_to(nn.Dense(8, name="global_to_studs")(g)[:, None, None], (batch, BOARD_SIZE, BOARD_SIZE, 8))
        s = nn.relu(nn.Dense(16, name="stud_hidden")(jnp.concatenate([h, nn.relu(up), gs], -1)))
        stud_logits = nn.Dense(1, name="stud_out", kernel_init=nn.initializers.zeros)(s).reshape(batch, NUM_CELLS)

        # Shape logits: what the trunk says at and around the chosen anchor (the complete
        # action: the arch head's, at and around the cursor, where the next arch starts).
        anchor = jnp.maximum(c.cursor if complete else c.cells[:, 3], 0)
        ay, ax = anchor // BOARD_SIZE, anchor % BOARD_SIZE
        at = jnp.concatenate([h.reshape(batch, NUM_CELLS, -1)[jnp.arange(batch), anchor],
                              up.reshape(batch, NUM_CELLS, -1)[jnp.arange(batch), anchor]], -1)
        padded = jnp.pad(t, ((0, 0), (1, 1), (1, 1), (0, 0)))
        ty, tx = ay // PATCH, ax // PATCH
        around = jax.vmap(lambda p, y, x: jax.lax.dynamic_slice(p, (y, x, 0), (3, 3, self.width)))(padded, ty, tx)
        shape_in = jnp.concatenate([at, around.reshape(batch, -1), g], -1)
        shape_hidden = nn.relu(nn.Dense(self.hidden, name="shape_hidden")(shape_in))
        if complete:       # (heading, rise) factored, then finish: the layout's ARCH and FINISH ranges
            zeros = nn.initializers.zeros
            heading = nn.Dense(4, name="heading_out", kernel_init=zeros)(shape_hidden)
            rise = nn.Dense(4 * self.n_rises, name="rise_out", kernel_init=zeros)(shape_hidden)
            arches = (heading[:, :, None] + rise.reshape(batch, 4, self.n_rises)).reshape(batch, -1)
            finish = nn.Dense(1, name="finish_out", kernel_init=zeros)(shape_hidden)
            shape_logits = jnp.concatenate([arches, finish], -1)
        else:
            shape_logits = nn.Dense(self.n_shapes, name="shape_out", kernel_init=nn.initializers.zeros)(shape_hidden)

        n_small = self.n_actions - NUM_CELLS - shape_logits.shape[-1]
        small_logits = nn.Dense(n_small, name="small_out", kernel_init=nn.initializers.zeros)(g)
        learned = jnp.concatenate([stud_logits, shape_logits, small_logits], -1)
        value = nn.Dense(1, name="value_out")(nn.relu(nn.Dense(self.hidden, name="value_hidden")(g)))[:, 0]
        # Greedy's values as per-action features, weighted per phase (initially: a point is
        # worth two logits, greedy's choice one more).
        feats = jax.vmap(action_features, in_axes=(0, 0, 0, None))(c.scores, c.mask, c.phase, shape_logits.shape[-1])
        init = jnp.asarray([2.0, 0.5, 1.0], jnp.float32)
        weights = self.param("feature_weights", lambda key: jnp.broadcast_to(init, (N_PHASES, N_ACTION_FEATURES)))
        logits = learned + jnp.einsum("baf,bf->ba", feats, weights[c.phase])
        return logits, value


def dummy_inputs(jax_game, batch: int) -> CompactInputs:
    """A batch of blank inputs of the right shapes (for initialising parameters)."""
    from monkey_env.monkey_palace.jaxgame.observe import sizes
    a, complete = jax_game.num_actions, bool(jax_game.static.complete)
    return CompactInputs(height=jnp.zeros((batch, BOARD_SIZE, BOARD_SIZE), jnp.int8),
                         knob=jnp.zeros((batch, BOARD_SIZE, BOARD_SIZE), jnp.int8),
                         anchors=jnp.zeros((batch, NUM_CELLS), bool), cells=jnp.full((batch, 5), -1, jnp.int32),
                         vector=jnp.zeros((batch, sizes(complete)[1]), jnp.float32),
                         scores=jnp.zeros((batch, a), jnp.int32), mask=jnp.ones((batch, a), bool),
                         phase=jnp.zeros((batch,), jnp.int32),
                         staircase=jnp.zeros((batch, NUM_CELLS if complete else 0), jnp.int8),
                         cursor=jnp.full((batch,), -1, jnp.int32))
