"""Forbidden City's rules, one scripted scenario each, on the reference engine; the seed's four
worked scoring examples (11, 12 + 6, 3 + 3, 15 coins) among them.

Coordinates (x, y) are written as on a 17 x 17 table, y growing southwards: the start tile's cells
are (7..9, 7..9) with the Imperial Palace at (8, 8). The helpers (lay, close_with, xy) move them
by OFFSET onto the shipped table (27 x 27: the start tile at 12..14), so a scenario reads the same
whatever the table's size. Beginner side: gardens in the corners, a pink
cell north of the palace (8, 7), green west (7, 8), white east (9, 8), green south (8, 9), each
open away from the palace and open towards the palace's door.
A tile is written "colour NESW" (o open, w wall, d door), e.g. "pink wdod".
"""

from pathlib import Path

import numpy as np
import pytest

from monkey_env.forbidden_city.city import Laid
from monkey_env.forbidden_city.engine import Game
from monkey_env.forbidden_city.game_data import TileFace
from monkey_env.forbidden_city.geometry import COLOURS, DIAGONALS, SIDE_LETTERS
from monkey_env.forbidden_city.options import ForbiddenCityOptions
from monkey_env.forbidden_city.scoring import payout

RED, BLUE, YELLOW, PURPLE = 0, 1, 2, 3     # seats of a 4-player game (table.yaml's seat colours)
SIZE = ForbiddenCityOptions().game_data().size
OFFSET = (SIZE - 17) // 2                   # the scenarios' coordinates are written as on a 17 x 17 table


def xy(x: int, y: int) -> tuple[int, int]:
    """A scenario's (x, y) (as on a 17 x 17 table) on the shipped table."""
    return x + OFFSET, y + OFFSET


def face(text: str, advisors: int = 0, dragon: int = 0, diagonal: str = "none", part: int = 0) -> TileFace:
    floors, sides = text.split()
    colours = tuple(COLOURS.index(c) for c in floors.split("/"))
    adv, drg = [0] * len(colours), [0] * len(colours)
    adv[part], drg[part] = advisors, dragon
    return TileFace(tuple(SIDE_LETTERS[c] for c in sides), DIAGONALS[diagonal], colours, tuple(adv), tuple(drg))


def new_game(players: int = 4, **options) -> Game:
    return Game(ForbiddenCityOptions(players=players, seed=1, **options))


def lay(game: Game, x: int, y: int, text: str, owner: int = RED, **kw) -> None:
    """Lay a tile by the placement rules (asserting it is allowed), without scoring."""
    f = face(text, **kw)
    x, y = xy(x, y)
    assert game.city.placement_problem(f, x, y) is None, game.city.placement_problem(f, x, y)
    game.city.lay(x, y, Laid(f, owner, 0, 0))


def close_with(game: Game, x: int, y: int, text: str, owner: int = RED, **kw) -> list[int]:
    """Lay the closing tile and score the rooms it closes; the coins each seat got."""
    before = list(game.purse)
    lay(game, x, y, text, owner, **kw)
    game.score_closed_rooms()
    return [a - b for a, b in zip(game.purse, before)]


# --------------------------------------------------------------------------- the payout
@pytest.mark.parametrize("value, advisors, coins", [
    (11, [0, 2, 0, 0], [0, 11, 0, 0]),        # the only one with advisors takes the whole value
    (12, [3, 2, 1, 0], [12, 6, 0, 0]),        # the sole second gets half
    (13, [3, 1, 0, 0], [13, 6, 0, 0]),        # half rounded down
    (6, [0, 2, 1, 2], [0, 3, 0, 3]),          # tie for most: half each, nobody second
    (7, [2, 2, 2, 0], [3, 3, 3, 0]),          # three tied for most: half (rounded down) each
    (15, [1, 1, 2, 0], [0, 0, 15, 0]),        # tie for second: nothing for them
    (9, [0, 0, 0, 0], [0, 0, 0, 0]),          # no advisors: nobody is paid
])
def test_majority_payout(value, advisors, coins):
    assert payout(value, advisors) == coins


