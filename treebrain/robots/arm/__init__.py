"""The sandwich-cell arm: its five primitives, limits, cell model, and drivers (sim, file, TCP)."""
