"""The package works installed from a wheel, with its configs shipped inside it."""

import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_wheel_ships_the_configs_and_plays_a_game(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path / "dist"), str(REPO)], check=True, cwd=tmp_path)
    wheel = next((tmp_path / "dist").glob("monkey_palace-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    for required in ("monkey_env/configs/cards.yaml", "monkey_env/configs/tray.yaml",
                     "monkey_env/configs/boards.yaml", "monkey_env/configs/catalogue.yaml",
                     "monkey_env/configs/maps/map4.yaml", "monkey_env/agents/random_agent.py",
                     "monkey_env/agents/checkpoints/ppo_2p_map1.zip", "monkey_env/agents/checkpoints/ppo_jax.msgpack",
                     "monkey_env/agents/checkpoints/ppo_jax_complete.msgpack",
                     "monkey_env/agents/checkpoints/ppo_jax_complete.calibration.json",
                     # the browser app's pages and its vendored three.js, with the licence
                     "monkey_env/apps/web/static/play.html", "monkey_env/monkey_palace/apps/web_static/monkey_palace_3d.js",
                     "monkey_env/apps/web/static/vendor/three/three.module.js",
                     "monkey_env/apps/web/static/vendor/three/LICENSE"):
        assert required in names, f"{required} missing from the wheel"
    # every package of the source tree (pyproject.toml lists them by hand)
    missing = [str(p.relative_to(REPO)) for p in sorted(REPO.glob("monkey_env/**/__init__.py"))
               if p.relative_to(REPO).as_posix() not in names]
    assert not missing, f"packages missing from the wheel (add them to pyproject.toml's packages): {missing}"
    # Only monkey_env at the top level: no package named agents or experiments in site-packages.
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith((".dist-info", ".data"))}
    assert tops == {"monkey_env"}, tops
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    # Run from an empty folder with only the unpacked wheel first on the path, not the repository.
    code = ("import monkey_env, sys; from monkey_env.monkey_palace.apps.play_games import play_game; "
            "from monkey_env.agents.registry import make_agent; "
            "from monkey_env.monkey_palace.options import GameOptions; "
            "assert monkey_env.__file__.startswith(sys.argv[1]), monkey_env.__file__; "
            "g, r = play_game(GameOptions(players=2, map='3', seed=5), [make_agent('random', 1), make_agent('random', 2)]); "
            "print(r['rounds'], r['scores'])")
    out = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(site)!r}); "
                          f"sys.path = [p for p in sys.path if p != {str(REPO)!r}]; " + code, str(site)],
                         cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    rounds, *_ = out.stdout.split()
    assert int(rounds) >= 2
