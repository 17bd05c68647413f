"""RLlib PPO with action masking on Monkey Palace (self-play, one shared policy).

Shows how to train with RLlib's new API stack: the PettingZoo AEC env with the flat
observation option (``observation_format="flat"``: one Box, the planes then the vector),
wrapped by RLlib's own ``PettingZooEnv``, with the observation renamed to RLlib's
action-masking convention (``{"observations", "action_mask"}``) and RLlib's example
``ActionMaskingTorchRLModule`` (illegal actions get -inf logits). Every seat maps to one
policy. Local and small: no remote env runners, a tiny batch. The deals are seeded; runs
repeat exactly with a fixed PYTHONHASHSEED (RLlib orders the agents through a set).

    pip install -e '.[clients]'          # what RLlib imports beyond ray (dm-tree, lz4, pyarrow...)
    PYTHONHASHSEED=0 python examples/rllib_ppo.py --iterations 2 --steps 256
"""

from __future__ import annotations

import argparse

import numpy as np
from gymnasium import spaces
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
from ray.tune.registry import register_env

import monkey_env


class MaskedPettingZooEnv(PettingZooEnv):
    """RLlib's PettingZooEnv with observations as ``{"observations": Box, "action_mask": float32 Box}``."""

    def __init__(self, env, seed: int = 0):
        super().__init__(env)
        self._deals = np.random.default_rng(seed)   # a fresh, reproducible deal per episode
        inner = env.observation_space(env.possible_agents[0])
        space = spaces.Dict({"observations": inner["observation"],
                             "action_mask": spaces.Box(0.0, 1.0, inner["action_mask"].shape, np.float32)})
        self.observation_spaces = {a: space for a in self.observation_spaces}
        self.observation_space = spaces.Dict(self.observation_spaces)

    @staticmethod
    def _rename(obs: dict) -> dict:
        return {agent: {"observations": o["observation"], "action_mask": o["action_mask"].astype(np.float32)}
                for agent, o in obs.items()}

    def reset(self, *, seed=None, options=None):
        seed = int(self._deals.integers(2**31)) if seed is None else seed
        obs, infos = super().reset(seed=seed, options=options)
        return self._rename(obs), infos

    def step(self, action):
        obs, rewards, terminated, truncated, infos = super().step(action)
        return self._rename(obs), rewards, terminated, truncated, infos


def make_env(config: dict) -> MaskedPettingZooEnv:
    return MaskedPettingZooEnv(monkey_env.make("monkey_palace_v0", players=config.get("players", 2),
                                               map=config.get("map", 1), observation_format="flat"),
                               seed=config.get("seed", 0))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=2, help="training iterations")
    parser.add_argument("--steps", type=int, default=256, help="env steps per training batch")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    import ray
    import torch
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, configure_logging=False)
    register_env("monkey_palace", make_env)
    config = (
        PPOConfig()
        # RLlib's env checker steps an unmasked random action (an illegal move ends a game): off.
        .environment("monkey_palace", env_config={"players": args.players, "seed": args.seed},
                     disable_env_checking=True)
        .env_runners(num_env_runners=0, num_envs_per_env_runner=1, rollout_fragment_length="auto")
        .learners(num_learners=0)
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kw: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": RLModuleSpec(
            module_class=ActionMaskingTorchRLModule,
            model_config={"fcnet_hiddens": [64], "head_fcnet_hiddens": [64], "vf_share_layers": True})}))
        .training(train_batch_size_per_learner=args.steps, minibatch_size=min(64, args.steps), num_epochs=1, lr=3e-4)
        .debugging(seed=args.seed)
    )
    algo = config.build_algo()
    try:
        for it in range(1, args.iterations + 1):
            result = algo.train()
            env = result.get("env_runners", {})
            learner = result.get("learners", {}).get("shared", {})
            print(f"iteration {it}: env steps {env.get('num_env_steps_sampled_lifetime', 0)}, "
                  f"episodes {env.get('num_episodes_lifetime', 0)}, "
                  f"mean episode return (all seats) {env.get('episode_return_mean', float('nan')):.2f}, "
                  f"policy loss {float(learner.get('policy_loss', float('nan'))):.4f}", flush=True)
    finally:
        algo.stop()
        ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
