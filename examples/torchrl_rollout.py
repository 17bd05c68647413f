"""TorchRL on Monkey Palace: PettingZooWrapper, check_env_specs, a masked rollout, a few PPO updates.

Shows TorchRL's own wrapper around the PettingZoo AEC env (``use_mask=True``: each agent
group gets ``mask``, true when that player is the one to decide, and ``action_mask``, its
legal actions). The infos are numbers only (phase as an int, round, scores), so TorchRL
can turn them into tensors. Then a self-play PPO with one network shared by the seats:
masked categorical policy, Monte-Carlo returns of each player's own rewards, clipped loss.

    pip install -e '.[clients]'          # torchrl and tensordict
    python examples/torchrl_rollout.py --iterations 3 --steps 256
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from pettingzoo.utils import BaseWrapper
from torch import nn
from torchrl.envs import PettingZooWrapper
from torchrl.envs.utils import check_env_specs
from torchrl.modules import MaskedCategorical

import monkey_env

OBS = ("observation", "observation")   # the nested Dict(planes, vector) inside each group


class SeededDeals(BaseWrapper):
    """Resets without a seed (TorchRL's automatic resets) draw the deal from a seeded generator."""

    def __init__(self, env, seed: int):
        super().__init__(env)
        self._deals = np.random.default_rng(seed)

    def reset(self, seed=None, options=None):
        super().reset(seed=int(self._deals.integers(2**31)) if seed is None else seed, options=options)


class Net(nn.Module):
    """Planes through one strided conv, with the vector, into a small MLP: logits and a value."""

    def __init__(self, planes: int, vector_size: int, num_actions: int):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(planes, 8, kernel_size=4, stride=4), nn.ReLU(), nn.Flatten(-3))
        self.body = nn.Sequential(nn.Linear(8 * 8 * 8 + vector_size, 128), nn.ReLU())
        self.pi, self.v = nn.Linear(128, num_actions), nn.Linear(128, 1)

    def forward(self, planes, vector):
        lead = planes.shape[:-3]
        x = self.conv(planes.reshape(-1, *planes.shape[-3:])).reshape(*lead, -1)
        h = self.body(torch.cat([x, vector], -1))
        return self.pi(h), self.v(h).squeeze(-1)


def act(net, td, groups):
    """Every group samples from its masked policy (only the player to move is used by the env)."""
    with torch.no_grad():
        for g in groups:
            logits, value = net(td[g][OBS + ("planes",)], td[g][OBS + ("vector",)])
            dist = MaskedCategorical(logits=logits, mask=td[g]["action_mask"])
            action = dist.sample()
            td[g].update({"action": action, "log_prob": dist.log_prob(action), "value": value})
    return td


def returns(rewards, done, gamma):
    """Discounted rewards-to-go along the rollout, cut at game ends (0 after the last step)."""
    out, running = torch.zeros_like(rewards), torch.zeros_like(rewards[0])
    for t in range(len(rewards) - 1, -1, -1):
        running = rewards[t] + gamma * running * (~done[t]).float()
        out[t] = running
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=3, help="PPO updates (one rollout each)")
    parser.add_argument("--steps", type=int, default=256, help="env steps per rollout")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)

    env = PettingZooWrapper(SeededDeals(monkey_env.make("monkey_palace_v0", players=2), args.seed),
                            use_mask=True, categorical_actions=True, seed=args.seed)
    check_env_specs(env)
    groups = list(env.group_map)
    print(f"check_env_specs passed; groups {groups}")

    # A random rollout: TorchRL samples from the masked action spec, so every action is legal.
    data = env.rollout(64, break_when_any_done=False)
    legal = all(bool(data[g]["action_mask"].gather(-1, data[g]["action"].unsqueeze(-1))[data[g]["mask"]].all())
                for g in groups)
    print(f"random rollout: {data.shape[0]} steps, every acting player's action legal: {legal}")
    if not legal:
        return 1

    spec = env.full_observation_spec[groups[0]]
    net = Net(spec[OBS + ("planes",)].shape[-3], spec[OBS + ("vector",)].shape[-1],
              env.full_action_spec[groups[0], "action"].space.n)
    opt = torch.optim.Adam(net.parameters(), lr=3e-4)
    td = env.reset()
    for it in range(1, args.iterations + 1):
        data = env.rollout(args.steps, policy=lambda t: act(net, t, groups), tensordict=td,
                           auto_reset=False, break_when_any_done=False, trust_policy=True)
        td = env.step_mdp(data[-1]) if not bool(data[-1]["next", "done"].any()) else env.reset()
        done = data["next", "done"].reshape(-1)
        losses = []
        for _ in range(args.epochs):
            loss = 0.0
            for g in groups:
                ret = returns(data["next", g, "reward"].reshape(-1), done, gamma=0.99)
                rows = data[g]["mask"].reshape(-1)          # the steps where this player decided
                sub = data[g][rows]
                logits, value = net(sub[OBS + ("planes",)], sub[OBS + ("vector",)])
                dist = MaskedCategorical(logits=logits, mask=sub["action_mask"])
                new_logp = dist.log_prob(sub["action"])
                target = ret[rows].unsqueeze(-1)            # (decisions, 1) like the group's tensors
                adv = target - sub["value"]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                ratio = (new_logp - sub["log_prob"]).exp()
                pg = -torch.min(ratio * adv, ratio.clamp(0.8, 1.2) * adv).mean()
                loss = loss + pg + 0.5 * (value - target).pow(2).mean() - 0.01 * dist.entropy().mean()
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), 0.5)
            opt.step()
            losses.append(float(loss.detach()))
        games = int(done.sum())
        reward = float(sum(data["next", g, "reward"].sum() for g in groups))
        print(f"update {it}: {data.shape[0]} steps, {games} games ended, reward (all seats) {reward:.1f}, "
              f"loss {losses[-1]:.4f}", flush=True)
    env.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
