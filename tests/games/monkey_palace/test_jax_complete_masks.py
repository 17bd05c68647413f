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

# Columns up to 5 (the default caps take 3): column-heavy supplies are where the remainders bind.
CAPS = cm.Caps(max_units=16, max_columns=None)
# Columns make the remainders bind, which real games' supplies rarely do.
SUPPLIES = [None, (6, 4, 3), (8, 2, 6), (7, 0, 5)]


def _planes(search: BuildSearch):
    return (jnp.asarray(search.height, jnp.int8), jnp.asarray(search.clearance, jnp.int8),
            jnp.asarray(search.rest_ok), jnp.asarray(search.anchor_ok))


_anchor_mask = jax.jit(lambda h, c, r, a, s: cm.anchor_mask(h, c, r, a, s, CAPS))
_anchor_mask_default = jax.jit(lambda h, c, r, a, s: cm.anchor_mask(h, c, r, a, s, cm.Caps()))   # the engine's


@pytest.mark.parametrize("index", range(len(POSITIONS)), ids=[p[2] for p in POSITIONS])
def test_the_anchor_mask_is_buildsearch_s(index):
    palace, held, _ = POSITIONS[index]
    for supply in [held] + SUPPLIES[1:]:
        search = BuildSearch(palace, *supply)
        masks = [_anchor_mask] + ([] if cm.beyond_cap(np.asarray(supply), cm.Caps()) else [_anchor_mask_default])
        for mask in masks:
            got = np.asarray(mask(*_planes(search), jnp.asarray(supply, jnp.int32)))
            wrong = np.argwhere(got != search.legal_anchors())
            assert len(wrong) == 0, f"supply {supply}: differ at [y, x] {wrong[:5].tolist()}"


def test_the_caps_bound_what_a_ground_landing_can_afford():
    caps = cm.Caps(max_units=16, max_columns=None)
    assert caps.top_level == 8 and caps.levels == 10 and caps.columns == 6 and caps.depth == 7
    assert 2 * (caps.top_level + 1) - 1 > caps.max_units     # one level more costs too much
    assert cm.beyond_cap(jnp.asarray([3, 5, 4]), caps) and not cm.beyond_cap(jnp.asarray([3, 4, 4]), caps)
    assert cm.Caps(max_units=16).columns == 4 and cm.beyond_cap(jnp.asarray([3, 1, 4]), cm.Caps(max_units=16))
    # k unattached arches cost 0 + 1 + ... + (k - 1) units at least, then one attaches.
    assert [int(cm.arches_affordable(u)) for u in (0, 1, 3, 6, 10, 15)] == [2, 3, 4, 5, 6, 7]


@pytest.mark.parametrize("caps", [cm.Caps(), cm.Caps(10, max_columns=0), cm.Caps(max_units=16, max_columns=None)],
                         ids=["caps", "small", "all-columns"])
def test_the_attaching_costs_are_the_cheapest_stacks_of_one_attaching_arch(caps):
    """The table the masks read, against the arithmetic in plain loops: an arch at any level from
    its least one up (not only the three the table tries), stacks paid with columns first, and
    beyond the table's last row (need_cap) nothing fits."""
    costs = cm.attaching_costs(caps)
    top = cm.need_cap(caps)
    for row, level in enumerate(range(-1, caps.levels - 1)):
        for columns in range(caps.columns):
            for need in range(0, top + 6):
                for under in range(0, need + 1):
                    best = caps.big
                    for arch in range(max(level + 1, need), max(level + 1, need) + 12):
                        rise, support = arch - level - 1, arch - under
                        slots = rise // 3 + support // 3
                        best = min(best, rise + support - 3 * min(slots, columns))
                    want = caps.big if under == 0 else min(best, caps.big)
                    got = caps.big if need > top else int(costs[row, columns, need, under])
                    assert got == want, (level, columns, need, under)


def test_the_lattice_classes_round_trip():
    plane = jnp.arange(32 * 32, dtype=jnp.int32).reshape(32, 32)
    classes = cm.to_classes(plane, -1)
    assert classes.shape == (9, 11, 11)
    assert int(classes[1 * 3 + 2, 4, 5]) == (3 * 4 + 1) * 32 + 3 * 5 + 2   # class (y%3, x%3), point (x//3, y//3)
    assert (cm.from_classes(classes) == plane).all()


