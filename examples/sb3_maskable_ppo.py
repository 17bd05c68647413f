"""Stable-Baselines3: sb3-contrib's MaskablePPO on the batched JAX VecEnv.

Shows the fast training path: ``MonkeyPalaceVecEnv`` plays ``--envs`` games at once on the JAX engine
(one learning seat per game, the other seats played by ``opponents``) and is a plain SB3
``VecEnv`` with ``action_masks()``, which MaskablePPO reads at every step. It prints the
last losses and the mean return of the games finished during training.

    python examples/sb3_maskable_ppo.py --iterations 2 --envs 16 --steps 32
"""

from __future__ import annotations

import argparse

import numpy as np
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback

from monkey_env.monkey_palace.envs.vec_env import MonkeyPalaceVecEnv


class EpisodeReturns(BaseCallback):
    """Collects ``infos[i]["episode"]`` (return ``r``, length ``l``, final ``score``) of finished games."""

    def __init__(self):
        super().__init__()
        self.episodes: list[dict] = []

    def _on_step(self) -> bool:
        self.episodes += [info["episode"] for info in self.locals["infos"] if "episode" in info]
        return True


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=2, help="PPO updates (rollouts of envs x steps)")
    parser.add_argument("--envs", type=int, default=16, help="games played at once")
    parser.add_argument("--steps", type=int, default=64, help="n_steps: learner decisions per game per rollout")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    venv = MonkeyPalaceVecEnv(args.envs, players=2, map=1, opponents="random", seed=args.seed)
    # Keep n_steps small: the rollout buffer holds n_steps x num_envs observations of
    # (20, 32, 32) float32 planes (80 KiB each). SB3's default n_steps=2048 with 256 games
    # asks for about 40 GiB and runs out of memory; 64 x 16 games is about 80 MiB.
    model = MaskablePPO("MultiInputPolicy", venv, n_steps=args.steps, batch_size=min(256, args.envs * args.steps),
                        n_epochs=2, learning_rate=3e-4, seed=args.seed, verbose=0, device="cpu")
    returns = EpisodeReturns()
    model.learn(total_timesteps=args.iterations * args.envs * args.steps, callback=returns)

    logs = model.logger.name_to_value
    print(f"trained {model.num_timesteps} learner decisions in {args.iterations} updates; "
          f"last loss {logs.get('train/loss', float('nan')):.4f}, "
          f"entropy loss {logs.get('train/entropy_loss', float('nan')):.4f}")
    if returns.episodes:
        r = np.mean([e["r"] for e in returns.episodes])
        score = np.mean([e["score"] for e in returns.episodes])
        print(f"{len(returns.episodes)} games finished: mean episode reward {r:.2f}, mean final score {score:.2f}")
    else:
        print("0 games finished (raise --steps to see whole games): mean episode reward nan")
    venv.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