# --------------------------------------------------------------------------- the seed's examples
def test_example_1_a_small_room_with_three_linked_rooms_is_worth_11():
    """Blue closes the pink room: 2 tiles, + green room 4 tiles and a dragon (4 + 3), + the
    Imperial Palace (1), + a white room of 1 tile = 11; the gardens never count."""
    g = new_game()
    lay(g, 9, 6, "green oooo")                         # the green room east, next to a garden
    lay(g, 10, 6, "green oooo", dragon=1)
    lay(g, 9, 5, "green oooo")
    lay(g, 10, 5, "green oooo")
    lay(g, 7, 6, "white oooo")                         # the white room west
    coins = close_with(g, 8, 6, "pink wdod", owner=BLUE, advisors=1)
    assert coins == [0, 11, 0, 0]
    scored, = g.last_scores
    assert scored.own == 2 and sorted(v for _, v in scored.linked) == [1, 1, 7]


def test_example_2_the_majority_takes_12_and_the_sole_second_6():
    """Red has most advisors in the closed green room: 6 tiles + a dragon (9), + a pink room of
    2 tiles, + the palace = 12; blue, second, 6; yellow, third, nothing."""
    g = new_game()
    lay(g, 7, 10, "green woow", dragon=1, owner=RED)
    lay(g, 8, 10, "green oooo", advisors=2, owner=RED)
    lay(g, 9, 10, "green wwwo", advisors=2, owner=BLUE)
    lay(g, 7, 11, "green ooww", advisors=1, owner=YELLOW)
    lay(g, 9, 11, "pink wooo")
    lay(g, 10, 11, "pink oooo")
    coins = close_with(g, 8, 11, "green odwo", owner=RED, advisors=1)     # red 3, blue 2, yellow 1
    assert coins == [12, 6, 0, 0]


def test_example_3_two_tied_for_most_get_half_each_and_a_room_without_a_door_adds_nothing():
    """Blue and purple tie for most in the closed white room: 4 tiles + a pink room of 2 tiles
    linked by a door = 6, so 3 each; yellow nothing; the green room beside it has no door."""
    g = new_game()
    lay(g, 10, 8, "white ooww", advisors=1, owner=PURPLE)   # walls off the start's white cell
    lay(g, 11, 8, "white odwo", advisors=1, owner=YELLOW)
    lay(g, 12, 8, "pink oooo")
    lay(g, 13, 8, "pink oooo")
    lay(g, 10, 9, "green oooo", advisors=2, owner=RED)      # beside the white room, no door
    lay(g, 11, 7, "white wwoo", advisors=1, owner=PURPLE)
    coins = close_with(g, 10, 7, "white woow", owner=BLUE, advisors=2)
    assert coins == [0, 3, 0, 3]


def test_example_4_a_tie_for_second_gets_nothing_and_the_majority_takes_15():
    """Yellow has most advisors in the closed pink room: 5 tiles, + a green room of 6 tiles and
    a dragon (9), + a white room of 1 tile = 15; red and blue tie for second: nothing."""
    g = new_game()
    for x, y, t in [(10, 8, "green ooow"), (11, 8, "green wooo"), (12, 8, "green wwoo"),
                    (10, 9, "green ooow"), (12, 9, "green owoo")]:
        lay(g, x, y, t)
    lay(g, 11, 9, "green oooo", dragon=1)
    lay(g, 10, 7, "pink wodw", advisors=1, owner=RED)
    lay(g, 11, 7, "pink wowo", advisors=1, owner=BLUE)
    lay(g, 12, 7, "pink wowo")
    lay(g, 13, 8, "white oooo")
    lay(g, 13, 7, "pink wodo", advisors=1, owner=YELLOW)
    coins = close_with(g, 14, 7, "pink wwwo", owner=YELLOW, advisors=1)
    assert coins == [0, 0, 15, 0]


# --------------------------------------------------------------------------- what links, what counts
def test_a_door_blocked_by_a_wall_links_nothing():
    g = new_game()
    lay(g, 9, 6, "white ooow")                 # its west side is a plain wall against the door
    assert close_with(g, 8, 6, "pink wdod", owner=BLUE, advisors=1) == [0, 2 + 1, 0, 0]   # room + palace


