"""Certificates that run through the minimal NumPy transformer (``theorylab.nn``) and its training, one module per
subject:

* :mod:`.induction` -- the induction ceiling of key-side order zero (P10);
* :mod:`.deploy` -- the sheared-key cache and the INT8 headroom (P20.numeric, P20.exact);
* :mod:`.plga_heads` -- PLGA with G_LM = I is SDPA (A1, A1.symbolic), the G-cache (A8), prefix consistency (A9);
* :mod:`.grading` -- EG-MHSA compiles to a standard transformer (G1.numeric);
* :mod:`.trained` -- trained key-only PSA beats the ceiling, free filters learn a high-pass key (P21, P22);
* :mod:`.backward_pass` -- the hand-derived gradients against finite differences (P21.grad);
* :mod:`.training_parts` -- AdamW, clipping, the schedule, the Wilson interval, the tasks, the pool (P21.training);
* :mod:`.protocol` -- the training conventions: lr scaling, each member's head, the gamma-aware init (P21.protocol);
* :mod:`.ladder_estimators` -- the trained dk ladder's estimators and observables (P23.estimator, P23.observables).

The numeric checks hold the library's decoder against the from-scratch reference forward pass of
``theorylab.certificates.reference.transformer`` (RoPE, SDPA, PSA, EG-MHSA, PLGA heads, LayerNorm, MLP with
biases, residuals, final LayerNorm, tied unembedding), fed the same weights as plain arrays
(``theorylab.certificates._reference_views``).
"""
