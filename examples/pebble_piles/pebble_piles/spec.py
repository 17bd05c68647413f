"""Pebble Piles' entry in the registry of games: the import paths of its parts (monkey_env.games.PARTS).

pyproject.toml declares it in the entry-point group ``monkey_env.games``, so ``monkey_env.games``
registers it when this package is installed; monkey_env never imports this package itself.
"""

from monkey_env.games import GameSpec

_P = "pebble_piles"
SPEC = GameSpec(
    name="pebble_piles", title="Pebble Piles", env_id="pebble_piles_v0", gym_id=None,
    parts={
        "options": f"{_P}.options:PebblePilesOptions",
        "reference": f"{_P}.engine:Game",
        "jax_engine": f"{_P}.jax_engine:jax_engine_for",
        "aec_env": f"{_P}.envs.pettingzoo_env:env",
        "raw_env": f"{_P}.envs.pettingzoo_env:raw_env",
        "gym_env": f"{_P}.envs.pettingzoo_env:PebblePilesGymEnv",
        "vec_env": f"{_P}.envs.pettingzoo_env:PebblePilesVecEnv",
        "text": f"{_P}.text_view:game_text",
        "legend": f"{_P}.text_view:LEGEND",
        "picture": f"{_P}.text_view:game_picture",
        "differential": f"{_P}.parity:differential_batch",
        "agents": f"{_P}.agents:AGENTS",
        "search": f"{_P}.search:SEARCH",
    },
    test_settings=(dict(players=2), dict(players=3), dict(players=4, reward_mode="terminal")),
    seed_test_settings=(dict(players=2), dict(players=4, reward_mode="zero_sum")),
    score_name="points",
    win_rule="the winner has the most points, a tie going to the player who took the last pebble",
    hidden_information=False,
)