def test_a_door_into_open_floor_links_and_door_against_door_links():
    g = new_game()
    lay(g, 9, 6, "white ooow")                 # west: a wall, east open: blocked from here
    lay(g, 7, 6, "green oooo")                 # east open against the door: linked
    g2 = new_game()
    lay(g2, 7, 6, "green odoo")                # east a door: door against door
    assert close_with(g, 8, 6, "pink wdod", owner=BLUE, advisors=1) == [0, 2 + 1 + 1, 0, 0]
    assert close_with(g2, 8, 6, "pink wwod", owner=BLUE, advisors=1) == [0, 2 + 1 + 1, 0, 0]


def test_rooms_two_doors_away_do_not_count_and_a_room_counts_once_for_several_doors():
    g = new_game()
    lay(g, 9, 6, "green oooo")                 # linked by two doors (from (8, 6) and (8, 5))
    lay(g, 9, 5, "green odoo")                 # ...with a door east to a room two doors away
    lay(g, 10, 5, "white oooo", dragon=1)
    lay(g, 8, 5, "pink wdow")
    coins = close_with(g, 8, 6, "pink odow", owner=BLUE, advisors=1)
    assert coins == [0, 3 + 2 + 1, 0, 0]       # pink room 3 tiles, green 2 once, palace 1; not the white


def test_a_diagonal_tile_counts_for_the_room_on_each_side():
    g = new_game()
    lay(g, 9, 6, "green oooo")
    # A diagonal from north-west to south-east: its green part (north, east) joins the green
    # room, its pink part (south, west) closes the start's pink room.
    coins = close_with(g, 8, 6, "green/pink woow", owner=BLUE, advisors=1, diagonal="nw-se", part=1)
    assert coins == [0, 2 + 1, 0, 0]           # the start cell and the diagonal tile, + the palace
    pink = next(r for r in g.rooms() if xy(8, 7) in g.city.cells_of(r))
    green = next(r for r in g.rooms() if xy(9, 6) in g.city.cells_of(r))
    assert pink != green and xy(8, 6) in g.city.cells_of(pink) and xy(8, 6) in g.city.cells_of(green)
    assert g.city.tiles(pink) == 2 and g.city.tiles(green) == 2


def test_the_start_tiles_gardens_never_count():
    g = new_game()
    garden = next(laid.face for laid in g.city.cells.values() if COLOURS[laid.face.floors[0]] == "garden")
    assert garden.counts is False and g.city.at(*xy(7, 7)).face is garden
    rooms = g.rooms()
    corner = next(r for r in rooms if xy(7, 7) in g.city.cells_of(r))
    assert g.city.tiles(corner) == 0 and g.city.is_closed(corner)


def test_a_room_without_advisors_pays_nobody_and_a_closed_room_is_paid_once():
    g = new_game()
    lay(g, 9, 6, "green oooo")
    assert close_with(g, 8, 6, "pink wdod") == [0, 0, 0, 0]            # nobody has an advisor there
    closed = g.closed_room_ids()
    assert close_with(g, 8, 5, "pink oooo", owner=BLUE, advisors=2) == [0, 0, 0, 0]   # against its wall
    assert g.closed_room_ids() == closed and g.last_scores == []
    # a tile walled on every side is a closed room of one tile at once
    assert close_with(g, 10, 6, "green wwww", owner=BLUE, advisors=2) == [0, 1, 0, 0]


# --------------------------------------------------------------------------- placement
def test_a_tile_must_touch_another_tile():
    g = new_game()
    assert "touches no tile" in g.city.placement_problem(face("pink oooo"), *xy(3, 3))
    assert "already holds" in g.city.placement_problem(face("pink oooo"), *xy(8, 8))


