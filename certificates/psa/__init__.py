"""Certificates of the PSA paper (rows P1-P24 of the claims catalogue; P10, P20 and P21-P23 run through the
transformer and its training, :mod:`theorylab.certificates.nn`), one module per subject:

* :mod:`.symplectic` -- the shear's geometry: symplectic lattice, powers, Hamiltonian flow, the lower shear's
  nullity and uniqueness, the nonlinear shear (P1-P3, P7, P8);
* :mod:`.filter_order` -- the per-stream two-tap filter, the joint filter order, the four-term split (P4-P6);
* :mod:`.placement` -- the Coriolis term, exactly and measured, and the Cesaro cancellation (P9.symbolic,
  P9.numeric, P13);
* :mod:`.score_model` -- the T4-only SNR and the softmax linearisation (P11, P12.symbolic, P12.numeric);
* :mod:`.transition` -- the critical couplings in interval arithmetic (P14-P16);
* :mod:`.mc_law` -- the two-branch law against Monte Carlo (P17), with the routes and thresholds of every
  Monte Carlo certificate; :mod:`.mc_variants` -- every simulator variant and kernel (P17.variants);
  :mod:`.mc_rng` -- the counter-based normals (P17.rng); :mod:`.mc_plateau` -- the argmax plateau and the
  condensation constant (P18); :mod:`.mc_crossover` -- the band edge and the T3 -> T4 crossover (P19);
* :mod:`.observables` -- the condensed branch on a named observable (P24.interval, P24.mc).

The independent routes they hold the library against are in ``theorylab.certificates.reference``.
"""
