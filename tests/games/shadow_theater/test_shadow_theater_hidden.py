"""The Shadow Theater keeps the hands hidden until the round's end ("révélez toutes les cartes …
en main"): a planted difference in the opponent's hand, the greedy agent on both engines, the
terminal text and the browser's data, and the Gymnasium view's seeded resets."""

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from monkey_env.shadow_theater.actions import TURN
from monkey_env.shadow_theater.agents.greedy import action_values, reference_values
from monkey_env.shadow_theater.apps import web
from monkey_env.shadow_theater.engine import Game
from monkey_env.shadow_theater.envs.gym_env import ShadowTheaterGymEnv
from monkey_env.shadow_theater.jaxgame.engine import jax_engine_for
from monkey_env.shadow_theater.options import ShadowTheaterOptions
from monkey_env.shadow_theater.text_view import game_text


@pytest.fixture(scope="module")
def engine():
    return jax_engine_for()


def jax_state(engine, game: Game):
    from monkey_env.agents.ppo_games import policy_game
    return policy_game("shadow_theater", engine).state_of(game)


def card_named(game: Game, name: str) -> int:
    return next(i for i, c in enumerate(game.data.cards) if c.name == name)


def planted_pair():
    """Two games alike but for one card of seat 2's hand: a Jade Spear (1 point) in one, a Pearl of
    the Dragon (3 points) in the other; seat 1 to play. Found by random play, then the two cards
    swapped in the deal (the Pearl comes from the cards never drawn this round)."""
    for seed in range(200):
        rng = np.random.default_rng(seed)
        game = Game.from_options(ShadowTheaterOptions(seed=seed))
        while not game.game_over and len(game.history) < 60:
            game.apply(int(rng.choice(np.flatnonzero(game.legal_mask()))))
            spear, pearl = card_named(game, "Jade Spear"), card_named(game, "Pearl of the Dragon")
            cards = game.deal["cards"][game.round - 1]
            drawn = game.data.game.weapon_cards_per_round - len(game.deck)
            if (game.current == 0 and game.phase == TURN and spear in game.hands[1]
                    and pearl in cards[drawn:] and pearl + 1 not in game.hands[0] + game.hands[1] + game.discard):
                deal = {k: [list(r) if isinstance(r, list) else r for r in v] for k, v in game.deal.items()}
                row = deal["cards"][game.round - 1]
                i, j = row.index(spear), row.index(pearl)
                row[i], row[j] = pearl, spear
                other = Game.replay({"options": game.options.model_dump(), "deal": deal, "actions": game.history})
                assert other.hands[0] == game.hands[0] and sorted(other.hands[1]) != sorted(game.hands[1])
                return game, other
    raise AssertionError("no position with a Jade Spear in seat 2's hand and a Pearl undrawn")


def test_a_planted_hand_difference_changes_what_the_old_observation_showed_and_not_the_new(engine):
    spear_game, pearl_game = planted_pair()
    a, b = jax_state(engine, spear_game), jax_state(engine, pearl_game)
    # The old observation's last entries were both seats' true round points: they told the cards apart.
    old = [np.asarray(engine.points(s))[[0, 1]] / 20.0 for s in (a, b)]
    assert not np.array_equal(old[0], old[1])
    new = [engine.observe(s, 0) for s in (a, b)]
    for key in new[0]:
        assert np.array_equal(np.asarray(new[0][key]), np.asarray(new[1][key])), key
    # The opponent's points as seat 1 knows them: without the cards, plus each card at the mean
    # value of the cards it has not seen.
    pub = np.asarray(engine.public_points(a, 0))
    assert pub[0] == spear_game.round_points(0)["total"]
    parts = spear_game.round_points(1)
    assert pub[1] == pytest.approx(parts["total"] - parts["cards"]
                                   + len(spear_game.hands[1]) * spear_game.unseen_card_value(0), abs=1e-5)


