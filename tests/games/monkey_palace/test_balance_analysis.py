"""The balance figures on synthetic games with known answers (no engine), and the arena reader."""

import json

import numpy as np
import pytest

from monkey_env.monkey_palace.apps.balance import analysis as A
from monkey_env.monkey_palace.apps.balance.collect import BalancePlan, Cell, Dataset, Records, rotations
from monkey_env.monkey_palace.apps.balance.report import clean, findings, tables, write
from monkey_env.monkey_palace.game_data import load_game_data

DATA = load_game_data(1)
C = len(DATA.cards)


def records(scores, *, card_owner=None, card_round=None, top=None, rounds=None, colours=None, holders=None):
    scores = np.asarray(scores, np.int64)
    n, p = scores.shape
    return Records(
        seeds=np.arange(n), scores=scores, rounds=np.full(n, 10) if rounds is None else np.asarray(rounds),
        end_kind=np.zeros(n, np.int64), illegal=np.zeros(n, bool), decisions=np.full(n, 100),
        card_owner=np.full((n, C), -1) if card_owner is None else card_owner,
        card_round=np.full((n, C), -1) if card_round is None else card_round,
        card_top_turns=np.zeros((n, C), np.int64) if top is None else top,
        colour_builds=np.ones((n, p, 3), np.int64) if colours is None else colours,
        holders=np.full((n, 3), -1) if holders is None else holders, bonus_cards=np.zeros((n, p), np.int64))


def test_split_wins_and_seat_figures():
    # 1000 games: seat 1 wins 550 outright, seat 2 wins 400, 50 ties (half a win each): 575 vs 425.
    s = np.array([[2, 1]] * 550 + [[1, 2]] * 400 + [[3, 3]] * 50)
    f = A.seat_figures(records(s))
    assert f["seats"][0]["win"]["value"] == pytest.approx(0.575)
    assert f["seats"][1]["win"]["value"] == pytest.approx(0.425)
    assert f["ties"]["value"] == pytest.approx(0.05)
    assert f["chi_square"]["significant"] and f["first_minus_last_win"]["significant"]
    assert f["first_minus_last_win"]["value"] == pytest.approx(0.15)
    # Scores: seat 1 - seat 2 paired = (550 - 400) / 1000 = 0.15 points.
    assert f["first_minus_last_bananas"]["value"] == pytest.approx(0.15)
    # Fair seats: not significant.
    g = A.seat_figures(records(np.array([[2, 1]] * 503 + [[1, 2]] * 497)))
    assert not g["chi_square"]["significant"] and not g["first_minus_last_win"]["significant"]


def test_seat_cells_holm_over_maps():
    # 1,000 games per map. Map 1: seat 1 wins 575 (chi-square p ~ 2e-6); map 2: 535 (p ~ 0.027,
    # significant alone, not after Holm over 4 maps: 0.027 > 0.05 / 3); maps 3 and 4 fair.
    def cell(first_wins):
        return records(np.array([[2, 1]] * first_wins + [[1, 2]] * (1000 - first_wins)))
    wins = {"1": 575, "2": 535, "3": 500, "4": 500}
    ds = Dataset(cells=[Cell("seats", 2, m, "none", ("x", "x")) for m in wins], records=[cell(w) for w in wins.values()],
                 meta={"plan": {"agents": ["x"]}})
    chi = {c["map"]: c["chi_square"] for c in A.seats_section(ds)["cells"]}
    assert chi["1"]["significant"] and chi["1"]["significant_after_holm"]
    assert chi["2"]["significant"] and not chi["2"]["significant_after_holm"]
    assert 0.02 < chi["2"]["p_value"] < 0.035
    assert not chi["3"]["significant"] and not chi["3"]["significant_after_holm"]
    text = " ".join(findings({**A.analyse(ds, DATA)}))
    assert "map 2: seats differ" in text and "not significant after Holm" in text


