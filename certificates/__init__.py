"""Certificates of the claims catalogue, one module per area; each registers its checks."""
