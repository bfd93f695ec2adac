"""Arm drivers: the five primitives, the robot's limits, the cell model, and drivers by type name."""
