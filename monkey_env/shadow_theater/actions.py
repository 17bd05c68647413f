"""The one flat action space of The Shadow Theater (both engines, the environments, the agents).

    0..16   play weapon card i (the cards' order of configs/shadow_theater/weapons.yaml, copies in a row)
    17..19  place a monkey on location L (lair, palace, garden)
    20..22  collect every monkey of location L
    23..25  move the Monkey King to location L (after a Garden placement or a move_king card)
    26..27  keep the first / second of the two Scroll tiles drawn
    28      pass (only when neither placing nor collecting is possible)
"""

N_CARDS = 17
N_LOCATIONS = 3
PLAY = 0
PLACE = PLAY + N_CARDS
COLLECT = PLACE + N_LOCATIONS
KING = COLLECT + N_LOCATIONS
KEEP = KING + N_LOCATIONS
PASS = KEEP + 2
NUM_ACTIONS = PASS + 1

# Phases: what the seat to play decides now.
DRAFT, TURN, KING_MOVE, OVER = 0, 1, 2, 3
PHASE_NAMES = ("draft", "turn", "king_move", "over")
# Rounds dealt in advance (void rounds only can make more than 3); a game still undecided after
# them ends with the Lanterns as they are.
MAX_ROUNDS = 12