def test_different_colours_may_meet_only_across_a_wall():
    g = new_game()   # (8, 7) is the start's pink cell, open to the north
    assert "join the pink room" in g.city.placement_problem(face("green oooo"), *xy(8, 6))
    assert g.city.placement_problem(face("green oowo"), *xy(8, 6)) is None      # its own wall between
    assert g.city.placement_problem(face("pink oooo"), *xy(8, 6)) is None       # same colour
    assert g.city.placement_problem(face("green oooo"), *xy(7, 6)) is None      # beside a garden's walls
    lay(g, 8, 6, "pink oooo")
    assert "join" in g.city.placement_problem(face("white oooo"), *xy(9, 6))    # joins pink (8, 6) openly


def test_explain_names_the_rule_and_an_illegal_action_changes_nothing():
    g = new_game(players=2)
    mask = g.legal_mask()
    before = g.to_dict()
    far = g.layout.encode(0, 0, 0)
    assert not mask[far] and "touches no tile" in g.explain(far)
    with pytest.raises(ValueError, match="touches no tile"):
        g.apply(far)
    assert g.to_dict() == before
    assert g.explain(g.layout.set_aside) == "the tile in hand fits somewhere, so it must be laid"
    assert "not one of" in g.explain(g.layout.num_actions)


def test_rotation_turns_sides_clockwise_and_flips_the_diagonal():
    f = face("pink/green wdoo", diagonal="sw-ne")
    t = f.turned(1)
    assert t.sides == (SIDE_LETTERS["o"], SIDE_LETTERS["w"], SIDE_LETTERS["d"], SIDE_LETTERS["o"])
    assert t.quarter_part == DIAGONALS["nw-se"] and f.turned(4) == f


# --------------------------------------------------------------------------- turns, chance, the end
def test_set_up_stacks_hands_and_two_player_extras():
    two, four = new_game(players=2), new_game(players=4)
    assert [g.tiles_left(0) for g in (two, four)] == [30, 24]
    assert all(h is not None for h in four.held) and len(four.stacks[0]) == 23
    assert any(two.data.kinds[t].extra for t in two.deal[0])
    assert not any(four.data.kinds[t].extra for s in four.deal for t in s)
    assert new_game(players=3).to_dict() == new_game(players=3).to_dict()            # seeded
    other = Game(ForbiddenCityOptions(players=3, seed=2))
    assert other.deal != new_game(players=3).deal


def test_a_turn_lays_the_held_tile_draws_the_next_and_passes_clockwise():
    g = new_game(players=3)
    top = g.stacks[0][0]
    action = int(np.flatnonzero(g.legal_mask())[0])
    x, y, turns = g.layout.decode(action)
    held = g.held[0]
    g.apply(action)
    assert g.city.at(x, y).tile == held and g.city.at(x, y).owner == 0 and g.city.at(x, y).rotation == turns
    assert g.held[0] == top and g.current == 1 and g.tiles_left(0) == 23


def test_a_tile_that_fits_nowhere_is_set_aside(monkeypatch):
    g = new_game(players=2)
    monkeypatch.setattr(g, "placements", lambda: [])
    mask = g.legal_mask()
    assert mask.sum() == 1 and mask[g.layout.set_aside] and g.explain(g.layout.set_aside) == "legal"
    held = g.held[0]
    g.apply(g.layout.set_aside)
    assert g.set_aside_tiles == [(0, held)] and g.current == 1 and g.tiles_left(0) == 29


def play_out(g: Game, seed: int = 0) -> Game:
    rng = np.random.default_rng(seed)
    while not g.game_over:
        g.apply(int(rng.choice(np.flatnonzero(g.legal_mask()))))
    return g


def test_the_publishers_ending_two_tiles_left_paid_for_advisors_and_dragons():
    g = play_out(new_game(players=3))
    assert g.turns_played == 3 * 22 and all(g.tiles_left(s) == 2 for s in range(3))
    for s in range(3):
        kept = [g.held[s]] + g.stacks[s]
        faces = [g.data.kinds[t].face for t in kept]
        assert g.end_coins[s] == sum(sum(f.advisors) + sum(f.dragons) for f in faces)
    assert g.legal_mask().sum() == 0 and g.explain(0) == "the game is over"


