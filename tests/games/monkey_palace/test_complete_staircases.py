"""The complete build action: every staircase rules A-I allow, reachable through exact masks.

The masks are checked against an independent enumerator written from the rules
(tests/games/monkey_palace/staircase_oracle.py) on positions from real games; scenarios build the staircases the
catalogue cannot express: a 5-unit base that earns the bonus, uneven rises, a U-shaped path,
and a position where the catalogue has nothing while the rules allow a staircase.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from scenario import scenario_game
from staircase_oracle import legal_staircases

from monkey_env import Game, Phase
from monkey_env.monkey_palace.engine import IllegalActionError
from monkey_env.monkey_palace.geometry import HEADING_NAMES, cell_xy
from monkey_env.monkey_palace.palace import Supply
from monkey_env.monkey_palace.staircases import BuildSearch

N, E, S, W = range(4)


def positions_from_games():
    """(palace, supply, label) at turn starts of random games: 2 and 4 players, every map,
    early, middle and late, in both build actions (each plays the game it builds)."""
    found = []
    for seed, (players, map_id, build) in enumerate([(2, 1, "catalogue"), (4, 2, "complete"),
                                                     (3, 3, "catalogue"), (2, 4, "complete")]):
        game = Game.new(players=players, map=map_id, seed=seed, build_action=build)
        rng = np.random.default_rng(seed)
        turn = 0
        while not game.game_over:
            if game.phase == Phase.ANCHOR:
                turn += 1
                if turn in (2, 9, 16):
                    s = game.player.supply
                    found.append((copy.deepcopy(game.palace), (s.arches, s.bricks, s.columns),
                                  f"{players}p map {map_id} {build} turn {turn}"))
            game.apply(int(rng.choice(game.legal_actions())))
    return found


POSITIONS = positions_from_games()


def reachable_through_masks(search: BuildSearch) -> set:
    """Every staircase a player can finish by following the masks, checking that every step the
    mask offers can still be finished (no dead ends)."""
    reached = set()
    for y, x in zip(*np.nonzero(search.legal_anchors())):
        anchor = (int(x), int(y))

        def walk(prefix, anchor=anchor) -> int:
            finished = 0
            if search.can_finish(prefix):
                reached.add((anchor, prefix.steps))
                finished += 1
            for heading, rise in search.next_steps(prefix):
                below = walk(search.extend(prefix, heading, rise), anchor)
                assert below > 0, f"a dead end: from {anchor} after {prefix.steps}, ({heading}, {rise})"
                finished += below
            return finished

        assert walk(search.start(anchor)) > 0, f"anchor {anchor} is offered but nothing can be finished"
    return reached


@pytest.mark.parametrize("index", range(len(POSITIONS)), ids=[p[2] for p in POSITIONS])
def test_the_masks_reach_exactly_the_staircases_the_rules_allow(index):
    palace, (arches, bricks, columns), _ = POSITIONS[index]
    expected = legal_staircases(palace, arches, bricks, columns)
    reached = reachable_through_masks(BuildSearch(palace, arches, bricks, columns))
    assert reached == expected, (f"{len(reached - expected)} offered but illegal, e.g. {sorted(reached - expected)[:3]}; "
                                 f"{len(expected - reached)} legal but not offered, e.g. {sorted(expected - reached)[:3]}")
    assert expected, "a position with no staircase tests nothing"
    supply = Supply(arches, bricks, columns)
    for anchor, steps in list(expected)[:300]:
        plan = palace.check_steps(anchor, steps, supply)
        assert plan.legal, f"the rule statement refuses {anchor} {steps}: {plan.reason}"


def test_the_positions_cover_both_kinds_and_the_catalogue_misses_staircases():
    """The sample above is not trivial: thousands of staircases, most outside the catalogue."""
    game = Game.new()
    catalogue = {tuple((st.heading, shape.base if j == 0 else shape.rise) for j, st in enumerate(shape.steps))
                 for shape in game.data.shapes}
    total = outside = 0
    for palace, (a, b, c), _ in POSITIONS:
        for _, steps in legal_staircases(palace, a, b, c):
            total += 1
            outside += steps not in catalogue
    assert total > 2000 and outside > total / 2, (total, outside)


# ---------------------------------------------------------------- the engine's decisions
def complete_game(palace, origin, supply, **options) -> Game:
    return scenario_game(palace, origin, supply=supply, build_action="complete", **options)


def build(game: Game, anchor, steps) -> None:
    """Play anchor, arches and finish through the engine's actions, each one offered by its mask."""
    L = game.layout
    game.apply(L.encode_cell(*anchor))
    for action in [*(L.encode_arch(h, r) for h, r in steps), L.finish]:
        if game.phase != Phase.SHAPE:
            break  # the engine went on by itself: what was left had one choice only
        assert game.legal_mask()[action], f"{game.action_name(action)} is not offered: {game.explain(action)}"
        game.apply(action)
    assert game.turn.built and game.turn.steps == list(steps), game.turn.steps