def test_card_figures_known_answers():
    # 2 players, 400 games. Card 0 is bought by seat 1 in every even game (round 3) and that seat
    # wins; in odd games nobody buys it and seat 2 wins. Card 0 lies 4 turns on top of a slot.
    n = 400
    s = np.where((np.arange(n) % 2 == 0)[:, None], [[5, 1]], [[1, 5]])
    owner = np.full((n, C), -1)
    rnd = np.full((n, C), -1)
    top = np.zeros((n, C), np.int64)
    owner[::2, 0], rnd[::2, 0], top[::2, 0] = 0, 3, 4
    # The multi-6 pile (cards 16-21) is emptied in every game, its last card in round 9.
    ids = [c.id for c in DATA.cards if c.pile == 2]
    owner[:, ids] = 1
    rnd[:, ids] = 5
    rnd[:, ids[-1]] = 9
    ds = Dataset(cells=[Cell("seats", 2, "1", "none", ("x", "x"))],
                 records=[records(s, card_owner=owner, card_round=rnd, top=top)],
                 meta={"plan": {"agents": ["x"]}})
    cards = A.card_table(DATA)
    blk = A.cards_section(ds, cards)["per_players"][0]
    c0 = blk["cards"][0]
    assert c0["bought"]["value"] == pytest.approx(0.5)
    assert c0["round"]["value"] == 3
    assert c0["buyer_win"]["value"] == 1.0 and c0["buyer_win"]["n"] == 200
    # Non-buyers: 600 seat-games; they win the 200 odd games.
    assert c0["nonbuyer_win"]["n"] == 600 and c0["nonbuyer_win"]["value"] == pytest.approx(1 / 3)
    assert c0["significant_after_holm"]
    card = DATA.cards[0]
    assert c0["elements"]["value"] == len(card.instant) + 4 * sum(card.recurring)
    pile = next(p for p in blk["piles"] if p["pile"] == "multi-6")
    assert pile["ran_out"]["value"] == 1.0 and pile["runout_round"]["value"] == 9
    assert pile["bought_share"]["value"] == 1.0
    nobody = next(p for p in blk["piles"] if p["pile"] == "gold-5")
    assert nobody["bought_share"]["value"] == 0 and nobody["ran_out"]["value"] == 0


def test_map_figures_colour_share_and_rounds():
    s = np.array([[10, 4]] * 100)
    colours = np.zeros((100, 2, 3), np.int64)
    colours[:, 0, 2] = 1      # one gold staircase per game
    colours[:, 1, 0] = 3      # three light ones
    f = A.map_figures(records(s, rounds=[9] * 50 + [11] * 50, colours=colours))
    assert f["colour_share"]["gold"]["value"] == pytest.approx(0.25)
    assert f["colour_share"]["light"]["value"] == pytest.approx(0.75)
    assert f["rounds"]["value"] == 10 and f["rounds_range"] == [9, 10, 11]
    assert f["margin"]["value"] == 6 and f["winner_score"]["value"] == 10