def test_the_all_placed_ending_lays_every_tile():
    g = play_out(new_game(players=2, ending="all_placed"))
    assert g.turns_played == 2 * 30 and all(g.tiles_left(s) == 0 for s in range(2)) and g.end_coins == [0, 0]


def test_winners_have_the_most_coins_and_ties_share():
    g = new_game(players=3)
    g.purse = [10, 12, 12]
    assert g.places() == [3, 1, 1] and g.winners() == [1, 2]


def test_the_advanced_side_has_larger_rooms_and_no_gardens():
    g = new_game(start_side="advanced")
    sizes = sorted(g.city.tiles(r) for r in g.rooms())
    assert sizes == [1, 2, 2, 2, 2]
    assert not any(COLOURS[laid.face.floors[0]] == "garden" for laid in g.city.cells.values())


def test_a_save_that_disagrees_with_its_actions_is_refused():
    g = play_out(new_game(players=2), seed=4)
    d = g.to_dict()
    d["coins"] = [d["coins"][0] + 1, d["coins"][1]]
    with pytest.raises(ValueError, match="coins does not follow"):
        Game.from_dict(d)
    with pytest.raises(ValueError, match="not a Forbidden City save"):
        Game.from_dict({**g.to_dict(), "current": "x"})


def test_a_save_of_the_old_17_by_17_table_is_refused_in_one_line(tmp_path):
    """The table's size is part of the game data's fingerprint: a save made when the shipped
    table was 17 x 17 (its fingerprint, same options) is refused with one line naming both
    fingerprints, never replayed on the 27 x 27 table (its actions would mean other cells)."""
    from monkey_env.forbidden_city.game_data import load_game_data

    old = load_game_data(small_table(tmp_path)).fingerprint
    g = play_out(new_game(players=2), seed=4)
    assert old != g.data.fingerprint
    with pytest.raises(ValueError) as refused:
        Game.from_dict({**g.to_dict(), "fingerprint": old})
    message = str(refused.value)
    assert "\n" not in message and old in message and g.data.fingerprint in message
    assert message.startswith("the record was made with other game data")


# --------------------------------------------------------------------------- no table edge
def corridor(game: Game, cells: range, y: int = 8) -> None:
    """White corridor tiles "white wowo" (open west and east) laid eastwards along row y."""
    for x in cells:
        lay(game, x, y, "white wowo")


def small_table(tmp_path, size: int = 17) -> str:
    """A config folder with the shipped game data on a size x size table (the recentring is met
    in random games only on a small table)."""
    import shutil

    root = tmp_path / "configs"
    shutil.copytree(Path(__file__).resolve().parents[3] / "configs" / "forbidden_city",
                    root / "forbidden_city")
    table = root / "forbidden_city" / "table.yaml"
    table.write_text(table.read_text().replace(f"table_size: {SIZE}", f"table_size: {size}"))
    return str(root)


def test_a_room_beyond_the_old_17_by_17_edge_is_laid_closed_and_scored():
    """The start's white cell (9, 8) runs east, open, to column 19 (written as on the old 17 x 17
    table, whose last column was 16: the room could never have closed there). On the 27 x 27
    table it is an ordinary room, the city never touches the border, and a tile at column 20
    closes it: 10 corridor cells + the start cell + the closing tile (12) + the palace its door
    links (1) = 13 coins."""
    g = new_game()
    corridor(g, range(10, 20))                          # (10..19, 8): three columns past the old edge
    east = xy(19, 8)
    assert east[0] - xy(8, 8)[0] == 11 > 8             # 11 cells east of the palace; the old edge was 8
    white = next(r for r in g.rooms() if east in g.city.cells_of(r))
    assert g.city.open_sides(white) == 1 and not g.city.is_closed(white)
    g.recentre()                                        # what apply does after every laid tile
    assert g.shift == (0, 0) and not g.edge_reached     # far from the 27 x 27 border
    coins = close_with(g, 20, 8, "white wwwo", owner=BLUE, advisors=1)
    assert coins == [0, 13, 0, 0]
    scored, = g.last_scores
    assert g.city.tiles(scored.room) == 12 and [v for _, v in scored.linked] == [1]