def end_turn(game: Game) -> None:
    """Stop buying and take the first choice of whatever else the turn asks, to the next seat."""
    seat = game.current
    while game.current == seat and not game.game_over:
        legal = game.legal_actions()
        game.apply(game.layout.buy_end if game.phase == Phase.BUY else int(legal[0]))


def test_a_base_of_five_units_earns_the_bonus_card():
    # A column and two bricks stand 5 high, 3 studs east of the anchor: arch 1 on a base of 5
    # lands on it. The catalogue's bases stop at 3.
    game = complete_game(["b5"], (12, 10), supply=(1, 5, 0))
    before = game.bonus_left
    build(game, (9, 10), [(E, 5)])
    assert int(game.palace.height[10, 9]) == 6 and game.turn.max_stack == 5
    end_turn(game)
    assert game.players[0].bonus_cards == 1 and game.bonus_left == before - 1


def test_uneven_rises_build_the_levels_they_say():
    game = complete_game(["b4"], (18, 10), supply=(3, 9, 0))
    steps = [(E, 0), (E, 2), (E, 0)]   # levels 0, 3, 4: the last far leg on the 4-high stack
    plan = game.palace.check_steps((9, 10), steps, game.player.supply)
    assert plan.legal, plan.reason
    assert [level for *_, level in plan.arches] == [0, 3, 4]
    build(game, (9, 10), steps)
    assert [int(game.palace.height[10, x]) for x in (9, 12, 15, 18)] == [1, 4, 5, 6]


def test_a_u_shaped_path_left_straight_straight_left():
    game = complete_game(["b4"], (6, 4), supply=(5, 12, 0))
    steps = [(E, 0), (N, 0), (N, 0), (N, 0), (W, 0)]    # east, left, straight, straight, left
    plan = game.palace.check_steps((6, 13), steps, game.player.supply)
    assert plan.legal, plan.reason
    turns = "".join("S" if b == a else ("L" if (b - a) % 4 == 3 else "R") for (a, _), (b, _) in zip(steps, steps[1:]))
    assert turns == "LSSL"
    assert not any(s.turns == turns for s in game.data.shapes), "the catalogue has no U"
    build(game, (6, 13), steps)
    assert game.palace.deco_max[0] > 0 and game.phase != Phase.SHAPE


def test_where_the_catalogue_has_nothing_the_complete_action_finds_the_staircase():
    # One 3-high stack; 2 arches and 2 bricks. Arch 1 on the ground, a rise of 2 on its end knob,
    # arch 2 at level 3 onto the stack: 2 bricks. With the catalogue's rises of 0-1 it takes a
    # base of 1 at least, and then 3 bricks: the catalogue game has no staircase at all.
    catalogue = scenario_game(["b3"], (15, 10), supply=(2, 2, 0))
    assert not catalogue.build_matrix().any()
    game = complete_game(["b3"], (15, 10), supply=(2, 2, 0))
    assert game.anchor_cells().any()
    build(game, (9, 10), [(E, 0), (E, 2)])
    assert game.turn.built and game.player.supply.as_tuple() == (0, 0, 0)