def prefix_fields(p) -> dict:
    """A reference Prefix as next_step_mask's fields."""
    covered = np.zeros((32, 32), bool)
    for x, y in p.visited:
        covered[y, x] = True
    i32 = jnp.int32
    return dict(x=i32(p.x), y=i32(p.y), heading=i32(p.heading), level=i32(p.level), arches=i32(p.arches),
                units=i32(p.units), remainder=i32(p.remainder), attached=jnp.asarray(p.attached),
                covered=jnp.asarray(covered))


N_RISES = 129   # the engine's: the tray's units + 1
_next = jax.jit(lambda h, c, r, a, s, p: cm.next_step_mask(h, c, r, s, p, N_RISES, CAPS))
_next_blind = jax.jit(lambda h, c, r, a, s, p: cm.next_step_mask(h, c, r, s, p, N_RISES, CAPS, avoid_prefix=False))


def _compare(search: BuildSearch, supply, p, mask=_next) -> int:
    """Entries where the JAX next-step mask and finish differ from BuildSearch's."""
    steps, finish = mask(*_planes(search), jnp.asarray(supply, jnp.int32), prefix_fields(p))
    expected = np.zeros((4, N_RISES), bool)
    for h, r in search.next_steps(p):
        expected[h, r] = True
    return int((np.asarray(steps) != expected).sum()) + int(bool(finish) != search.can_finish(p))


@pytest.mark.parametrize("index", range(len(POSITIONS)), ids=[p[2] for p in POSITIONS])
def test_the_next_steps_are_buildsearch_s_along_mask_guided_walks(index):
    """Every prefix of random walks the masks allow, to deep unattached ones (finish is taken
    only one time in four when allowed): the 4 x 129 arches and finish."""
    palace, held, label = POSITIONS[index]
    compared = 0
    for supply in [held] + SUPPLIES[1:] + [(9, 12, 1)]:
        search = BuildSearch(palace, *supply)
        rng = np.random.default_rng(index)
        anchors = [(int(x), int(y)) for y, x in zip(*np.nonzero(search.legal_anchors()))]
        for _ in range(4 if anchors else 0):
            p = search.start(anchors[rng.integers(len(anchors))])
            while True:
                assert _compare(search, supply, p) == 0, f"supply {supply}, anchor {sorted(p.visited)[0]}, steps {p.steps}"
                compared += 1
                offered = search.next_steps(p)
                if not offered or (search.can_finish(p) and rng.random() < 0.25):
                    break
                p = search.extend(p, *offered[rng.integers(len(offered))])
    assert compared > 0


def test_the_prefix_points_decide_some_next_steps():
    """Loop erasure keeps the prefix's own points as obstacles: on the first position, with a
    rich supply, some arch after one step south (rise 1) is allowed only when they are
    forgotten, and the mask with them is BuildSearch's."""
    palace, _, _ = POSITIONS[0]
    supply = (9, 12, 1)
    search = BuildSearch(palace, *supply)
    blind_differs = 0
    for y, x in zip(*np.nonzero(search.legal_anchors())):
        p = search.extend(search.start((int(x), int(y))), 2, 1)
        if p is None or not search.completable(p):
            continue
        assert _compare(search, supply, p) == 0
        blind_differs += _compare(search, supply, p, _next_blind)
    assert blind_differs > 0


def test_the_tiers_are_the_smallest_tables_that_hold_the_supply():
    caps = cm.Caps()
    assert [(t.max_units, t.max_columns) for t in cm.tiers(caps)] == [(10, 0), (10, 1), (16, 3)]
    assert all(t.max_arches == caps.max_arches and t.column_units == caps.column_units for t in cm.tiers(caps))
    for supply, tier in [((3, 4, 0), 0), ((20, 10, 0), 0), ((3, 7, 1), 1), ((3, 11, 0), 2), ((3, 8, 1), 2),
                         ((3, 2, 2), 2), ((21, 1, 0), 2), ((3, 40, 0), 2)]:
        assert int(cm.tier_of(jnp.asarray(supply), caps)) == tier, supply
    # Caps no larger than a small tier have no smaller one.
    assert cm.tiers(cm.Caps(max_units=10, max_columns=0)) == (cm.Caps(max_units=10, max_columns=0),)


_tier_masks = {caps: (jax.jit(lambda h, c, r, a, s, caps=caps: cm.anchor_mask(h, c, r, a, s, caps)),
                      jax.jit(lambda h, c, r, a, s, p, caps=caps: cm.next_step_mask(h, c, r, s, p, N_RISES, caps)))
               for caps in cm.tiers(cm.Caps())[:-1]}


