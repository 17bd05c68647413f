"""Bad input: illegal or out-of-range actions, bad options, malformed game-data files."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
import yaml

from monkey_env import ConfigError, Game, GameOptions, IllegalActionError, Phase, SaveFileError, load_game_data
from monkey_env.agents.random_agent import RandomAgent
from monkey_env.monkey_palace.actions import PHASE_WORDS
from monkey_env.monkey_palace.config import PILE_IDS

CONFIGS = Path(__file__).resolve().parents[3] / "configs"


def assert_clean(err: BaseException) -> None:
    """The error is raised on its own, not chained to a traceback from deep inside."""
    assert err.__cause__ is None
    assert err.__context__ is None or err.__suppress_context__


# ====================================================================== actions

def assert_rejected(game: Game, action: int, *words: str, error=IllegalActionError) -> BaseException:
    """Applying ``action`` raises ``error`` naming the phase and the reason, and changes nothing."""
    before = game.to_dict()
    mask_before = game.legal_mask().copy()
    phase = game.phase
    with pytest.raises(error) as e:
        game.apply(action)
    msg = str(e.value)
    assert phase.name.lower() in msg, msg
    for w in words:
        assert w in msg, msg
    if isinstance(e.value, IllegalActionError):
        assert e.value.phase == phase and e.value.action == int(action)
        assert e.value.reason and e.value.reason in msg
        assert PHASE_WORDS[phase] in msg
    assert game.to_dict() == before
    assert (game.legal_mask() == mask_before).all()
    return e.value


def games_in_every_phase():
    """(game, phase) at the first few decisions of each phase, over a few random games."""
    counts: dict[Phase, int] = {}
    for seed, opts in enumerate([dict(butterfly=True, frog=True, monkey_move="mandatory"),
                                 dict(butterfly=True, frog=True), dict(frog=True)]):
        game = Game.new(2 + seed, 1 + seed, seed=seed, **opts)
        agent = RandomAgent(seed)
        while not game.game_over:
            if counts.get(game.phase, 0) < 3:
                counts[game.phase] = counts.get(game.phase, 0) + 1
                yield game
            game.apply(agent.act(game, game.legal_mask()))
        yield game


def test_illegal_actions_in_every_phase():
    rng = np.random.default_rng(0)
    phases = set()
    for game in games_in_every_phase():
        phases.add(game.phase)
        illegal = np.flatnonzero(~game.legal_mask())
        for a in rng.choice(illegal, 3, replace=False):
            err = assert_rejected(game, int(a))
            assert game.explain(int(a)) == err.reason
    assert {Phase.ANCHOR, Phase.SHAPE, Phase.BUY, Phase.GAME_OVER} <= phases


def play_until(game: Game, agent: RandomAgent, pred, limit: int = 3000) -> Game:
    for _ in range(limit):
        if pred(game):
            return game
        assert not game.game_over, "the wanted situation never came"
        game.apply(agent.act(game, game.legal_mask()))
    raise AssertionError("the wanted situation never came")


@pytest.mark.parametrize("build_action, corner_words", [
    ("complete", ("the anchor (1, 1) must be an open coloured ground stud", "corner piece (rule A)")),
    ("catalogue", ("no staircase can start at (1, 1)",))])
def test_anchor_with_no_staircase(build_action, corner_words):
    game = Game.new(2, 1, seed=0, build_action=build_action)
    assert game.phase == Phase.ANCHOR
    # A corner piece: nothing is built there.
    assert_rejected(game, game.layout.encode_cell(1, 1), *corner_words)
    # Far from the palace: nothing attaches.
    assert_rejected(game, game.layout.encode_cell(0, 31), "no staircase can start at (0, 31)")


def test_wrong_kind_of_action():
    game = Game.new(2, 1, seed=0)
    assert_rejected(game, game.layout.buy_end, "not a choice now", PHASE_WORDS[Phase.ANCHOR])
    assert_rejected(game, game.layout.frog_take, "not a choice now")
    assert_rejected(game, game.layout.encode_shape(0), "not a choice now")


def test_illegal_shape():
    game = play_until(Game.new(2, 1, seed=1), RandomAgent(1), lambda g: g.phase == Phase.SHAPE)
    mask = game.legal_mask()
    bad = next(game.layout.encode_shape(i) for i in range(len(game.data.shapes))
               if not mask[game.layout.encode_shape(i)])
    assert_rejected(game, bad)


def test_illegal_purchases():
    game = play_until(Game.new(2, 1, seed=2), RandomAgent(2), lambda g: g.phase == Phase.BUY)
    t = game.turn
    colour = ("light", "dark", "gold")[t.colour]
    for pile, name in enumerate(PILE_IDS):
        a = game.layout.encode_buy(pile)
        if game.legal_mask()[a]:
            continue
        top = game.data.cards[game.piles[pile][-1]]
        if top.colour not in ("multi", colour):
            assert_rejected(game, a, f"pile {name} is {top.colour}", f"your decoration is {colour}")
        elif top.cost > t.credits:
            assert_rejected(game, a, f"pile {name} costs {top.cost}", f"you have {t.credits}")
    assert_rejected(game, game.layout.encode_cell(5, 5), "not a choice now", PHASE_WORDS[Phase.BUY])


def test_second_card_from_the_same_pile():
    def ready(g):
        return g.phase == Phase.BUY and g.turn.credits >= 2 and g.piles[0] and g.legal_mask()[g.layout.encode_buy(0)]
    game = play_until(Game.new(2, 1, seed=3, frog=True), RandomAgent(3), ready)
    game.apply(game.layout.encode_buy(0))
    if game.phase == Phase.BUY:
        assert_rejected(game, game.layout.encode_buy(0), "one card per pile per turn")


def test_mandatory_monkey_cannot_stay():
    def ready(g):
        return g.phase == Phase.MONKEY and g.palace.open_arch_ends()
    for seed in range(6):
        game = Game.new(2, 1 + seed % 4, seed=seed, monkey_move="mandatory")
        try:
            play_until(game, RandomAgent(seed), ready)
        except AssertionError:
            continue
        assert_rejected(game, game.layout.monkey_stay, "must move")
        # And the monkey only goes onto an open arch end knob.
        bad = next(a for a in range(1024) if not game.legal_mask()[a])
        assert_rejected(game, bad, "the monkey goes on an open arch end knob")
        return
    pytest.fail("no monkey decision in six games")


def test_actions_after_the_game_is_over():
    game = Game.new(2, 4, seed=4)
    play_until(game, RandomAgent(4), lambda g: g.game_over)
    for a in (0, game.layout.buy_end, game.layout.size - 1):
        assert_rejected(game, a, "the game is over")


@pytest.mark.parametrize("action", [-1, -2438, 2438, 10**9])
def test_out_of_range_actions(action):
    game = Game.new(2, 1, seed=0)
    if action == 2438:
        action = game.layout.size
    err = assert_rejected(game, action, "out of range", str(action), error=ValueError)
    assert str(game.layout.size - 1) in str(err)


def test_out_of_range_explain():
    game = Game.new(2, 1, seed=0)
    assert "out of range" in game.explain(game.layout.size)
    assert "out of range" in game.explain(-1)


# ====================================================================== options

@pytest.mark.parametrize("kwargs,words", [
    (dict(players=5), ["players", "5"]),
    (dict(players=1), ["players", "1"]),
    (dict(players=0), ["players"]),
    (dict(monkey_move="sometimes"), ["monkey_move", "sometimes", "optional", "mandatory"]),
    (dict(end_trigger="never"), ["end_trigger", "never", "shortfall", "last_taken"]),
    (dict(butterfly_rule="prettiest"), ["butterfly_rule", "prettiest"]),
])
def test_bad_options(kwargs, words):
    with pytest.raises(ValueError) as e:
        GameOptions(**kwargs)
    for w in words:
        assert w in str(e.value)
    players = kwargs.pop("players", 2)
    with pytest.raises(ValueError):
        Game.new(players, 1, **kwargs)


@pytest.mark.parametrize("map_id", [0, 5, "7"])
def test_unknown_map(map_id):
    with pytest.raises(ConfigError, match=f"map {map_id}") as e:
        Game.new(2, map_id)
    assert_clean(e.value)


def test_missing_map_file(tmp_path):
    path = tmp_path / "nowhere.yaml"
    with pytest.raises(ConfigError, match="cannot read") as e:
        Game.new(2, str(path))
    assert str(path) in str(e.value)


# ====================================================================== configs

@pytest.fixture
def cfg(tmp_path) -> Path:
    d = tmp_path / "configs"
    shutil.copytree(CONFIGS, d, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    return d


def load(path: Path):
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def dump(path: Path, data) -> None:
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def edit(path: Path, fn) -> None:
    data = load(path)
    fn(data)
    dump(path, data)


def edit_grid(path: Path, fn) -> None:
    """fn receives the grid as a list of lists of characters, [y][x]."""
    data = load(path)
    rows = [list(r) for r in data["grid"].strip("\n").split("\n")]
    fn(rows)
    data["grid"] = "\n".join("".join(r) for r in rows) + "\n"
    dump(path, data)


def _empty_pile(d):
    # Per-pile counts are estimates a user may change (docs/DATA.md), but a pile needs a card.
    d["piles"][3]["cards"] = []


def _move_corner(rows):
    rows[1][1], rows[1][2] = rows[1][2], "C"


# (file, edit(path), words the message must contain besides the file's path)
CONFIG_CASES = {
    "yaml-syntax": ("tray.yaml", lambda p: p.write_text(p.read_text() + "\nbonus: [unclosed\n"),
                    ["not valid YAML", "line"]),
    "not-a-mapping": ("boards.yaml", lambda p: p.write_text("- just\n- a list\n"), ["mapping"]),
    "missing-field": ("tray.yaml", lambda p: edit(p, lambda d: d.pop("bonus")), ["bonus", "required"]),
    "missing-nested-field": ("boards.yaml", lambda p: edit(p, lambda d: d["boards"][2].pop("starting")),
                             ["boards.2.starting", "required"]),
    "wrong-type": ("tray.yaml", lambda p: edit(p, lambda d: d["elements"].__setitem__("arches", "many")),
                   ["elements.arches", "integer"]),
    "negative": ("tray.yaml", lambda p: edit(p, lambda d: d["elements"].__setitem__("bricks", -1)),
                 ["elements.bricks", "greater than or equal to 0"]),
    "unknown-field": ("tray.yaml", lambda p: edit(p, lambda d: d.__setitem__("colour", "red")),
                      ["colour", "xtra"]),
    "pile-missing": ("cards.yaml", lambda p: edit(p, lambda d: d["piles"].pop(5)), ["piles", "light-5"]),
    "pile-twice": ("cards.yaml", lambda p: edit(p, lambda d: d["piles"].append(d["piles"][0])),
                   ["piles", "multi-1"]),
    "pile-id-unknown": ("cards.yaml", lambda p: edit(p, lambda d: d["piles"][0].__setitem__("id", "multi-7")),
                        ["piles.0", "unknown pile id", "multi-7"]),
    "pile-colour-wrong": ("cards.yaml", lambda p: edit(p, lambda d: d["piles"][3].__setitem__("colour", "dark")),
                          ["piles.3", "light-3", "colour"]),
    "pile-empty": ("cards.yaml", lambda p: edit(p, _empty_pile), ["piles.3.cards", "at least 1"]),
    "unknown-icon": ("cards.yaml",
                     lambda p: edit(p, lambda d: d["piles"][0]["cards"][0].__setitem__("instant", ["banana"])),
                     ["piles.0.cards.0.instant", "arch_or_brick"]),
    "card-bananas-type": ("cards.yaml",
                          lambda p: edit(p, lambda d: d["piles"][1]["cards"][2].__setitem__("bananas", "lots")),
                          ["piles.1.cards.2.bananas", "integer"]),
    "row-length": ("maps/map1.yaml", lambda p: edit_grid(p, lambda r: r[3].append("l")),
                   ["grid", "row 3", "32 characters", "33"]),
    "row-count": ("maps/map1.yaml", lambda p: edit_grid(p, lambda r: r.pop()), ["grid", "32 rows", "31"]),
    "unknown-char": ("maps/map1.yaml", lambda p: edit_grid(p, lambda r: r[5].__setitem__(7, "x")),
                     ["grid", "row 5", "unknown characters", "x"]),
    "corner-moved": ("maps/map1.yaml", lambda p: edit_grid(p, _move_corner), ["grid", "corner pieces", "(2, 1)"]),
    "start-not-white": ("maps/map1.yaml", lambda p: edit(p, lambda d: d["start"].__setitem__("anchor", [3, 3])),
                        ["start", "white"]),
    "start-off-plate": ("maps/map1.yaml", lambda p: edit(p, lambda d: d["start"].__setitem__("anchor", [30, 16])),
                        ["start", "white"]),
    "start-heading": ("maps/map1.yaml", lambda p: edit(p, lambda d: d["start"].__setitem__("heading", "NE")),
                      ["start.heading", "'N'"]),
    "recurring-empty": ("boards.yaml",
                        lambda p: edit(p, lambda d: d["boards"][1].__setitem__(
                            "recurring", {"arches": 0, "bricks": 0, "columns": 0})),
                        ["boards.1.recurring", "at least one element"]),
    "seats-order": ("boards.yaml", lambda p: edit(p, lambda d: d["boards"].reverse()), ["boards", "seats"]),
    "decorations-not-null": ("tray.yaml", lambda p: edit(p, lambda d: d["decorations"].__setitem__("gold", 12)),
                             ["decorations", "null"]),
    "catalogue-bases": ("catalogue.yaml", lambda p: edit(p, lambda d: d.__setitem__("bases", [0, 9])),
                        ["bases", "0 to 8"]),
    "catalogue-heading": ("catalogue.yaml", lambda p: edit(p, lambda d: d.__setitem__("headings", ["N", "Up"])),
                          ["headings.1", "'W'"]),
    "file-missing": ("boards.yaml", lambda p: p.unlink(), ["cannot read"]),
}


@pytest.mark.parametrize("case", list(CONFIG_CASES))
def test_malformed_config(cfg, case):
    name, fn, words = CONFIG_CASES[case]
    path = cfg / name
    fn(path)
    with pytest.raises(ConfigError) as e:
        load_game_data(1, config_dir=cfg)
    msg = str(e.value)
    assert str(path) in msg, msg
    for w in words:
        assert w in msg, f"{w!r} not in {msg!r}"
    assert_clean(e.value)


def test_malformed_map_by_path(cfg):
    """An edited map given by its path (not through config_dir) is checked the same way."""
    path = cfg / "maps" / "map3.yaml"
    edit_grid(path, lambda r: r[0].__setitem__(0, "?"))
    with pytest.raises(ConfigError) as e:
        Game.new(2, str(path))
    assert str(path) in str(e.value) and "unknown characters" in str(e.value)


def test_edited_copies_load(cfg):
    """A folder of valid edited copies loads, and the game uses the edits."""
    edit(cfg / "cards.yaml", lambda d: d["piles"][2]["cards"][0].__setitem__("bananas", 9))
    edit(cfg / "maps" / "map2.yaml", lambda d: d.__setitem__("description", "edited"))
    edit(cfg / "tray.yaml", lambda d: d["bonus"].__setitem__("points", 5))
    data = load_game_data(2, config_dir=cfg)
    assert data.map.description == "edited"
    assert data.tray.bonus.points == 5
    first_multi6 = data.pile_cards[PILE_IDS.index("multi-6")][0]
    assert data.cards[first_multi6].bananas == 9
    assert data.fingerprint != load_game_data(2).fingerprint
    game = Game.new(2, 2, data=data, seed=0)
    play_until(game, RandomAgent(0), lambda g: g.game_over)
    assert game.data is data


def test_each_file_given_alone(cfg):
    edit(cfg / "cards.yaml", lambda d: d["piles"][0].__setitem__("id", "multi-9"))
    with pytest.raises(ConfigError, match="multi-9") as e:
        load_game_data(1, cards=cfg / "cards.yaml")
    assert str(cfg / "cards.yaml") in str(e.value)
    # The other files still come from the package.
    assert load_game_data(1, boards=cfg / "boards.yaml").fingerprint == load_game_data(1).fingerprint


# ====================================================================== non-integer actions, saves checked on load

@pytest.mark.parametrize("action", ["12", 3.7, 3.0, None, True, [1]])
def test_an_action_must_be_an_integer(action):
    g = Game.new(seed=0)
    before = g.to_dict()
    with pytest.raises(IllegalActionError, match="integer"):
        g.apply(action)
    assert g.to_dict() == before


def test_numpy_integers_are_actions():
    g = Game.new(seed=0)
    g.apply(np.int64(g.legal_actions()[0]))
    assert len(g.history) == 1


@pytest.mark.parametrize("edit, words", [
    (lambda d: d["palace"]["ground"][3].__setitem__(4, 77), ["ground", "x=4", "y=3", "77"]),
    (lambda d: d["palace"]["knob"][0].__setitem__(0, -5), ["knob", "-5"]),
    (lambda d: d["palace"]["animals"].__setitem__(0, 5000), ["animals", "5000"]),
    (lambda d: d["history"].append(999999), ["history", "999999"]),
])
def test_a_corrupt_save_is_refused_on_load(edit, words):
    g = Game.new(seed=0)
    g.apply(g.legal_actions()[0])
    d = g.to_dict()
    edit(d)
    with pytest.raises(SaveFileError) as e:
        Game.from_dict(d)
    for w in words:
        assert w in str(e.value)
