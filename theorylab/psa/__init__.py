"""Phase Space Attention (PSA): the symplectic shear, its filter-order account of
single-layer induction, and the reduced Gaussian score model with its critical couplings."""
