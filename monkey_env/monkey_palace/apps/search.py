"""Monkey Palace's hooks for the search agent (agents/mcts.py, the ``search`` part of monkey_env.games):
the redraw of the cards under the pile tops, and greedy's one-turn scores as a prior and value
with no network (``mcts:prior=greedy``). Here at the applications' layer (tests/test_layers.py)
because the greedy prior reads greedy's scores (monkey_env/monkey_palace/agents/greedy.py)."""

from __future__ import annotations

from monkey_env.core.search_hooks import SearchHooks
from monkey_env.monkey_palace.actions import N_PILES, Phase

TURN_POINTS = 4.0   # the fallback value's estimate of one turn's Banana Points



def greedy_prior_value(jax_game, turn_points: float = TURN_POINTS):
    """A prior and value with no network: greedy's one-turn scores (monkey_env/monkey_palace/agents/greedy.py).

    logits: a staircase's value in Banana Points (anchor and shape decisions), a card's points
    (buying, from greedy's buying order), greedy's small preferences elsewhere. value: the
    points the mover still gets this turn by greedy's estimate (the best staircase's value, or
    the cards the credits left still buy, and the bonus card and trophies still to come),
    minus ``turn_points`` for each seat still to play in this round (averaged over the other
    seats). Every seat plays as many turns (the game ends with a round), so after this round
    the seats' turns cancel: each node's value counts the same horizon, the end of the round,
    whichever seat moves there."""
    import jax
    import jax.numpy as jnp

    from monkey_env.monkey_palace.agents.greedy import batch_scores
    from monkey_env.monkey_palace.agents.staircase_values import POINT, buy_preference
    from monkey_env.monkey_palace.geometry import Colour
    from monkey_env.monkey_palace.jaxgame.rules import BUTTERFLY, MONKEY, OPT_BUTTERFLY, OPT_BUTTERFLY_OVERALL

    jg = jax_game
    scores_of = batch_scores(jg)
    t, st, rules = jg.tables, jg.static, jg.rules

    def rest_of_turn(s, best_staircase):
        """The mover's points still to come this turn (greedy's estimate)."""
        phase = s.phase
        # cards the credits left still buy, greedy's order, one per pile (rules.buyable's test)
        top = s.pile_cards[jnp.arange(N_PILES), jnp.maximum(s.pile_len - 1, 0)]
        cost, bananas = t.card_cost[top], s.card_bananas[top]   # values are traced: read from the state
        open_ = rules.buyable(s._replace(credits=jnp.int32(1 << 20)))
        pref = buy_preference(bananas, cost)

        def buy_one(_, c):
            credits, open_, total = c
            can = open_ & (cost <= credits)
            pick = jnp.argmax(jnp.where(can, pref, -(1 << 20)))
            got = can.any()
            return (credits - jnp.where(got, cost[pick], 0), open_ & ~(got & (jnp.arange(N_PILES) == pick)),
                    total + jnp.where(got, bananas[pick], 0))

        cards = jax.lax.fori_loop(0, N_PILES, buy_one, (s.credits, open_, jnp.int32(0)))[2]
        others = s.players - 1

        def trophy(kind):   # taken from another seat it also costs that seat its points
            held = s.holders[kind]
            return jnp.where(held == s.current, 0.0,
                             s.trophy_points[kind] * jnp.where(held >= 0, 1.0 + 1.0 / others, 1.0))

        built = (phase == Phase.BUY) | (phase == Phase.INSTANT) | (phase == Phase.SLOT)
        bonus = built & (s.max_stack >= st.bonus_min_stack) & (s.bonus_left > 0)
        monkey = built & (s.colour == Colour.GOLD)
        wins = jnp.where(s.options[OPT_BUTTERFLY_OVERALL], s.highest_overall, s.highest_of_colour)
        butterfly = (built | (phase == Phase.MONKEY)) & s.options[OPT_BUTTERFLY] & wins
        pending = (bonus * s.bonus_points + monkey * trophy(MONKEY) + butterfly * trophy(BUTTERFLY))
        at_staircase = (phase == Phase.ANCHOR) | (phase == Phase.SHAPE)
        return jnp.where(at_staircase, best_staircase, jnp.where(phase == Phase.BUY, cards, 0) + pending)

    def prior_value(states):
        masks = jg.batch_legal_mask(states)
        scores = scores_of(states, masks)
        phase = states.phase[:, None]
        staircase = (phase == Phase.ANCHOR) | (phase == Phase.SHAPE)
        scale = jnp.where(staircase, 1.0 / POINT, jnp.where(phase == Phase.BUY, 1.0 / 16, 1.0))
        logits = scores.astype(jnp.float32) * scale
        best = jnp.max(jnp.where(masks, scores, 0), -1) // POINT
        to_play = (states.players - 1 - states.current) / (states.players - 1)   # later seats of the round
        value = jax.vmap(rest_of_turn)(states, best.astype(jnp.float32)) - turn_points * to_play
        value = jnp.where(masks.any(-1), value, 0.0)
        return logits, value.astype(jnp.float32)

    return prior_value



def redraw_hidden_piles(state, key):
    """One game's state with the cards under each pile top in a random order drawn from ``key``
    (a function of the pile's unseen cards and the key only, never of their true order)."""
    import jax
    import jax.numpy as jnp

    cards, length = state.pile_cards, state.pile_len                      # (12, P), (12,)
    pos = jnp.arange(cards.shape[1])[None, :]
    hidden = pos < (length[:, None] - 1)
    canonical = jnp.take_along_axis(cards, jnp.argsort(jnp.where(hidden, cards, 1 << 30), axis=1, stable=True), 1)
    noise = jnp.where(hidden, jax.random.uniform(key, cards.shape), 2.0 + pos)
    return state._replace(pile_cards=jnp.take_along_axis(canonical, jnp.argsort(noise, axis=1), 1))


def redraw(state, seat, key):
    """The search's redraw: every seat sees the same piles (their tops), so ``seat`` changes nothing."""
    del seat
    return redraw_hidden_piles(state, key)


SEARCH = SearchHooks(redraw=redraw, greedy_prior_value=greedy_prior_value)
