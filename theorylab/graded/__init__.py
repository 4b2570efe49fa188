"""Graded LLMs (GLLM): grades, the sample-complexity ratio Lambda, minimax envelopes."""
