"""Navigation's logic in plain Python and numpy: sensor summaries for a language model, the
explored map and its frontiers, path planning, the seven tools, the safety executor's rules, the
watchdog's fallbacks, exploration memory and the A/B scores.

Nothing here knows about behaviour trees or the simulator: it reads scans, poses and grids and
returns text, plans and velocity commands.
"""
