"""A minimal NumPy transformer: attention heads, decoder with caches, induction tasks."""