def test_no_stud_is_visited_twice():
    game = complete_game(["b2"], (9, 4), supply=(6, 20, 0))
    plan = game.palace.check_steps((6, 7), [(E, 0), (S, 0), (W, 0), (N, 0)], game.player.supply)
    assert not plan.legal and plan.rule == "I" and "(6, 7)" in plan.reason
    search = game.build_search()
    prefix = search.start((6, 7))
    for step in [(E, 0), (S, 0), (W, 0)]:
        prefix = search.extend(prefix, *step)
    assert all(heading != N for heading, _ in search.next_steps(prefix))
    first = search.extend(search.start((6, 7)), E, 0)
    assert search.next_steps(first) and all(heading != W for heading, _ in search.next_steps(first)), \
        "H: never back the way the last arch came"


def test_a_refused_step_names_its_rule_and_changes_nothing():
    game = complete_game(["b3"], (15, 10), supply=(2, 4, 0))
    L = game.layout
    game.apply(L.encode_cell(9, 10))
    before = game.to_dict()
    assert game.phase == Phase.SHAPE
    for action, words in [(L.encode_arch(E, 5), "supply"), (L.finish, "rule C"),
                          (L.encode_arch(N, 0), "rule E"), (L.encode_shape(0) if L.n_shapes else L.buy_end, "not a choice")]:
        assert not game.legal_mask()[action]
        with pytest.raises(IllegalActionError) as refused:
            game.apply(action)
        assert words in str(refused.value), str(refused.value)
        assert game.to_dict() == before
    game.apply(L.encode_arch(E, 0))
    with pytest.raises(IllegalActionError, match="rule E"):
        game.apply(L.finish)


def test_the_engine_offers_what_the_search_offers():
    game = Game.new(players=3, map=2, seed=5, build_action="complete")
    rng = np.random.default_rng(0)
    checked = 0
    while not game.game_over and checked < 40:
        if game.phase == Phase.SHAPE:
            mask, L = game.legal_mask(), game.layout
            prefix = game.build_prefix()
            offered = {game.layout.decode(a)[1] for a in np.flatnonzero(mask) if a != L.finish}
            assert offered == set(game.build_search().next_steps(prefix))
            assert mask[L.finish] == BuildSearch.can_finish(prefix)
            for a in np.flatnonzero(mask):
                assert game.explain(int(a)) == "legal"
            checked += 1
        game.apply(int(rng.choice(game.legal_actions())))
    assert checked >= 20


def test_complete_games_save_and_replay():
    game = Game.new(players=2, map=3, seed=2, build_action="complete")
    rng = np.random.default_rng(2)
    while not game.game_over:
        if game.phase == Phase.SHAPE and game.turn.steps:
            saved = game.to_dict()
            assert Game.from_dict(saved).to_dict() == saved     # mid-staircase, steps and all
        game.apply(int(rng.choice(game.legal_actions())))
    assert game.options.build_action == "complete"
    replayed = Game.replay(game.record())
    assert replayed.to_dict() == game.to_dict()


def test_catalogue_saves_without_steps_still_load():
    game = Game.new(seed=1, build_action="catalogue")
    saved = game.to_dict()
    del saved["turn"]["steps"]
    del saved["options"]["build_action"]
    assert Game.from_dict(saved).to_dict() == game.to_dict()


def test_the_environments_engine_plays_the_complete_action():
    """jax_game_for (the environments' and batched agents' factory) gives the complete action
    its own JaxGame: the build action sets the action space (tests/games/monkey_palace/test_complete_envs.py plays it)."""
    from monkey_env.monkey_palace.actions import ActionLayout
    from monkey_env.monkey_palace.jaxgame.env import jax_game_for
    from monkey_env.monkey_palace.options import GameOptions
    complete = jax_game_for(GameOptions(build_action="complete"))
    assert complete.build_action == "complete" and complete.num_actions == 1563
    assert jax_game_for(GameOptions()) is complete                      # the default
    assert jax_game_for(GameOptions(build_action="catalogue")).num_actions == ActionLayout(1392).size