def test_skill_and_options_and_whatif_sections():
    rng = np.random.default_rng(0)
    def games(n, p_first_wins, players=2):
        first = rng.random(n) < p_first_wins
        return np.where(first[:, None], [[3, 1]], [[1, 3]]) if players == 2 else None
    cells = [Cell("seats", 2, "1", "none", ("g", "g")),
             Cell("skill", 2, "1", "none", ("g", "r")), Cell("skill", 2, "1", "none", ("r", "g")),
             Cell("options", 2, "1", "frog", ("g", "g")),
             Cell("seats", 2, "1", "none", ("g", "g"), "cards")]
    recs = [records(games(600, 0.5)), records(games(300, 0.8)), records(games(300, 0.2)),
            records(games(300, 0.7), holders=np.tile([-1, -1, 1], (300, 1))), records(games(600, 0.65))]
    ds = Dataset(cells=cells, records=recs, meta={"plan": {"agents": ["g"], "skill": ["g", "r"]}})
    sk = A.skill_section(ds)["pairs"][0]
    # g wins ~80% in both seat orders.
    assert sk["n"] == 600 and 0.75 < sk["a_win"]["value"] < 0.85 and sk["significant"]
    assert (sk["a"], sk["b"]) == ("g", "r")
    # The main agent's own 2-player cell is its self-play profile: fair seats (p = 0.5 drawn).
    prof = A.skill_section(ds)["self_play"]
    assert [(p["agent"], p["n"]) for p in prof] == [("g", 600)]
    assert 0.43 < prof[0]["seat1_win"]["value"] < 0.57 and prof[0]["seats_equal_p"] > 0.001
    opt = A.options_section(ds)["per_players"][0]
    frog = next(r for r in opt["rows"] if r["options"] == "frog")
    assert frog["vs_none"]["seat1_win"]["significant"]
    assert frog["trophies"]["frog"]["holder_win"]["n"] == 300
    w = A.whatif_section(ds, ["cards"], A.card_table(DATA))["variants"][0]["cells"][0]
    assert w["seats"][0]["diff"]["value"] > 0.05 and w["seats"][0]["diff"]["significant"]


def test_rotations_and_plan():
    assert rotations(("a", "b", "c")) == [("a", "b", "c"), ("c", "a", "b"), ("b", "c", "a")]
    plan = BalancePlan(players=(2, 4), maps=("1", "2"), agents=("greedy",), games=100, skill=("greedy", "random"))
    cells = plan.cells()
    assert sum(1 for c, _, _ in cells if c.kind == "seats" and c.lineup[0] == "greedy") == 4
    assert sum(1 for c, _, _ in cells if c.kind == "options") == 2 * 3 * 2
    skill = [(c, g) for c, g, _ in cells if c.kind == "skill"]
    assert len(skill) == 4 and all(g == 25 for _, g in skill)


def test_report_from_synthetic(tmp_path):
    s = np.array([[2, 1]] * 30 + [[1, 2]] * 30)
    ds = Dataset(cells=[Cell("seats", 2, "1", "none", ("x", "x"))], records=[records(s)],
                 meta={"plan": {"agents": ["x"]}, "seconds_total": 1.0, "batch": 8, "seed": 0})
    fig = A.analyse(ds, DATA)
    page = write(fig, tmp_path)
    assert page.exists() and (tmp_path / "seats_win.png").exists()
    back = json.loads((tmp_path / "figures.json").read_text())
    assert back["seats"]["pooled"][0]["n"] == 60
    assert any("not significant" in x for x in findings(fig))
    assert tables(fig)
    assert clean({"a": float("nan"), "b": np.int64(3), "c": (np.float32(1.5),)}) == {"a": None, "b": 3, "c": [1.5]}


def test_dataset_save_load(tmp_path):
    s = np.array([[2, 1]] * 5 + [[1, 2]] * 5)
    ds = Dataset(cells=[Cell("seats", 2, "3", "frog", ("x", "x"), "cards")], records=[records(s)], meta={"k": 1})
    ds.save(tmp_path / "g.npz")
    back = Dataset.load(tmp_path / "g.npz")
    assert back.cells == ds.cells and back.meta["k"] == 1
    assert np.array_equal(back.records[0].scores, s)


