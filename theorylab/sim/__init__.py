"""Simulation and exact numerics of the theory modules 'models (imports theory, never the reverse)."""
