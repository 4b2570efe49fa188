"""Certificates of the PLGA paper (claims A2-A20; A1, A8 and A9 run through the transformer,
certificates/nn/plga_heads.py).

One module per subject, each holding every certificate of its claims, whether it checks the paper's
statement or a convention of the authors' Lean repository (``burcgokden/PLDR-LLM-Math-Foundations``):

* :mod:`.chain` -- the forward chain: iSwiGLU positivity, the metric learner and its initialisation (A2),
  the Hadamard power's group law (A14);
* :mod:`.perron` -- Perron-Frobenius on A_LM (A3), positive is not PSD (A4), the rank-one 1 alpha^T (A16);
* :mod:`.notears` -- NOTEARS h(W) as a closed-walk count (A5), the DAG-loss floor and the authors' DL (A13);
* :mod:`.rope` -- the commutant criterion (A6) and the rotary twirl (A12);
* :mod:`.softmax` -- softmax rows (A7) and softmax's Lean facts (A17);
* :mod:`.order` -- the order parameter, ours and the authors' signed one, and attention-row stability (A10);
* :mod:`.layer_norm` -- the density operator and LayerNorm's scale invariance (A11), eps-LayerNorm (A15);
* :mod:`.inference` -- prefix consistency's shape conjunct (A9.shape) and inference collapse (A19);
* :mod:`.contraction` -- diameter contraction (A18) and the derivative envelopes (A20).

Symbolic parts feed SymPy symbols through the library (its exact route for object arrays) and decide
identities with ``theorylab.symbolic.exact``; numeric parts compare the float library with an independent
route (``theorylab.certificates.reference.plga`` and ``.plga_lean``, written from the paper's equations and
the authors' audits, sharing no library code; SciPy, mpmath, mpmath interval arithmetic, golden values) at
the tolerances stated in each evidence line, and show each bound attained on an extremal example.
Each certificate is a function without arguments that calls the library functions under test directly;
the bugs planted in the library source (``tests/planted/plga.py``, run by tests/test_planted_bugs.py) make
them FAIL. docs/plga.md maps Lean file and theorem -> library function -> certificate.
"""