def test_action_names_say_the_arch():
    game = complete_game(["b3"], (15, 10), supply=(2, 4, 0))
    L = game.layout
    game.apply(L.encode_cell(9, 10))
    assert game.action_name(L.encode_arch(E, 0)) == f"arch 1: heading {HEADING_NAMES[E]}"
    assert game.action_name(L.encode_arch(E, 2)) == "arch 1: 2 unit(s) stacked on the anchor, heading E"
    assert game.action_name(L.finish) == "finish the staircase"


# ---------------------------------------------------------------- greedy on every staircase
def plan_value(game: Game, anchor, steps) -> int:
    from monkey_env.monkey_palace.agents.greedy import built_value
    plan = game.palace.check_steps(anchor, steps, game.player.supply)
    assert plan.legal, plan.reason
    return built_value(game, plan.colour, len(plan.arches), plan.deco_top, max((s.units for s in plan.stacks), default=0))


def test_greedy_builds_the_best_staircase_of_all_the_rules_allow():
    from monkey_env.monkey_palace.agents.greedy import GreedyAgent
    greedy, rng = GreedyAgent(), np.random.default_rng(4)
    game = Game.new(players=2, map=1, seed=4, build_action="complete")
    checked = 0
    while not game.game_over and checked < 4:
        if game.phase == Phase.ANCHOR and game.turns_played % 3 == 2:
            s = game.player.supply
            best = max(plan_value(game, anchor, steps)
                       for anchor, steps in legal_staircases(game.palace, s.arches, s.bricks, s.columns))
            seat, probe = game.current, copy.deepcopy(game)
            while probe.phase in (Phase.ANCHOR, Phase.SHAPE) and probe.current == seat:
                probe.apply(greedy.act(probe, probe.legal_mask()))
            assert probe.turn.built
            chosen = plan_value(game, cell_xy(probe.turn.anchor), probe.turn.steps)
            assert chosen == best, (chosen, best, probe.turn.steps)
            checked += 1
        game.apply(int(rng.choice(game.legal_actions())))
    assert checked == 4


def test_greedy_reaches_for_the_bonus_card():
    from monkey_env.monkey_palace.agents.greedy import GreedyAgent
    game = complete_game(["b5", "", "", "b2"], (12, 7), supply=(3, 8, 0))
    greedy = GreedyAgent()
    while game.phase in (Phase.ANCHOR, Phase.SHAPE):
        game.apply(greedy.act(game, game.legal_mask()))
    assert game.turn.max_stack >= game.data.tray.bonus.min_stack


# ---------------------------------------------------------------- the terminal
def test_the_terminal_builds_a_staircase_arch_by_arch(tmp_path):
    import io

    from monkey_env.monkey_palace.apps.play import Session
    from monkey_env.monkey_palace.options import GameOptions

    game = Game.from_options(GameOptions(players=2, seed=1, build_action="complete"))
    anchors = [int(c) for c in np.flatnonzero(game.anchor_cells())]
    x, y = cell_xy(anchors[9])
    out = io.StringIO()
    session = Session(game, 0, ["random"], tmp_path / "save.json", out, io.StringIO(f"{x} {y}\n2\n" + "1\n" * 8))
    session.staircase_by_arches()
    text = out.getvalue()
    assert f"Your staircase from ({x}, {y}): what next?" in text
    assert "arch 1 east at level 0; far leg at" in text and "brick units so far" in text
    assert "arch 2" in text, "the second arch is asked after the first"
    assert game.turn.built and len(game.turn.steps) >= 2
    assert game.turn.steps[0] == (S, 0), "answer 2 to arch 1 is south, the second choice listed"


