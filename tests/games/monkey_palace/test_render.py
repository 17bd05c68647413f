"""The 3-D picture of the palace: shape, determinism, and that what is built shows where it stands."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from monkey_env import Game
from monkey_env.agents.random_agent import RandomAgent
from monkey_env.monkey_palace.geometry import Animal, Colour
from monkey_env.monkey_palace.palace import Palace
from monkey_env.monkey_palace.render import game_picture, palace_picture, save_png

SIZE = (400, 320)  # small pictures keep the tests quick


def _copy(palace: Palace) -> Palace:
    return Palace.from_dict(palace.to_dict())


@pytest.fixture(scope="module")
def finished():
    g = Game.new(players=3, map=4, seed=5, butterfly=True, frog=True)
    agent = RandomAgent(1)
    while not g.game_over:
        g.apply(agent.act(g, g.legal_mask()))
    return g


@pytest.fixture
def fresh():
    return _copy(Game.new(players=2, map=1, seed=0).palace)


def test_shape_and_dtype(fresh):
    img = palace_picture(fresh, size=SIZE)
    assert img.shape == (SIZE[1], SIZE[0], 3)
    assert img.dtype == np.uint8
    assert img.std() > 10  # a picture, not a blank canvas
    odd = palace_picture(fresh, size=(333, 217), title="odd size")
    assert odd.shape == (217, 333, 3)


def test_deterministic(finished):
    a = game_picture(finished, size=SIZE)
    b = game_picture(finished, size=SIZE)
    c = palace_picture(_copy(finished.palace), size=SIZE, title=None)
    d = palace_picture(_copy(finished.palace), size=SIZE, title=None)
    assert np.array_equal(a, b)
    assert np.array_equal(c, d)
    assert not np.array_equal(a, c)  # the title (and legend) are drawn


def test_a_staircase_shows_where_it_stands(fresh):
    before = palace_picture(fresh, size=SIZE)
    built = _copy(fresh)
    # a staircase on the west edge, near the south-west corner: the left of the picture
    built.place_start_staircase((3, 29), 0)  # heading N: arches over x = 3, y = 29..23, a brick at y = 23
    assert len(built.elements) > len(fresh.elements)
    after = palace_picture(built, size=SIZE)
    changed = np.any(before != after, axis=2)
    assert changed.sum() > 300
    cols = np.nonzero(changed.any(axis=0))[0]
    # screen x runs with (x - y): cells with x - y between -26 and -20 lie in the left fifth or so
    assert cols.max() < 0.4 * SIZE[0], cols.max()
    # and the same staircase far away on the east changes the right of the picture instead
    east = _copy(fresh)
    east.place_start_staircase((28, 2), 2)  # heading S from the north-east corner
    cols_e = np.nonzero(np.any(palace_picture(east, size=SIZE) != before, axis=2).any(axis=0))[0]
    assert cols_e.min() > 0.6 * SIZE[0], cols_e.min()


def test_animals_and_decorations_change_pixels(finished):
    palace = _copy(finished.palace)
    base = palace_picture(palace, size=SIZE)
    # take every animal off the plate: the picture changes where each one stood
    bare = _copy(palace)
    bare.animals = [-1, -1, -1]
    on_plate = [c for c in palace.animals if c >= 0]
    assert on_plate, "the finished game has animals on the plate"
    assert not np.array_equal(base, palace_picture(bare, size=SIZE))
    for animal in Animal:
        one = _copy(bare)
        one.move_animal(animal, 8, 26)
        diff = np.any(palace_picture(one, size=SIZE) != palace_picture(bare, size=SIZE), axis=2)
        assert diff.sum() > 20, animal
    # a decoration on an empty stud, of each colour, and the colours differ from one another
    empty = _copy(Game.new(players=2, map=1, seed=0).palace)
    plain = palace_picture(empty, size=SIZE)
    pictures = []
    for colour in Colour:
        deco = _copy(empty)
        deco.place_decoration(26, 26, int(colour), owner=0, turn=1)
        img = palace_picture(deco, size=SIZE)
        assert np.any(img != plain, axis=2).sum() > 20, colour
        pictures.append(img)
    assert not np.array_equal(pictures[0], pictures[2])
    assert not np.array_equal(pictures[1], pictures[2])


def test_palace_from_heights_only():
    """A palace drawn as a scenario (heights and knobs, no element list) still shows its blocks."""
    from monkey_env.monkey_palace.text_view import draw_palace

    p = _copy(Game.new(players=2, map=1, seed=0).palace)
    p.elements = []
    before = palace_picture(p, size=SIZE)
    draw_palace(p, "b1 b2 c3 G4", origin=(20, 20))
    assert np.any(palace_picture(p, size=SIZE) != before)


def test_save_png_round_trip(finished, tmp_path):
    import matplotlib.image as mpimg

    img = game_picture(finished, size=SIZE)
    path = tmp_path / "palace.png"
    save_png(img, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    back = mpimg.imread(str(path))
    assert back.shape[:2] == img.shape[:2]
    back = np.round(back[..., :3] * 255).astype(np.uint8)
    assert np.array_equal(back, img)
    with pytest.raises(ValueError):
        save_png(img.astype(np.float32), tmp_path / "bad.png")

