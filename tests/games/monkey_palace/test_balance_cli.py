"""`monkey-palace balance` end to end: a tiny report with random agents on the JAX engine."""

import json
import shutil
from pathlib import Path

import pytest

from monkey_env.apps.cli import main

CONFIGS = Path(__file__).resolve().parents[3] / "configs"


def test_balance_tiny_report(tmp_path):
    edited = tmp_path / "map1_edit.yaml"
    shutil.copy(CONFIGS / "maps" / "map1.yaml", edited)   # an unchanged copy: the what-if must find no difference
    out = tmp_path / "report"
    rc = main(["balance", "--players", "2", "--maps", f"1,{edited}", "--agents", "random", "--games", "8",
               "--batch", "8", "--options", "frog", "--option-games", "8", "--skill", "none", "--quiet",
               "--out", str(out)])
    assert rc == 0
    fig = json.loads((out / "figures.json").read_text())
    seats = fig["seats"]["cells"][0]
    assert seats["n"] == 8 and seats["players"] == 2
    assert sum(s["win"]["value"] for s in seats["seats"]) == pytest.approx(1.0)
    assert fig["cards"]["per_players"][0]["n"] == 8
    frog = fig["options"]["per_players"][0]["rows"][1]
    assert frog["options"] == "frog" and frog["n"] == 8
    w = fig["whatif"]["variants"][0]
    assert w["variant"] == "maps"
    # Same deals, same agent keys, same map: the what-if plays the very same games.
    assert w["cells"][0]["score_diff"]["value"] == 0
    html = (out / "report.html").read_text()
    assert "data:image/png;base64" in html and "not significant" in html
    # Where the figures come from: the command, the commit, the machine; no learned agent, no checkpoint.
    prov = fig["meta"]["provenance"]
    assert "balance" in prov["command"] and "--games 8" in prov["command"] and prov["checkpoints"] == {}
    assert prov["machine"]["cores"] >= 1 and prov["date"].startswith("20")
    assert f"at commit {prov['commit']}" in html
    for png in ("seats_win.png", "cards.png", "piles.png", "options.png", "whatif_maps.png"):
        assert (out / png).stat().st_size > 1000
    # Re-analyse the saved games without playing.
    rc = main(["balance", "--from", str(out / "games.npz"), "--quiet", "--out", str(tmp_path / "again")])
    assert rc == 0
    assert json.loads((tmp_path / "again" / "figures.json").read_text())["seats"] == fig["seats"]


def test_balance_plays_the_complete_build_action(tmp_path):
    """--build-action complete: every game builds arch by arch, greedy in every seat (its
    batched walk over every staircase), and the report says which build action it measured."""
    out = tmp_path / "complete"
    rc = main(["balance", "--players", "2", "--maps", "1", "--agents", "greedy", "--games", "4", "--batch", "4",
               "--options", "none", "--skill", "none", "--build-action", "complete", "--quiet", "--out", str(out)])
    assert rc == 0
    fig = json.loads((out / "figures.json").read_text())
    assert fig["meta"]["plan"]["build_action"] == "complete"
    assert fig["seats"]["cells"][0]["n"] == 4
    assert "build action: complete" in (out / "report.html").read_text()


@pytest.mark.parametrize("argv,msg", [
    (["--maps", "5"], "no ground map 5"),
    (["--maps", "1,edited.yaml"], "N=FILE"),
    (["--agents", "nobody"], "unknown agent"),
    (["--players", "5"], "2, 3 or 4"),
    (["--options", "toad"], "unknown 'toad'"),
])
def test_balance_bad_input(tmp_path, capsys, argv, msg):
    with pytest.raises(SystemExit) as e:
        main(["balance", "--out", str(tmp_path), "--games", "2", *argv])
    assert msg in str(e.value)


def test_the_provenance_names_the_checkpoints_of_the_skill_cells_agents():
    """ppo playing only in the skill cells still makes the figures depend on the shipped
    checkpoints (the regenerated default report listed none)."""
    from monkey_env.core.provenance import shipped_checkpoints
    from monkey_env.monkey_palace.apps.balance.report import agents_played

    plan = {"agents": ["greedy"], "skill": ["greedy", "random", "ppo"]}
    assert agents_played(plan) == ["greedy", "greedy", "random", "ppo"]
    names = [p.name for p in shipped_checkpoints(agents_played(plan))]
    assert "ppo_jax.msgpack" in names
    assert shipped_checkpoints(agents_played({"agents": ["greedy"], "skill": ["random"]})) == []
