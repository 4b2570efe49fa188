"""Power Law Graph Attention (PLGA): the operator G_LM and its structural quantities."""