# ---------------------------------------------------------------- the browser's data
def test_the_web_page_builds_arch_by_arch_with_previews(tmp_path):
    import json

    from fastapi.testclient import TestClient

    from monkey_env.apps.web.app import create_app

    client = TestClient(create_app(tmp_path / "games"))
    meta = client.get("/api/meta").json()
    assert meta["games"][0]["options"]["build_action"]["choices"] == ["catalogue", "complete"]
    body = {"game": "monkey_palace", "options": {"players": 2, "seed": 1, "build_action": "complete"},
            "seats": [{"kind": "human"}, {"kind": "human"}]}
    g = client.post("/api/games", json=body).json()
    gid, decisions = g["id"], 0
    stud = next(s for s in g["state"]["decision"]["studs"] if (s["x"], s["y"]) == (9, 13))
    state = client.post(f"/api/games/{gid}/move", json={"action": stud["action"], "expect": decisions}).json()["state"]
    decisions += 1
    while state["decision"]["phase"] == "SHAPE":
        d = state["decision"]
        assert d["anchor"] == [9, 13] and d["shapes"]
        arches = [s for s in d["shapes"] if s["deco_top"] is None]
        for s in arches:   # each next arch previewed on the staircase so far: one more arch, no decoration
            kinds = [e["kind"] for e in s["elements"]]
            assert kinds.count("arch") == d["built_so_far"] + 1 and "decoration" not in kinds
        finish = [s for s in d["shapes"] if s["deco_top"] is not None]
        attaching = [s for s in arches if "attaches to the palace" in s["label"]]
        choice = finish[0] if finish and d["built_so_far"] else (attaching or arches)[0]
        if finish:
            assert finish[0]["label"].startswith("finish here") and "credit" in finish[0]["label"]
        before = len(state["palace"]["elements"])
        state = client.post(f"/api/games/{gid}/move", json={"action": choice["action"], "expect": decisions}).json()["state"]
        decisions += 1
    placed = state["palace"]["elements"][before:]
    assert [e["kind"] for e in placed].count("decoration") == 1
    assert choice["deco_top"] is not None, "this staircase (seed 1, from (9, 13)) ends by a finish chosen"
    if choice["deco_top"] is not None:   # the finish preview is what was built
        strip = lambda e: {k: v for k, v in e.items() if k != "turn"}
        assert sorted(map(json.dumps, map(strip, placed))) == sorted(map(json.dumps, map(strip, choice["elements"])))


# ---------------------------------------------------------------- the commands
def test_commands_play_the_complete_action_on_either_engine(tmp_path):
    """A tournament of greedy and random plays the complete action on the reference engine when
    asked; left to choose, it plays batched on the JAX engine (greedy's walk)."""
    from monkey_env.apps.arena.results import Results
    from monkey_env.apps.arena.runner import plan_tournament
    from monkey_env.apps.cli import main

    db = tmp_path / "t.sqlite"
    assert main(["tournament", "--agents", "greedy,random", "--games", "2", "--engine", "reference",
                 "--build-action", "complete", "--db", str(db), "--quiet"]) == 0
    ((tour, games),) = Results(db).tournaments()
    assert games == 2 and tour.config["engine"] == "reference" and tour.config["options"]["build_action"] == "complete"
    plan = plan_tournament(["greedy", "random"], 2, "1", {"build_action": "complete"}, 2, 0, "auto")
    assert plan.spec["engine"] == "jax"


def test_the_coverage_report_measures_both_actions_against_the_enumerator(tmp_path):
    import json

    from experiments.staircase_coverage import main

    main(["--positions", "3", "--verify", "--out", str(tmp_path / "coverage.json")])
    summary = json.loads((tmp_path / "coverage.json").read_text())["summary"]
    assert summary["complete_action_expresses"] == 1.0 and summary["best_offered_complete"] == 1.0
    assert 0 < summary["catalogue_expresses"] < 1 and summary["legal_staircases"] > 1000


def test_a_save_whose_arches_are_not_a_staircase_is_refused():
    from monkey_env.monkey_palace.engine import SaveFileError

    game = complete_game(["b3"], (15, 10), supply=(2, 4, 0))
    game.apply(game.layout.encode_cell(9, 10))
    game.apply(game.layout.encode_arch(E, 0))
    saved = game.to_dict()
    assert Game.from_dict(saved).turn.steps == [(E, 0)]
    saved["turn"]["steps"] = [[E, 0], [W, 0]]    # turning back on itself (rule H)
    with pytest.raises(SaveFileError, match="turn.steps"):
        Game.from_dict(saved)
