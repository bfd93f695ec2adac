"""Manipulation's logic in plain Python: frames and geometry, regions and tasks, the symbolic world
state, the Cartesian controller, the skills with their pre- and postconditions, and episode logs.

Nothing here knows about behaviour trees or the simulator: skills read observations and return
end-effector commands, so they run the same on robosuite, on the kinematic stand-in and in tests.
"""
