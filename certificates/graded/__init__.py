"""Certificates of the GLLM paper (*Hierarchical Grading in Large Language Models*), rows G1-G10 of the claims
catalogue, one module per subject:

* ``attention_embedding`` -- graded attention and the multi-level graded embedding (G1.symbolic, G2, G7);
* ``lambda_grades`` -- Lambda, the Bhattacharyya affinity, the optimal grades and the GIT dictionary (G3,
  G3.interval, G4, G5, G9);
* ``clipped_kkt`` -- Table 3's clipped grades and their KKT conditions (G6);
* ``envelope_minimax`` -- the minimax envelope, its set S, m_sat, the window W and the cap ratio, exactly
  (G8.numeric);
* ``risk_simulation`` -- the Monte Carlo risk against the envelope and the two-point lower bound (G8);
* ``ladder`` -- the selection ladder (G10), with its pilot checks (``ladder_pilot``), independent routes
  (``ladder_routes``) and sweep-helper checks (``ladder_sweep``).

The independent routes they hold the library against are in ``theorylab.certificates.reference``.
"""
