"""Simulated manipulators (robosuite): end-effector commands in, oracle observations out."""
