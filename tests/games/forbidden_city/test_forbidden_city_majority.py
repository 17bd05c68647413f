"""Forbidden City's majority potential (monkey_env/forbidden_city/agents/majority.py), the JAX PPO's
per-action input, against a plain recomputation on the reference engine: for every legal
placement of a few positions of a random 2-player game, lay the tile on a copy (no scoring) and
sum, over the open rooms it touches, the payout margin of the seat to play over the room's open
sides, minus the same over the neighbours' rooms before. And a scenario: a tile with advisors
laid into an empty open room of the start tile raises the potential by the room's value over its
open sides."""

import jax
import numpy as np
import pytest

from monkey_env.forbidden_city.agents.majority import majority_potential
from monkey_env.forbidden_city.engine import Game
from monkey_env.forbidden_city.geometry import DIRECTIONS, OPEN, node_id, opposite
from monkey_env.forbidden_city.jaxgame.env import jax_game_for
from monkey_env.forbidden_city.options import ForbiddenCityOptions
from monkey_env.forbidden_city.scoring import payout, room_coins


@pytest.fixture(scope="module")
def jg():
    return jax_game_for()


@pytest.fixture(scope="module")
def potential(jg):
    return jax.jit(majority_potential(jg))


def margin(city, room, seat, coins, players):
    paid = payout(room_coins(city, room, coins), city.advisors(room, players))
    return (paid[seat] - max(p for s, p in enumerate(paid) if s != seat)) / city.open_sides(room)


def reference_potential(game: Game, action: int) -> float:
    """The potential of one placement, recomputed by flood fill on copies of the reference game."""
    seat, size = game.current, game.data.size
    x, y, turns = game.layout.decode(action)
    faced = []                                       # the neighbours' nodes whose open floor faces the cell
    for d in DIRECTIONS:
        nx, ny, other = game.city.neighbour(x, y, d)
        if other is not None and other.face.sides[opposite(d)] == OPEN:
            faced.append(node_id(nx, ny, other.face.quarter_part[opposite(d)], size))

    def total(city, nodes):
        rooms = {r.id: r for r in city.rooms() for n in nodes if n in r.nodes}
        return sum(margin(city, r, seat, game.coins, game.players) for r in rooms.values() if city.open_sides(r) > 0)

    trial = game.clone()
    trial.lay_tile(seat, x, y, turns)
    laid = trial.city.at(x, y)
    mine = [node_id(x, y, p, size) for p in range(laid.face.parts)]
    return total(trial.city, mine + faced) - total(game.city, faced)


def test_the_potential_agrees_with_the_reference_engine_on_every_placement(jg, potential):
    rng = np.random.default_rng(3)
    state = jg.init(jax.random.PRNGKey(11), jg.params(players=2))
    game = Game(ForbiddenCityOptions(players=2), deal=jg.deal(state), data=jg.data)
    checked = nonzero = 0
    while game.turns_played < 36:
        if game.turns_played % 6 == 5:
            mask = jg.legal_action_mask(state)
            got = np.asarray(potential(state, mask))
            for a in np.flatnonzero(np.asarray(mask)[:-1]):
                want = reference_potential(game, int(a))
                assert got[a] == pytest.approx(want, abs=1e-5), (game.turns_played, game.action_name(int(a)))
                checked += 1
                nonzero += want != 0
            assert got[-1] == 0.0 and np.all(got[~np.asarray(mask)] == 0.0)
        a = int(rng.choice(np.flatnonzero(game.legal_mask())))
        game.apply(a)
        state = jg.step(state, a)
    assert checked > 100 and nonzero > 10, (checked, nonzero)


def test_advisors_laid_into_an_open_empty_room_raise_the_potential_by_its_value_over_its_open_sides(jg, potential):
    # The first turn: every room of the start tile is open and holds no advisors; a placement whose
    # advisors join one of them makes the seat to play its sole majority holder.
    state = next(s for s in (jg.init(jax.random.PRNGKey(k), jg.params(players=2)) for k in range(50))
                 if sum(jg.data.kinds[int(s.held[0])].face.advisors) > 0)     # a tile with advisors in hand
    game = Game(ForbiddenCityOptions(players=2), deal=jg.deal(state), data=jg.data)
    mask = jg.legal_action_mask(state)
    got = np.asarray(potential(state, mask))
    assert got.max() > 0 and got.min() >= 0          # nobody leads a room yet: no placement can lose a lead
    best = int(np.argmax(got))
    trial = game.clone()
    x, y, turns = game.layout.decode(best)
    trial.lay_tile(0, x, y, turns)
    rooms = [r for r in trial.city.rooms() if any(n in r.nodes for n in (node_id(x, y, p, jg.static.size) for p in (0, 1)))]
    led = [r for r in rooms if trial.city.open_sides(r) and trial.city.advisors(r, 2)[0] > 0]
    want = sum(room_coins(trial.city, r, game.coins) / trial.city.open_sides(r) for r in led)
    assert got[best] == pytest.approx(want) and want > 0
