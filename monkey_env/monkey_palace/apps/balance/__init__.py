"""Monkey Palace's balance lab (the ``balance_lab`` part): seats, maps, cards, boards, option sets,
the skill profile and what-ifs, played in JAX batches (collect), analysed (analysis) and written
(report); an arena database read as its games (arena_db); its flags and run (lab)."""
