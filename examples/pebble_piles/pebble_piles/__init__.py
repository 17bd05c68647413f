"""Pebble Piles: the framework's worked example, a game installed from outside monkey_env.

2 to 4 players; a row of piles dealt from the seed. On a turn a player takes 1 to 3 pebbles from
a pile at either end of the row (the first or the last pile still holding pebbles), a point per
pebble. The game ends when the piles are empty; the most points win, a tie
going to the player who took the last pebble (other tied players share the win).
"""
