"""The games of the product, by name: each one's parts as import paths, loaded when asked.

    spec = game_spec("monkey_palace")
    Options = spec.load("options")          # the options model
    env = monkey_env.make("monkey_palace_v0", players=3)

Only names and import paths live here (the shared layer), so that choosing a game imports
nothing heavy and no layer imports upward; ``spec.load(part)`` imports the part on demand.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class GameSpec:
    name: str                   # the --game name
    title: str
    env_id: str                 # the PettingZoo AEC environment's versioned id
    gym_id: str | None          # the registered Gymnasium id of the single-agent view
    parts: dict                 # part name -> "module:attribute" (see monkey_env.core.protocol and PARTS)
    # Option settings that together cover the game's option space: the shared test suite
    # (tests/test_games_shared.py) runs PettingZoo's tests and the save/replay checks on each.
    test_settings: tuple = ()
    seed_test_settings: tuple = ()
    # Where the game's data live in a config folder (configs/ or --config-dir) and the files there.
    data_folder: str = ""
    data_files: tuple = ()
    score_name: str = "points"  # what scores() counts, in the applications' reports
    win_rule: str = "the winner has the most points"  # who wins, in the applications' reports
    # False for a game of perfect information: its redraw_hidden returns the same game, which
    # tests/test_information_sets.py then checks instead of requiring the redraws to change it.
    hidden_information: bool = True
    # True for the first game only: its tournaments' identities in the arena's databases were fixed
    # before there were other games and carry no "game" key (so its existing tournaments continue).
    identity_without_game: bool = False

    def load(self, part: str):
        """Import one part (PARTS says what each is): "module:attribute", or a whole module."""
        if part not in self.parts:
            raise KeyError(f"game {self.name!r} has no {part!r}; it has {', '.join(sorted(self.parts))}")
        module, _, attribute = self.parts[part].partition(":")
        loaded = importlib.import_module(module)
        return getattr(loaded, attribute) if attribute else loaded

    def has(self, part: str) -> bool:
        return part in self.parts


# What a game may provide, by part name (docs/ARCHITECTURE.md, "Adding a game"). The first two
# are required; the applications use the others where they exist.
PARTS = {
    "options": "the pydantic options model (every choice made when a game is created; CLI flags and saves)",
    "reference": "the reference engine class (monkey_env.core.protocol.ReferenceGame)",
    "jax_engine": "a function options=None -> the JAX engine (monkey_env.core.protocol.JaxEngine)",
    "aec_env": "the PettingZoo AEC env factory, with its wrappers (monkey_env.make)",
    "raw_env": "the PettingZoo AEC env class, unwrapped",
    "gym_env": "the Gymnasium single-agent view (registered as gym_id)",
    "vec_env": "the batched VecEnv",
    "text": "a function (game, viewer=None) -> str, the position in words as seat ``viewer`` sees it "
            "(everything when None: show, replays; play passes the person's seat)",
    "legend": "a text saying what the letters and signs of the ``text`` mean (play shows it with the "
              "first position and in help)",
    "group_choices": "a function (game, legal actions) -> [(action, words)]: play's numbered choices, "
                     "actions that lead to the same position given once as the lowest of them (without "
                     "it: every legal action in its action_name)",
    "parse_answer": "a function (game, answer, actions) -> the action of ``actions`` that an answer in the "
                    "game's own words names (e.g. coordinates), or None when the answer is not of that "
                    "form; raises ValueError saying why when it is but names none (play)",
    "answer_hint": "a short text saying what parse_answer reads, added to play's question",
    "picture": "a function game -> (H, W, 3) uint8 image (show --png, render_mode rgb_array)",
    "play": "a function (args, resumed) -> exit status: the game's own terminal session for ``monkey-palace play`` "
            "(resumed: (spec, game, human seat, opponents) of a save, else None; without it: apps.play's numbered "
            "legal actions with the prompts' parts above)",
    "differential": "a function (jax_engine, first, batch, seed) -> {'decisions': n}: random games on both "
                    "engines compared decision by decision (raises AssertionError at the first difference)",
    "agents": "a dict agent name -> factory(seed) of the game's own agents (random, ppo, ppo-sample and mcts "
              "come from the other parts: agents/registry.py)",
    "checkpoint_agent": "a function (path, seed) -> the agent of ``ppo:PATH`` for a checkpoint of a format of the "
                        "game's own (Monkey Palace's SB3 .zip), None for another file (the JAX PPO reads it)",
    "balance": "a function (GameResults) -> list of report sections: the game's own balance figures",
    "balance_lab": "the game's own balance report in place of the generic one (a whole module): add_flags(parser), "
                   "its flags beside every game's, run(args) -> exit status, and DESCRIPTION, the command's help",
    "bench": "the game's own bench in place of the generic one (a whole module): add_flags(parser), its flags "
             "beside every game's (--games, --batches, --max-seconds, --reference-only, --seed, --json), "
             "run_command(args) -> exit status",
    "checked_save": "a function (save dict) -> the save as the game's own format reads it, checked before "
                    "its decisions are replayed (show, play --resume, the browser's upload: a malformed save "
                    "says so before the replay compares it)",
    "tune": "the balance tune's view of the game (monkey_env/apps/tune): its space of numbers (Space.load, "
            "values traced into the JAX engine's params, write_configs), load_space, jax_game, max_players, "
            "data_changes, check_folder",
    "web": "the game's web module (a whole module, no attribute): options_schema, new_game, state, replay "
           "frames... as monkey_env.apps.web.generic_web gives them from the parts, and STATIC_DIR with VIEW, "
           "its browser scripts (without it: the generic view of its text and legal actions)",
    "play_games": "a function (engine, agents, options, seeds, *, names, batch, pad, agent_key, share_agents, "
                  "max_decisions, jax_game, data, on_game, progress) -> monkey_env.apps.results_table.GameResults: "
                  "the game's own pipeline for many games, with details of its own beside the table "
                  "(without it: apps.results_table's own, from the engines' protocol)",
    "policy": "the game's JAX PPO parts (a subclass of agents/ppo_games.py's PolicyGame: network, inputs, batched "
              "greedy, score change, places, settings): a game with it has the ppo agents and the JAX trainer",
    "sb3": "the game's Stable-Baselines3 parts (a whole module): policy_kwargs(...) -> MaskablePPO's policy_kwargs "
           "with the game's feature extractor, and PPOAgent(model=, seed=, deterministic=) playing a model "
           "(the SB3 trainer, `train` with trainer: sb3, trains the default game with them)",
    "network": "the pydantic model of the game's network sizes in the JAX trainer's config (network:)",
    "search": "a monkey_env.core.search_hooks.SearchHooks: what the search agent (mcts) needs of the game beyond "
              "its jax_engine and PPO: the JAX redraw of what a seat cannot see, a greedy prior if any",
}

_MP = "monkey_env.monkey_palace"
_ST = "monkey_env.shadow_theater"
GAMES: dict[str, GameSpec] = {
    "monkey_palace": GameSpec(
        name="monkey_palace", title="Monkey Palace", env_id="monkey_palace_v0", gym_id="MonkeyPalace-v0",
        parts={
            "options": f"{_MP}.options:GameOptions",
            "reference": f"{_MP}.engine:Game",
            "jax_engine": f"{_MP}.jaxgame.env:jax_game_for",
            "aec_env": f"{_MP}.envs.pettingzoo_env:env",
            "raw_env": f"{_MP}.envs.pettingzoo_env:raw_env",
            "gym_env": f"{_MP}.envs.gym_env:MonkeyPalaceGymEnv",
            "vec_env": f"{_MP}.envs.vec_env:MonkeyPalaceVecEnv",
            "text": f"{_MP}.text_view:game_text",
            "legend": f"{_MP}.text_view:LEGEND",
            "tune": f"{_MP}.apps.tune:TUNE",
            "picture": f"{_MP}.render:game_picture",
            # differential(jax_engine, first, batch, seed): random games on both engines, compared
            # decision by decision (raises AssertionError at the first difference)
            "differential": f"{_MP}.jaxgame.parity:differential_batch",
            "web": f"{_MP}.apps.web",
            "search": f"{_MP}.apps.search:SEARCH",
            "play_games": f"{_MP}.apps.play_games:play_games",
            "balance_lab": f"{_MP}.apps.balance.lab",
            "bench": f"{_MP}.apps.bench",
            "checked_save": f"{_MP}.apps.saves:checked_save",
            "play": f"{_MP}.apps.play:play",
            "network": f"{_MP}.apps.network:NetworkConfig",
            "policy": f"{_MP}.agents.policy:MonkeyPalacePolicy",
            "agents": f"{_MP}.agents:AGENTS",
            "checkpoint_agent": f"{_MP}.agents:checkpoint_agent",
            "sb3": f"{_MP}.agents.sb3",
        },
        test_settings=tuple(dict(players=p, map=m) for p in (2, 3, 4) for m in (1, 2, 3, 4)),
        seed_test_settings=(dict(players=2, map=1, butterfly=True, frog=True),
                            dict(players=3, map=2, butterfly=True, frog=True, monkey_move="mandatory"),
                            dict(players=4, map=3, butterfly=True, frog=True, end_trigger="last_taken"),
                            dict(players=2, map=4, butterfly=True, frog=True, butterfly_rule="highest_of_colour")),
        data_files=("tray.yaml", "cards.yaml", "boards.yaml", "catalogue.yaml"),
        score_name="Banana Points",
        win_rule="the winner has the most Banana Points, a tie going to the Monkey trophy's holder",
        identity_without_game=True,
    ),
    "shadow_theater": GameSpec(
        name="shadow_theater", title="The Shadow Theater", env_id="shadow_theater_v0", gym_id="ShadowTheater-v0",
        parts={
            "options": f"{_ST}.options:ShadowTheaterOptions",
            "reference": f"{_ST}.engine:Game",
            "jax_engine": f"{_ST}.jaxgame.engine:jax_engine_for",
            "aec_env": f"{_ST}.envs.pettingzoo_env:env",
            "raw_env": f"{_ST}.envs.pettingzoo_env:raw_env",
            "gym_env": f"{_ST}.envs.gym_env:ShadowTheaterGymEnv",
            "vec_env": f"{_ST}.envs.vec_env:ShadowTheaterVecEnv",
            "text": f"{_ST}.text_view:game_text",
            "legend": f"{_ST}.text_view:LEGEND",
            "picture": f"{_ST}.render:game_picture",
            "differential": f"{_ST}.jaxgame.parity:differential_batch",
            "agents": f"{_ST}.agents:AGENTS",
            "balance": f"{_ST}.apps.balance:sections",
            "tune": f"{_ST}.apps.tune:TUNE",
            "web": f"{_ST}.apps.web",
            "search": f"{_ST}.search:SEARCH",
            "network": f"{_ST}.apps.network:FlatNetworkConfig",
            "policy": f"{_ST}.agents.policy:ShadowTheaterPolicy",
        },
        # One option space (the game data are the only choice): the reward modes cover the envs.
        test_settings=(dict(reward_mode="lanterns"), dict(reward_mode="round_points")),
        seed_test_settings=(dict(reward_mode="terminal"),),
        data_folder="shadow_theater", data_files=("game.yaml", "weapons.yaml", "scrolls.yaml"),  # its game_data.DATA_FILES
        score_name="Lanterns",
        win_rule="the winner is the first to take 2 Lanterns (a game stopped after 12 rounds: the most Lanterns)",
    ),
}

_FC = "monkey_env.forbidden_city"
GAMES["forbidden_city"] = GameSpec(
    name="forbidden_city", title="Forbidden City", env_id="forbidden_city_v0", gym_id="ForbiddenCity-v0",
    parts={
        "options": f"{_FC}.options:ForbiddenCityOptions",
        "reference": f"{_FC}.engine:Game",
        "jax_engine": f"{_FC}.jaxgame.env:jax_game_for",
        "aec_env": f"{_FC}.envs.pettingzoo_env:env",
        "raw_env": f"{_FC}.envs.pettingzoo_env:raw_env",
        "gym_env": f"{_FC}.envs.gym_env:ForbiddenCityGymEnv",
        "vec_env": f"{_FC}.envs.vec_env:ForbiddenCityVecEnv",
        "text": f"{_FC}.text_view:game_text",
        "legend": f"{_FC}.text_view:LEGEND",
        "group_choices": f"{_FC}.text_view:group_choices",
        "parse_answer": f"{_FC}.text_view:parse_answer",
        "answer_hint": f"{_FC}.text_view:ANSWER_HINT",
        "picture": f"{_FC}.render:game_picture",
        "differential": f"{_FC}.jaxgame.parity:differential_batch",
        "agents": f"{_FC}.agents:AGENTS",
        "balance": f"{_FC}.apps.balance:sections",
        "tune": f"{_FC}.apps.tune:TUNE",
        "web": f"{_FC}.apps.web",
        "search": f"{_FC}.search:SEARCH",
        "network": f"{_FC}.apps.network:CityNetworkConfig",
        "policy": f"{_FC}.agents.policy:ForbiddenCityPolicy",
    },
    data_folder="forbidden_city", data_files=("tiles.yaml", "start_tile.yaml", "table.yaml"),
    score_name="coins",
    win_rule="the winner has the most coins",
    test_settings=tuple(dict(players=p, start_side=s) for p in (2, 3, 4) for s in ("beginner", "advanced")),
    seed_test_settings=(dict(players=2), dict(players=3, start_side="advanced"),
                        dict(players=4, ending="all_placed"), dict(players=2, start_side="advanced", ending="all_placed")),
)
DEFAULT_GAME = "monkey_palace"

# Games of other installed packages register through this entry-point group (as Gymnasium and
# pytest find plugins): in the package's pyproject.toml,
#     [project.entry-points."monkey_env.games"]
#     my_game = "my_package.game:SPEC"          # a GameSpec, or a function returning one
PLUGIN_GROUP = "monkey_env.games"


def load_plugins(entry_points=None) -> list[str]:
    """Register the games that installed packages declare in PLUGIN_GROUP; returns their names.
    A plugin that fails to load, is not a GameSpec or takes a name already registered is
    skipped with a warning naming it (a broken plugin must not break the product)."""
    import warnings

    if entry_points is None:
        from importlib.metadata import entry_points as installed
        entry_points = installed(group=PLUGIN_GROUP)
    added = []
    for ep in entry_points:
        try:
            spec = ep.load()
            if callable(spec) and not isinstance(spec, GameSpec):
                spec = spec()
            if not isinstance(spec, GameSpec):
                raise TypeError(f"it gives a {type(spec).__name__}, not a monkey_env.games.GameSpec")
            missing = [p for p in ("options", "reference") if p not in spec.parts]
            if missing:
                raise ValueError(f"its GameSpec lacks the required parts {missing}")
            if spec.name in GAMES:
                raise ValueError(f"the game {spec.name!r} is already registered")
        except Exception as e:      # any error of a third party's code is reported, not raised
            warnings.warn(f"the game plugin {ep.name!r} ({ep.value}) is skipped: {e}", stacklevel=2)
            continue
        GAMES[spec.name] = spec
        added.append(spec.name)
    return added


def game_names() -> list[str]:
    return list(GAMES)


def game_spec(name: str) -> GameSpec:
    """The game called ``name``; an unknown name raises a ValueError listing the known ones."""
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(GAMES)}")
    return GAMES[name]


def spec_for_options(options) -> GameSpec:
    """The game whose options model ``options`` is an instance of (no import needed)."""
    path = f"{type(options).__module__}:{type(options).__name__}"
    for spec in GAMES.values():
        if spec.parts.get("options") == path:
            return spec
    raise ValueError(f"{type(options).__name__} is the options model of no registered game")


def spec_for_env_id(env_id: str) -> GameSpec:
    for spec in GAMES.values():
        if env_id in (spec.env_id, spec.name):
            return spec
    raise ValueError(f"unknown environment {env_id!r}; known: {', '.join(s.env_id for s in GAMES.values())}")


def make(env_id: str = "monkey_palace_v0", **kwargs):
    """The PettingZoo AEC environment of a game, with its standard wrappers: ``make("monkey_palace_v0",
    players=3, config_dir="my_configs")``; keywords are the game's options and the env's own."""
    return spec_for_env_id(env_id).load("aec_env")(**kwargs)


load_plugins()