GAMES = [(2, 1), (3, 2), (4, 3), (2, 4), (3, 4), (4, 1)]


@pytest.mark.parametrize(("players", "map_id"), GAMES)
def test_the_masks_are_the_engine_s_at_every_build_decision(players, map_id):
    """Random complete-build games of the reference engine: at every anchor and arch decision
    of a player within the caps, its legal mask is the JAX masks', with the default caps' tables
    and with those of the smaller tier the engine takes for the player's supply."""
    from monkey_env import Game, Phase

    game = Game.new(players=players, map=map_id, seed=500 + map_id, build_action="complete")
    L = game.layout
    rng = np.random.default_rng(players * 10 + map_id)
    decisions = in_small_tiers = 0
    tiers = cm.tiers(cm.Caps())
    while not game.game_over:
        s = game.player.supply
        supply = (s.arches, s.bricks, s.columns)
        if game.phase in (Phase.ANCHOR, Phase.SHAPE) and not cm.beyond_cap(np.asarray(supply), CAPS):
            search, mask = game.build_search(), game.legal_mask()
            tier = tiers[int(cm.tier_of(jnp.asarray(supply), cm.Caps()))]
            anchors, next_steps = [_anchor_mask], [_next]
            if tier in _tier_masks:
                anchors.append(_tier_masks[tier][0])
                next_steps.append(_tier_masks[tier][1])
                in_small_tiers += 1
            for anchor_mask, next_step in zip(anchors, next_steps):
                if game.phase == Phase.ANCHOR:
                    got = np.asarray(anchor_mask(*_planes(search), jnp.asarray(supply, jnp.int32))).reshape(-1)
                    assert (got == mask[:1024]).all(), f"anchors differ at turn {game.turns_played}"
                else:
                    steps, finish = next_step(*_planes(search), jnp.asarray(supply, jnp.int32),
                                              prefix_fields(game.build_prefix()))
                    assert (np.asarray(steps).reshape(-1) == mask[L.arch:L.finish]).all() and \
                        bool(finish) == mask[L.finish], f"next steps differ at turn {game.turns_played} after {game.turn.steps}"
            decisions += 1
        game.apply(int(rng.choice(game.legal_actions())))
    assert decisions > 20 and in_small_tiers > 10


_next_default = jax.jit(lambda h, c, r, a, s, p: cm.next_step_mask(h, c, r, s, p, N_RISES, cm.Caps()))   # the engine's
PAST_THE_CAPS = [(3, 17, 0), (3, 20, 0), (5, 25, 2), (2, 18, 3), (7, 14, 4)]


@pytest.mark.parametrize("index", [0, 5, 11], ids=[POSITIONS[i][2] for i in (0, 5, 11)])
def test_past_the_caps_the_masks_only_drop_staircases_and_never_dead_end(index):
    """A player holding more than the default caps (17 bricks and more, 4 columns): the engine's
    masks are then not exact, but whatever they allow is legal (a subset of BuildSearch's) and
    every walk they guide ends in a staircase that may finish. (The bricks were once compared
    with the tables' "none fits" value, 17, as if it were a price: every anchor was allowed.)"""
    palace, _, _ = POSITIONS[index]
    rng = np.random.default_rng(index)
    for supply in PAST_THE_CAPS:
        assert cm.beyond_cap(np.asarray(supply), cm.Caps())
        search = BuildSearch(palace, *supply)
        allowed = np.asarray(_anchor_mask_default(*_planes(search), jnp.asarray(supply, jnp.int32)))
        legal = search.legal_anchors()
        assert not (allowed & ~legal).any(), f"supply {supply}: anchors without a staircase allowed"
        assert allowed.any() == legal.any()
        anchors = [(int(x), int(y)) for y, x in zip(*np.nonzero(allowed))]
        for _ in range(3 if anchors else 0):
            p = search.start(anchors[rng.integers(len(anchors))])
            while True:
                steps, finish = _next_default(*_planes(search), jnp.asarray(supply, jnp.int32), prefix_fields(p))
                offered = [tuple(map(int, hr)) for hr in np.argwhere(np.asarray(steps))]
                assert set(offered) <= set(search.next_steps(p)), f"supply {supply}, steps {p.steps}"
                assert not bool(finish) or search.can_finish(p)
                assert offered or bool(finish), f"supply {supply}: a dead end after {p.steps}"
                if bool(finish) and (not offered or rng.random() < 0.25):
                    break
                p = search.extend(p, *offered[rng.integers(len(offered))])
