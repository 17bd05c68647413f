"""A CleanRL-style single-file masked PPO on the Gymnasium view of Monkey Palace.

Shows the single-agent Gymnasium interface: ``gymnasium.make("MonkeyPalace-v0")`` (registered
by ``import monkey_env``), one learning seat against random opponents, observation
``Dict(planes (22, 32, 32), vector)``. The legal actions come from the env's ``action_masks()``,
reached through Gymnasium 1.x's wrappers with ``env.get_wrapper_attr("action_masks")``;
illegal actions get -inf logits. Everything (config, network, rollout, GAE, clipped loss) is
in this file, as in CleanRL.

    python examples/cleanrl_ppo.py --iterations 4 --steps 128
    python examples/cleanrl_ppo.py --total-steps 20000      # iterations = total steps // steps
"""

from __future__ import annotations

import argparse
import ast
import inspect
import random
from dataclasses import dataclass, fields

import gymnasium
import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

import monkey_env  # noqa: F401  (registers MonkeyPalace-v0)


@dataclass
class Config:
    seed: int = 0
    """seed of Python, numpy, torch and the env's deals"""
    iterations: int = 4
    """PPO updates, each after a rollout of `steps` learner decisions"""
    steps: int = 128
    """learner decisions per rollout"""
    total_steps: int = 0
    """if above 0: total learner decisions (overrides iterations)"""
    players: int = 2
    """players at the table (the others are random agents)"""
    learning_rate: float = 2.5e-4
    """Adam's learning rate"""
    gamma: float = 0.99
    """discount factor"""
    gae_lambda: float = 0.95
    """lambda of generalized advantage estimation"""
    epochs: int = 2
    """passes over each rollout"""
    minibatches: int = 4
    """minibatches per pass"""
    clip_coef: float = 0.2
    """PPO's clipping of the probability ratio"""
    ent_coef: float = 0.01
    """entropy bonus"""
    vf_coef: float = 0.5
    """value loss weight"""


def parse_config(argv=None) -> Config:
    """Command-line flags from the dataclass: ``--total-steps``, with each field's docstring as help."""
    tree = ast.parse(inspect.getsource(Config)).body[0].body
    helps = {a.target.id: b.value.value for a, b in zip(tree, tree[1:])
             if isinstance(a, ast.AnnAssign) and isinstance(b, ast.Expr)}
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for f in fields(Config):
        parser.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=f.default,
                            help=helps[f.name])
    return Config(**vars(parser.parse_args(argv)))


class Agent(nn.Module):
    def __init__(self, planes: int, vector_size: int, num_actions: int):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(planes, 16, 4, stride=4), nn.ReLU(), nn.Conv2d(16, 16, 2, stride=2), nn.ReLU(),
                                  nn.Flatten())
        self.body = nn.Sequential(nn.Linear(16 * 4 * 4 + vector_size, 256), nn.ReLU())
        self.actor, self.critic = nn.Linear(256, num_actions), nn.Linear(256, 1)

    def forward(self, planes, vector, mask, action=None):
        h = self.body(torch.cat([self.conv(planes), vector], -1))
        dist = Categorical(logits=self.actor(h).masked_fill(~mask, -1e9))
        action = dist.sample() if action is None else action
        return action, dist.log_prob(action), dist.entropy(), self.critic(h).squeeze(-1)


def main(argv=None) -> int:
    cfg = parse_config(argv)
    iterations = cfg.total_steps // cfg.steps if cfg.total_steps > 0 else cfg.iterations
    random.seed(cfg.seed)
    np.random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)

    env = gymnasium.make("MonkeyPalace-v0", players=cfg.players, map=1)
    action_masks = env.get_wrapper_attr("action_masks")      # Gymnasium 1.x: not env.action_masks
    obs_space = env.observation_space
    agent = Agent(obs_space["planes"].shape[0], obs_space["vector"].shape[0], env.action_space.n)
    opt = torch.optim.Adam(agent.parameters(), lr=cfg.learning_rate, eps=1e-5)

    T = cfg.steps
    planes = torch.zeros((T,) + obs_space["planes"].shape)
    vectors = torch.zeros((T,) + obs_space["vector"].shape)
    masks = torch.zeros((T, env.action_space.n), dtype=torch.bool)
    actions, logprobs, rewards, dones, values = (torch.zeros(T) for _ in range(5))

    obs, _ = env.reset(seed=cfg.seed)
    done, episode_return, finished = False, 0.0, []
    for it in range(1, iterations + 1):
        for t in range(T):
            planes[t], vectors[t] = torch.tensor(obs["planes"]), torch.tensor(obs["vector"])
            masks[t] = torch.as_tensor(action_masks())
            dones[t] = float(done)
            with torch.no_grad():
                action, logprobs[t], _, values[t] = agent(planes[t:t + 1], vectors[t:t + 1], masks[t:t + 1])
            actions[t] = action
            obs, reward, terminated, truncated, _ = env.step(int(action))
            rewards[t], done = reward, terminated or truncated
            episode_return += reward
            if done:
                finished.append(episode_return)
                episode_return = 0.0
                obs, _ = env.reset()
        # Generalized advantage estimation, bootstrapped from the value of the next observation.
        with torch.no_grad():
            next_mask = torch.as_tensor(action_masks())[None]
            next_value = agent(torch.tensor(obs["planes"])[None], torch.tensor(obs["vector"])[None], next_mask)[3]
            advantages, last = torch.zeros(T), 0.0
            for t in reversed(range(T)):
                next_nonterminal = 1.0 - (float(done) if t == T - 1 else dones[t + 1])
                nv = next_value[0] if t == T - 1 else values[t + 1]
                delta = rewards[t] + cfg.gamma * nv * next_nonterminal - values[t]
                advantages[t] = last = delta + cfg.gamma * cfg.gae_lambda * next_nonterminal * last
            returns = advantages + values
        # The clipped PPO update.
        size = T // cfg.minibatches
        for _ in range(cfg.epochs):
            for mb in torch.randperm(T).split(size):
                _, logp, entropy, value = agent(planes[mb], vectors[mb], masks[mb], actions[mb].long())
                ratio = (logp - logprobs[mb]).exp()
                adv = (advantages[mb] - advantages[mb].mean()) / (advantages[mb].std() + 1e-8)
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)).mean()
                v_loss = 0.5 * (value - returns[mb]).pow(2).mean()
                loss = pg_loss + cfg.vf_coef * v_loss - cfg.ent_coef * entropy.mean()
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                opt.step()
        mean = np.mean(finished[-10:]) if finished else float("nan")
        print(f"update {it}/{iterations}: loss {loss.item():.4f}, value loss {v_loss.item():.4f}, "
              f"games {len(finished)}, mean episode reward (last 10) {mean:.2f}", flush=True)
    env.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