def test_a_room_west_of_the_old_edge_closes_too():
    """The same westwards along row 8 from the start's green cell (7, 8): green corridor to
    column -3 (three columns west of the old table's column 0), closed at -4: 10 corridor cells +
    the start cell + the closing tile (12) + the palace (1) = 13 coins, paid to the advisors."""
    g = new_game()
    for x in range(6, -4, -1):
        lay(g, x, 8, "green wowo")
    assert xy(-3, 8)[0] >= 1                            # on the 27 x 27 table, not on its border
    coins = close_with(g, -4, 8, "green woww", owner=YELLOW, advisors=2)
    assert coins == [0, 0, 13, 0] and not g.edge_reached


def lay_eastwards(g: Game) -> int:
    """Apply the legal action farthest east (then the first); the column it laid the tile in."""
    legal = np.flatnonzero(g.legal_mask())
    cells = [g.layout.decode(int(a)) if a != g.layout.set_aside else (-1, 0, 0) for a in legal]
    best = int(legal[max(range(len(legal)), key=lambda i: cells[i][0])])
    g.apply(best)
    return g.layout.decode(best)[0]


def test_the_edge_flag_is_set_when_a_tile_is_laid_on_the_border_on_both_engines():
    """Players who always lay farthest east reach the 27 x 27 grid's east border; the game is
    flagged (edge_reached, in stats()) from that tile on, not before, and the JAX engine, replaying
    the same decisions, agrees (State.edge_reached, batch_stats)."""
    import jax

    from monkey_env.agents.ppo_games import policy_game

    g = new_game(players=4)
    pg = policy_game("forbidden_city")
    flags = []
    while True:
        x = lay_eastwards(g)
        flags.append(g.edge_reached)
        if x == SIZE - 1:
            break
        assert not g.edge_reached and int(g.stats()["edge_reached"]) == 0
    assert g.edge_reached and int(g.stats()["edge_reached"]) == 1
    assert g.shift == (-1, 0)                           # the city moved off the border
    state = pg.state_of(g)
    assert bool(state.edge_reached)
    batch = jax.tree_util.tree_map(lambda v: np.asarray(v)[None], state)
    assert int(np.asarray(pg.engine.batch_stats(batch)["edge_reached"])[0]) == 1
    lay_eastwards(g)                                    # the flag stays
    assert g.edge_reached
    before = jax.tree_util.tree_map(lambda v: np.asarray(v)[None], pg.state_of(new_game(players=4)))
    assert int(np.asarray(pg.engine.batch_stats(before)["edge_reached"])[0]) == 0


def test_the_jax_engine_moves_one_game_s_city_and_leaves_the_other_s_in_the_same_batch():
    """Two 4-player games in one JAX batch, each beside its reference game, compared at every
    decision (parity.differences: grids, rooms, shift, flags, masks): game 0 always lays farthest
    east and so reaches the border and is moved, game 1 plays at random and is not. The move runs
    in a loop that only the moving game's step enters (Rules.recentre)."""
    import jax

    from monkey_env.forbidden_city.jaxgame.env import jax_game_for
    from monkey_env.forbidden_city.jaxgame.parity import differences, host_batch, jax_view, reference_view

    jg = jax_game_for()
    params = jax.tree_util.tree_map(lambda *xs: jax.numpy.stack(xs), *[jg.params(players=4)] * 2)
    states = jg.batch_init(jax.random.split(jax.random.PRNGKey(5), 2), params)
    host = host_batch(jg, states)
    games = [Game(ForbiddenCityOptions(players=4, seed=5),
                  deal=jg.deal(jax.tree_util.tree_map(lambda x, i=i: x[i], host["state"])), data=jg.data)
             for i in range(2)]
    rng = np.random.default_rng(5)
    moved_at = None
    for decision in range(200):
        for i, g in enumerate(games):
            assert not differences(reference_view(g, g.legal_mask()), jax_view(host, i)), (decision, i)
        if moved_at is not None and decision > moved_at + 4 or any(g.game_over for g in games):
            break
        x = lay_eastwards(games[0])
        if x == SIZE - 1 and moved_at is None:
            moved_at = decision
        random_action = int(rng.choice(np.flatnonzero(games[1].legal_mask())))
        games[1].apply(random_action)
        actions = np.array([games[0].history[-1], random_action], np.int32)
        states = jg.batch_step(states, actions)
        host = host_batch(jg, states)
    # moved west once a turn while it kept laying on the east border; the other never
    assert moved_at is not None and games[0].shift[0] < 0 and games[1].shift == (0, 0)
    assert jax_view(host, 0)["shift"] == list(games[0].shift) and jax_view(host, 1)["shift"] == [0, 0]