def test_arena_database(tmp_path):
    from monkey_env.apps.arena.results import Results
    from monkey_env.monkey_palace.apps.balance.arena_db import dataset_from_db

    res = Results(tmp_path / "r.sqlite")
    t = res.tournament("k", {"x": 1})
    base = dict(deal=0, config_hash="h", map="2", players=2, engine="jax", versions=["v", "v"], ranks=[1, 2],
                rounds=10, end_trigger="bricks", decisions=90, duration=0.1)
    games = []
    for i in range(40):
        seats = ["greedy", "greedy"] if i < 20 else (["greedy", "random"] if i % 2 else ["random", "greedy"])
        games.append(dict(base, game_index=i, seed=i, options={"butterfly": False, "frog": False}, seats=seats,
                          scores=[5, 3] if i % 4 else [3, 5]))
    res.add_games(t.id, games)
    res.close()
    ds = dataset_from_db(tmp_path / "r.sqlite")
    kinds = sorted((c.kind, c.lineup) for c in ds.cells)
    assert kinds == [("seats", ("greedy", "greedy")), ("skill", ("greedy", "random")), ("skill", ("random", "greedy"))]
    fig = A.analyse(ds, DATA)
    assert fig["seats"]["pooled"][0]["n"] == 20
    assert fig["cards"]["per_players"] == []     # the database has no card records
    assert fig["maps"]["cells"][0]["end"]["bricks"]["value"] == 1.0


def test_an_arena_database_is_read_one_build_action_at_a_time(tmp_path):
    """The catalogue and the complete build action are different games: a database holding both
    is refused without a choice, and a choice reads its games only (the report names it)."""
    from monkey_env.apps.arena.results import Results
    from monkey_env.monkey_palace.apps.balance.arena_db import dataset_from_db

    res = Results(tmp_path / "r.sqlite")
    base = dict(deal=0, config_hash="h", map="1", players=2, engine="jax", versions=["v", "v"], ranks=[1, 2],
                rounds=10, end_trigger="bricks", decisions=90, duration=0.1, seats=["greedy", "greedy"])
    for key, options, n, score in (("a", {}, 6, [5, 3]), ("b", {"build_action": "complete"}, 10, [9, 7])):
        t = res.tournament(key, {"x": key})
        res.add_games(t.id, [dict(base, game_index=i, seed=i, options=options, scores=score) for i in range(n)])
    res.close()
    with pytest.raises(ValueError, match="6 games of the catalogue build action, 10 games of the complete"):
        dataset_from_db(tmp_path / "r.sqlite")
    for action, n, mean in (("catalogue", 6, 4.0), ("complete", 10, 8.0)):
        ds = dataset_from_db(tmp_path / "r.sqlite", action)
        assert ds.meta["plan"]["build_action"] == action and ds.meta["other_build_action_games"] == 16 - n
        assert [c.variant for c in ds.cells] == ["default"] and ds.records[0].n == n
        assert ds.records[0].scores.mean() == mean


def test_balance_db_names_its_build_action_or_refuses_a_mixed_database(tmp_path, capsys):
    from monkey_env.apps.arena.results import Results
    from monkey_env.apps.cli import main

    res = Results(tmp_path / "r.sqlite")
    base = dict(deal=0, config_hash="h", map="1", players=2, engine="jax", versions=["v", "v"], ranks=[1, 2],
                rounds=10, end_trigger="bricks", decisions=90, duration=0.1, seats=["greedy", "greedy"])
    t = res.tournament("b", {"x": 1})
    res.add_games(t.id, [dict(base, game_index=i, seed=i, options={"build_action": "complete"},
                              scores=[5, 3] if i % 2 else [3, 5]) for i in range(8)])
    res.close()
    assert main(["balance", "--db", str(tmp_path / "r.sqlite"), "--out", str(tmp_path / "report")]) == 0
    assert "build action: complete;" in (tmp_path / "report" / "report.md").read_text()
    res = Results(tmp_path / "r.sqlite")
    t = res.tournament("a", {"x": 2})
    res.add_games(t.id, [dict(base, game_index=i, seed=i, options={}, scores=[5, 3]) for i in range(4)])
    res.close()
    capsys.readouterr()
    assert main(["balance", "--db", str(tmp_path / "r.sqlite"), "--out", str(tmp_path / "mixed")]) == 2
    assert "--db" in capsys.readouterr().err
    assert main(["balance", "--db", str(tmp_path / "r.sqlite"), "--build-action", "catalogue",
                 "--out", str(tmp_path / "catalogue")]) == 0
    assert "build action: catalogue;" in (tmp_path / "catalogue" / "report.md").read_text()
