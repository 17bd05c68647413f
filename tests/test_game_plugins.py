"""Games of other installed packages register through the ``monkey_env.games`` entry-point group."""

from dataclasses import replace

import pytest

from monkey_env import games
from monkey_env.games import GameSpec, load_plugins


class FakeEntryPoint:
    """What importlib.metadata gives for one declared entry point."""

    def __init__(self, name, target):
        self.name, self.value, self._target = name, f"tests.fake:{name}", target

    def load(self):
        if isinstance(self._target, Exception):
            raise self._target
        return self._target


@pytest.fixture
def registry(monkeypatch):
    monkeypatch.setattr(games, "GAMES", dict(games.GAMES))
    return games.GAMES


def copy_of_shadow_theater(name="shadow_copy") -> GameSpec:
    return replace(games.game_spec("shadow_theater"), name=name, env_id=f"{name}_v0", gym_id=None)


def test_a_plugin_game_is_registered_and_plays(registry):
    assert load_plugins([FakeEntryPoint("shadow_copy", copy_of_shadow_theater)]) == ["shadow_copy"]
    spec = games.game_spec("shadow_copy")
    game = spec.load("reference").from_options(spec.load("options")(seed=1))
    game.apply(int(game.legal_actions()[0]))
    assert "shadow_copy" in games.game_names() and games.spec_for_env_id("shadow_copy_v0") is spec


def test_a_broken_or_clashing_plugin_is_skipped_with_a_warning_naming_it(registry):
    bad = [FakeEntryPoint("broken", ImportError("no module named nowhere")),
           FakeEntryPoint("not_a_spec", {"name": "x"}),
           FakeEntryPoint("clash", copy_of_shadow_theater("monkey_palace")),
           FakeEntryPoint("partial", replace(copy_of_shadow_theater("partial"), parts={"options": "x:y"}))]
    before = set(registry)
    with pytest.warns(UserWarning) as caught:
        assert load_plugins(bad) == []
    said = " ".join(str(w.message) for w in caught)
    for what in ("'broken'", "no module named nowhere", "'not_a_spec'", "not a monkey_env.games.GameSpec",
                 "'clash'", "already registered", "'partial'", "required parts ['reference']"):
        assert what in said
    assert set(registry) == before