def test_recentring_through_apply_keeps_ids_scores_and_saves_consistent(tmp_path):
    """Random 4-player games through apply on a 17 x 17 table (where random cities reach the
    border): the city is moved when it touches the border, the game is flagged, the closed
    rooms' ids move with it, and a save replays to the same position."""
    config = small_table(tmp_path)
    moved = 0
    for seed in range(3):
        g = play_out(Game(ForbiddenCityOptions(players=4, seed=seed, config_dir=config)), seed=seed)
        moved += g.shift != (0, 0)
        assert g.edge_reached or g.shift == (0, 0)     # a move needs a tile on the border
        closed = {r.id for r in g.rooms() if g.city.is_closed(r)}
        assert g.closed_room_ids() <= closed
        assert Game.from_dict(g.to_dict()).to_dict() == g.to_dict()
    assert moved >= 1


def test_the_city_never_leaves_the_table_and_meets_the_edge_only_when_it_spans_it():
    """A game forced to lay every tile in one direction (a corridor east, each tile against the
    last): after each tile the city is recentred, so the cell beyond each end of the corridor is on
    the table while the city is at most size - 2 wide; every tile stays on the table, and only a
    city size - 1 wide meets the edge, on one side (docs/games/forbidden_city.md, "The table")."""
    g = new_game()
    size = g.data.size
    origin = g.data.start_origin("beginner")
    row = origin + 1
    while True:
        xs = [x for x, _ in g.city.cells]
        span = max(xs) - min(xs) + 1
        east = max(x for (x, y) in g.city.cells if y == row)
        assert all(g.city.inside(x, y) for x, y in g.city.cells)
        if span <= size - 2:
            assert g.city.inside(east + 1, row) and g.city.inside(min(xs) - 1, row)
        if not g.city.inside(east + 1, row):
            break
        lay(g, east + 1 - OFFSET, row - OFFSET, "white wowo")
        g.recentre()
    assert span == size - 1 and g.shift == (-(origin - 1), 0)   # moved west once per tile past the border


def test_the_rooms_scored_count_where_the_city_has_moved(tmp_path):
    """stats() counts the rooms closed during play as the JAX engine's batch_stats does (the rooms
    closed at set-up are not scored); it once looked the start tile's rooms up where they began,
    a KeyError at the end of a game whose city had moved. On a 17 x 17 table, where random cities
    move; the edge flag agrees too."""
    import jax

    from monkey_env.agents.ppo_games import policy_game
    from monkey_env.forbidden_city.jaxgame.env import JaxGame

    config = small_table(tmp_path)
    pg = policy_game("forbidden_city", engine=JaxGame(ForbiddenCityOptions(config_dir=config)))
    moved = 0
    for seed in range(6):
        game = Game(ForbiddenCityOptions(seed=seed, players=2 + seed % 3, config_dir=config))
        rng = np.random.default_rng(seed)
        while not game.game_over:
            game.apply(int(rng.choice(np.flatnonzero(game.legal_mask()))))
        moved += game.shift != (0, 0)
        state = jax.tree_util.tree_map(lambda x: np.asarray(x)[None], pg.state_of(game))
        stats = pg.engine.batch_stats(state)
        assert int(game.stats()["rooms_scored"]) == int(np.asarray(stats["rooms_scored"])[0])
        assert int(game.stats()["edge_reached"]) == int(np.asarray(stats["edge_reached"])[0])
    assert moved >= 2
