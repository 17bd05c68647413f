"""The environments of every game, written once over the JAX engine protocol.

A game supplies an :class:`~monkey_env.envs.hooks.EnvHooks` (its options, engine, observation
space, reward modes, infos and reference mirror); :class:`~monkey_env.envs.aec.JaxAECEnv` is the
PettingZoo AEC environment and :class:`~monkey_env.envs.gym_view.JaxGymView` the Gymnasium
single-agent view of any such game, with one policy for every game (docs/ENVIRONMENTS.md):

- an illegal action ends the game for everyone, its author receiving ``illegal_penalty``
  (default ``monkey_env.core.protocol.ILLEGAL_PENALTY``, -10: worse than any legal game's outcome)
  and the others 0;
- ``max_cycles=N`` truncates after N rounds (a round: every seat one turn);
- infos carry ``round`` and ``scores`` in every game, plus the game's own fields;
- the Gymnasium view's learner seat defaults to 0 (``None`` draws it at every reset from the
  env's seeded generator), and its opponents are agents, one per other seat.
"""
