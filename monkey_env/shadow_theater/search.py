"""The Shadow Theater's hooks for the search agent (agents/mcts.py; the ``search`` part of
monkey_env.games): the JAX form of the reference engine's ``redraw_hidden``."""

from __future__ import annotations

from monkey_env.core.redraw import shuffle_places
from monkey_env.core.search_hooks import SearchHooks


def redraw(state, seat, key):
    """One game's state as ``seat`` has seen it, what it cannot see drawn anew from ``key``
    (engine.Game.redraw_hidden): this round, the cards of the other hand, of the deck and those
    set aside are shuffled among their places in the deal (the cards ``seat`` holds and every
    card played keep theirs; the other hand is what the other seat drew of the new order); the
    Scroll tiles ``seat`` has not seen among theirs (its own pair and the other's kept tile keep
    theirs); later rounds are dealt anew. A finished game is returned as it is."""
    import jax
    import jax.numpy as jnp

    s = state
    k_cards, k_scrolls, k_later = jax.random.split(key, 3)
    r, other = s.round - 1, 1 - seat
    cards = s.deal_cards[r]
    n_cards = cards.shape[0]
    pos = jnp.arange(n_cards)
    seen = (s.holder == seat) | s.discarded                      # by card
    places = (pos >= s.deck_top) | ~seen[cards]
    new_cards = shuffle_places(cards, places, k_cards)
    drawn_by_other = (pos < s.deck_top) & places                  # the other hand's places in the deal
    holder = jnp.where(seen, s.holder, -1)
    holder = holder.at[jnp.where(drawn_by_other, new_cards, n_cards)].set(other, mode="drop")

    scrolls = s.deal_scrolls[r]
    spos = jnp.arange(scrolls.shape[0])
    first = jnp.where(seat == s.starter, 0, 2)
    mine = (spos >= first) & (spos < first + 2)
    kept = s.scroll[other]
    new_scrolls = shuffle_places(scrolls, ~mine & (scrolls != kept), k_scrolls)

    rounds = s.deal_cards.shape[0]
    kc, ks, kk = jax.random.split(k_later, 3)
    later = jnp.arange(rounds) > r
    fresh_cards = jax.vmap(lambda k: jax.random.permutation(k, n_cards))(jax.random.split(kc, rounds))
    fresh_scrolls = jax.vmap(lambda k: jax.random.permutation(k, scrolls.shape[0]))(jax.random.split(ks, rounds))
    fresh_king = jax.random.randint(kk, (rounds,), 0, 3)
    deal_cards = jnp.where(later[:, None], fresh_cards.astype(s.deal_cards.dtype), s.deal_cards).at[r].set(new_cards)
    deal_scrolls = jnp.where(later[:, None], fresh_scrolls.astype(s.deal_scrolls.dtype), s.deal_scrolls).at[r].set(new_scrolls)
    deal_king = jnp.where(later, fresh_king.astype(s.deal_king.dtype), s.deal_king)
    out = s._replace(deal_cards=deal_cards, deal_scrolls=deal_scrolls, deal_king=deal_king, holder=holder)
    return jax.tree_util.tree_map(lambda a, b: jnp.where(s.terminated, b, a), out, s)


# The other hand played by the prior's best action (the tree holds this seat's decisions only):
# 0.607 against ``ppo`` on 1,000 deals, against 0.563 searching the other seat's decisions too
# (docs/AGENTS.md, section MCTS: the figures on the other games).
SEARCH = SearchHooks(redraw=redraw, mcts_settings="opponents=policy")
