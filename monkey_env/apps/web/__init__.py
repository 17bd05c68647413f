"""The browser app: play against the bots and replay any game in 3-D, with the arena's and the
balance lab's results beside them (``monkey-palace serve``; docs/WEB.md)."""
