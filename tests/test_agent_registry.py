"""The agent registry reads the registry of games (issue 27): a game's agents come from its parts
alone (no table of built-in agents for the default game), and ``ppo:PATH`` goes to the game's
``checkpoint_agent`` part before its JAX PPO."""

import pytest

from monkey_env.agents import registry
from monkey_env.games import GAMES, GameSpec, game_names, game_spec


class FileAgent:
    def __init__(self, path, seed):
        self.path, self.seed, self.name = path, seed, "file"

    def act(self, game, mask):
        return int(mask.argmax())


def read_txt(path: str, seed: int):
    """A checkpoint_agent part: reads .txt files only."""
    return FileAgent(path, seed) if path.endswith(".txt") else None


@pytest.fixture
def toy_game(monkeypatch):
    """A registered game of two parts and a checkpoint_agent part (no JAX engine, no policy)."""
    spec = GameSpec(name="toy_game", title="Toy", env_id="toy_game_v0", gym_id=None,
                    parts={"options": "pydantic:BaseModel", "reference": "builtins:object",
                           "checkpoint_agent": f"{__name__}:read_txt"})
    monkeypatch.setitem(GAMES, "toy_game", spec)
    monkeypatch.setattr(registry, "_PER_GAME", {})
    return spec


@pytest.mark.parametrize("game", game_names())
def test_each_games_agents_follow_from_its_parts(game):
    spec = game_spec(game)
    names = set(registry.known_names(game))
    assert "random" in names
    assert {"ppo", "ppo-sample"} <= names if spec.has("policy") else not names & {"ppo", "ppo-sample"}
    assert ("mcts" in names) == (spec.has("jax_engine") and spec.has("search"))
    own = set(spec.load("agents")) if spec.has("agents") else set()
    assert own <= names
    assert names == {"random"} | own | ({"ppo", "ppo-sample"} if spec.has("policy") else set()) \
        | ({"mcts"} if spec.has("jax_engine") and spec.has("search") else set())


def test_ppo_path_goes_to_the_games_own_checkpoint_format_first(toy_game):
    agent = registry.make_agent("ppo:weights.txt", seed=3, game="toy_game")
    assert isinstance(agent, FileAgent) and (agent.path, agent.seed) == ("weights.txt", 3)
    assert agent.name == "ppo:weights.txt"          # the name given, as results tables show it
    with pytest.raises(ValueError, match="toy_game has no JAX PPO"):
        registry.make_agent("ppo:weights.msgpack", game="toy_game")
    assert registry.known_names("toy_game") == ["random"]


def test_an_unknown_agent_names_the_games_agents(toy_game):
    with pytest.raises(ValueError, match=r"unknown agent 'greedy' for toy_game; known: random"):
        registry.make_agent("greedy", game="toy_game")