def test_greedy_text_and_page_are_the_same_for_both_hands():
    spear_game, pearl_game = planted_pair()
    from monkey_env.agents.registry import make_agent
    for seed in range(3):
        choices = [make_agent("greedy", seed, game="shadow_theater").act(g, g.legal_mask()) for g in (spear_game, pearl_game)]
        assert choices[0] == choices[1]
    assert game_text(spear_game, 0) == game_text(pearl_game, 0)
    def seat_2(text):
        return next(line for line in text.splitlines() if line.strip().startswith("seat 2"))

    assert "Jade Spear" not in seat_2(game_text(spear_game, 0)) and "hidden card" in seat_2(game_text(spear_game, 0))
    assert "Jade Spear" in seat_2(game_text(spear_game))          # show and replays: everything
    pages = [web.state(g, viewer=0) for g in (spear_game, pearl_game)]
    assert pages[0] == pages[1]
    hidden = pages[0]["players"][1]
    assert all(c == {"id": None, "hidden": True} for c in hidden["hand"]) and hidden["points"]["total"] is None
    assert "decision" in pages[0] and "decision" not in web.state(spear_game, viewer=1)


def test_the_greedy_values_agree_on_both_engines(engine):
    import jax
    values, step = jax.jit(action_values(engine)), jax.jit(engine.step)
    compared = 0
    for seed in range(4):
        rng = np.random.default_rng(seed)
        game = Game.from_options(ShadowTheaterOptions(seed=seed))
        state = jax_state(engine, game)
        while not game.game_over:
            legal = np.flatnonzero(game.legal_mask())
            if len(game.history) % 3 == 0:
                ref = reference_values(game, legal)
                jx = np.asarray(values(state))[legal]
                np.testing.assert_allclose(jx, ref, atol=1e-4, err_msg=f"seed {seed}, decision {len(game.history)}")
                compared += len(legal)
            action = int(rng.choice(legal))
            game.apply(action)
            state = step(state, action)
    assert compared > 100


def test_a_look_ahead_does_not_score_the_round():
    rng = np.random.default_rng(0)
    game = Game.from_options(ShadowTheaterOptions(seed=0))
    while True:
        legal = np.flatnonzero(game.legal_mask())
        for a in legal:
            after = game.lookahead()
            after.apply(int(a))
            if after.round_end_held:
                assert after.round == game.round and after.lanterns == game.lanterns and not after.round_log[len(game.round_log):]
                scored = game.clone()
                scored.apply(int(a))
                assert len(scored.round_log) == len(game.round_log) + 1
                return
        game.apply(int(rng.choice(legal)))


def test_the_gymnasium_view_passes_check_env_and_repeats_a_seeded_reset():
    check_env(ShadowTheaterGymEnv(opponents="greedy", learner_seat=None), skip_render_check=True)
    env = gymnasium.make("ShadowTheater-v0", opponents="random", learner_seat=None).unwrapped
    first = [env.reset(seed=5)[0]["vector"], env.reset()[0]["vector"]]
    again = [env.reset(seed=5)[0]["vector"], env.reset()[0]["vector"]]
    assert all(np.array_equal(x, y) for x, y in zip(first, again))


def test_an_empty_or_missing_data_folder_is_refused_on_the_api_too(tmp_path):
    """The shared data-folder check (core.data_folder) in the game's own loader, not only the CLI's."""
    from monkey_env.shadow_theater.game_data import ConfigError, default_dir, load_game_data
    for folder in (tmp_path / "missing", tmp_path):
        with pytest.raises(ConfigError, match="config_dir"):
            load_game_data(str(folder))
    (tmp_path / "shadow_theater").mkdir()
    with pytest.raises(ConfigError, match="none of the game data files"):
        load_game_data(str(tmp_path))
    (tmp_path / "shadow_theater" / "game.yaml").write_text((default_dir() / "game.yaml").read_text())
    assert load_game_data(str(tmp_path)).game.spaces_per_location == 3      # one edited file: the rest shipped
