"""The claims catalogue: every claim of the three papers that theorylab checks, with its method key.

This dictionary is the catalogue's one source: ``docs/certificates.md`` (claim -> library
function -> certificate -> method -> status) and ``theorylab certify --list`` are generated
from it. Papers: PSA = *Phase Space Attention: A Hairer Lift Circumvents the Single-Layer
Induction Obstruction* (Maitra et al., arXiv:2609.32319); PLGA = *Power law graph attention:
exact generalization of scaled dot-product attention, empirical collapse at inference*
(Gokden, arXiv:2608.10288); GLLM = *Hierarchical Grading in Large Language Models*
(Shaska, arXiv:2607.22757).

Method keys: S exact symbolic, I rigorous interval, N floating-point identity,
MC Monte Carlo with a confidence interval.
"""
from __future__ import annotations

CATALOGUE: dict[str, tuple[str, str]] = {
    'P1': ('Upper shear M_g = [[I, gI],[0, I]] is symplectic (M^T J M = J) for all g; so is every member of the order lattice (query-only, key-only, symmetric; equal and unequal couplings)',
           'S'),
    'P2': ('M_g^n = [[I, n g I],[0, I]]: unit spectral radius, defective eigenvalue, linear (not bounded) growth of iterates',
           'S'),
    'P3': ('M_g is the exact time-g flow of H = p^2/2 and preserves H; the modified Hamiltonian equals H at every order',
           'S'),
    'P4': ('Per-stream causal two-tap filter (1+g) - g z^-1: gain 1 at DC, 1+2g at Nyquist, |H|^2 = 1 + 2g(1+g)(1 - cos w) monotone (high-pass); first momentum is zero',
           'S'),
    'P5': ('Joint filter order of the bilinear score: standard (0,0); query-only (1,0); key-only (0,1); symmetric (1,1); widening or summing heads cannot raise (0,0)',
           'S'),
    'P6': ('Four-term decomposition s = T1+T2+T3+T4 is exact; equal couplings give base + transported increment + pure coherence; unequal couplings stay symplectic but add a linear score bias',
           'S'),
    'P7': ('Lower shear is score-null (all-pass); uniqueness: within factorised, linear, one-step, post-RoPE, DC-gain-1, high-pass stream maps the shear is unique up to g',
           'S'),
    'P8': ('Nonlinear symplectic shear needs a symmetric Jacobian: codimension dk(dk-1)/2 = 2016 at dk = 64; only g(p) = cp is scale-uniform',
           'S'),
    'P9': ('Placement: pre-RoPE momentum differs from post-RoPE by a Coriolis term of size 2|sin(theta/2)| |q|, zero as theta -> 0, largest in high-frequency bands; both placements symplectic',
           'S + N'),
    'P10': ('Key-side order-zero score: induction accuracy ceiling 1/(T-2); query-only half-lift respects it',
           'MC'),
    'P11': ('T4-only SNR = sqrt(dk)/2, independent of g',
           'S'),
    'P12': ('Softmax linearisation: dp = (diag p - p p^T) ds; 1.dp = 0 (mass kept); a common shift is invisible; remainder is second order',
           'S + N'),
    'P13': ('Cesaro cancellation: pure positional parts of the g-linear T2/T3 channels average away at O(1/N) under RoPE',
           'N'),
    'P14': ('Two-branch law (T4-only): d*_k = 8L; mean-field gamma_c; band [0.787, 2.245] at (128, 512); 1.030 at (64, 512); 0.602 at (64, 15); asymptote (L^2/dk)^(1/4)',
           'I'),
    'P15': ('T3-inclusive law: 0.4132 at (128, 512), 0.569 at (64, 512), first root near dk = 31.5 (T = 512), asymptote L/sqrt(dk); T3 gap > T4 gap for g < 1; T4-only gamma_c > 1 iff 8L <= dk < (L+2)^2',
           'I'),
    'P16': ('Key-only law real iff dk >= 4L+2; symmetric in key-only convention 0.664 at (64, 15)',
           'I'),
    'P17': ('Two-branch law against Monte Carlo of the reduced model on mean-field grid points: Pearson r and median relative error reported (paper: r = 0.9876, median 2.6 %)',
           'MC'),
    'P18': ('Argmax limit of the T4-only model vs direct simulation (paper: within 9e-4); condensation constant c calibrated and reported beside 0.741 +/- 0.015',
           'MC'),
    'P19': ("T3 -> T4 crossover (paper's C7: g ~ 0.97) and the annealed band's upper edge tested against simulation",
           'MC'),
    'P20': ('Deployability: caching sheared keys at insertion equals full recomputation (prefix reuse, speculative rollback with retained raw vectors); extra state 2 raw vectors per layer (0.024 % of the cache at T = 4096); 6d FLOPs per token per layer; INT8 headroom <= log2(1+2g) bits, tight for an alternating stream',
           'N + S'),
    'P21': ('Trained single-layer induction (PSA §7.4, A5, A8.1): with the shear (key-only or symmetric, gamma ~ 2-4) a single attention layer trained on associative recall far exceeds standard attention (paper: 83.4 % vs 1.2 % at 14 pairs; 69.1 ± 8.2 % vs 1.6 % at 30 pairs); query-only stays at the 1/(T-2) ceiling',
           'MC'),
    'P22': ('Freely trained two-tap filters on the query and key streams select a key-side first difference and an identity query (paper: accuracy 1.000); key-only 0.949 > symmetric 0.811 > two-tap low-pass 0.428 (PSA §7.5)',
           'MC'),
    'P23': ('Trained dk ladder (PSA §7.11): measured gamma_c falls with dk (1.290 at dk = 8 to 0.120 at dk = 64, log-log slope -1.13, CI [-1.18, -1.07]) -- direction as the law, magnitude not (law -1/4)',
           'MC'),
    'P24': ('Condensed branch with a named observable: the calibrated constant c and the dk = 16 context-length scan statistics (paper: c = 0.741 ± 0.015; r = 0.9995, median 3.1 %, max 5.2 %); the (64, 15) "measured 0.613"',
           'I + MC'),
    'P25': ("Scored-mask critical coupling (A34.3): the condensed branch at dk = 16 is 0.832-0.924 over T_eff in [25, 127] (c = 0.741); 0.898 at the midpoint T_eff = 76 (the paper's 'analytic midpoint 0.899' is the branch at L = ln 76)",
            'I'),
    'P26': ('Depth law (A6.5, A11.1): the least-squares fit in gamma* of the Experiment-17 optima is gamma* = 4.17 / N^0.73, R^2 = 0.947; out of sample (A31.9): alpha = 0.664 at N = 12, the observed 0.80 within 18 % of the law, linear accumulation 0.347',
            'N'),
    'P27': ('Large-dk exponents of the closed-form gamma_c (§10): -0.461 with T3, -0.254 T4-only (T = 512, dk = 2^8 .. 2^16); T3 closes roughly a quarter (0.236) of the gap to the trained -1.13',
            'N'),
    'P28': ('Extended-length accuracy (§7.12): 0.626 at 24 pairs and 0.511 at 31 are 15x and 16x chance (chance = 1/L)',
            'S'),
    'A1': ('PLGA equals SDPA exactly when G_LM = I (a = 0, b_a = I)',
           'S + N'),
    'A2': ('iSwiGLU(u) = u^2 sigmoid(u) >= 0; A_LM and A_P strictly entrywise positive',
           'S + N'),
    'A3': ('Perron–Frobenius on A_LM: simple positive spectral radius with a positive eigenvector; rank-one A with identical rows has spectral radius = common row sum',
           'N'),
    'A4': ('Entrywise positive does not mean positive semidefinite: [[1,10],[1,1]] has symmetric part eigenvalues 6.5 and -4.5',
           'S'),
    'A5': ('NOTEARS: h(W) = tr exp(W o W) - d = sum_k tr((W o W)^k)/k! counts weighted closed walks; h = 0 iff acyclic; strict positivity forces h > 0',
           'S + N'),
    'A6': ('Commutant criterion: under nonresonant RoPE frequencies, q^T R_t^T G R_s k depends only on s - t for all q, k iff G is block-diagonal with 2x2 blocks in span{I, J}',
           'S'),
    'A7': ('Softmax row level iff: two finite score rows give the same distribution iff they differ by a common constant',
           'S'),
    'A8': ('G-cache: with an input-invariant G_LM, cached and full inference agree token by token; the counterexamples (a = 0 with b_a = G*; W_K = 0) behave as stated',
           'N'),
    'A9': ('Historical-row prefix consistency F(x_1:S)_r = F(x_1:r)_r holds for SDPA and for the cumulative Gram, fails in general for the global Gram',
           'N'),
    'A10': ('Order parameter m(theta) = 0 iff the tensor is input-invariant (piecewise convention for zero tensors)',
           'N'),
    'A11': ('Density operator D_Q = Q^T Q is symmetric PSD with rank <= min(S, dk); LayerNorm of D is scale invariant for eps = 0 and the eps-LayerNorm error LN(D) - LN(D/S) is computed directly, not by proxy',
           'S + N'),
    'A12': ('Rotary twirl: averaging R^T G R over the rotation group (or over positions, for nonresonant frequencies) is the orthogonal projection onto the commutant; the off-commutant residual ||G - Pi G||/||G|| is reported',
           'S + N'),
    'A13': ('DAG-loss floor: for entries >= eps, h(W) >= dk eps^2 (the obstruction is quantitative), evaluated overflow-safely',
           'S + N'),
    'A14': ('Hadamard-power group law A^{(s+t)P} = A^{sP} o A^{tP}, A^{0} = 1 (Lean: HadamardPower)',
            'S + N'),
    'A15': ('LayerNorm: exact shift invariance; scale invariance only at eps = 0; ball identity sum u^2 = d var/(var + eps) (Lean: LayerNorm)',
            'S + N'),
    'A16': ('Rank one A = 1 alpha^T: rank <= 1 (= 1 iff alpha != 0), det = 0 for d >= 2, row-sum eigenvector, A^{k+1} = s^k A, nilpotent when s = 0 (Lean: RankOne)',
            'S'),
    'A17': ('Softmax: positive, sums to 1, the average of values lies in their convex hull; masked softmax zero off the support (Lean: Softmax)',
            'S + N'),
    'A18': ('Contraction: diameter of a composition <= product of contraction factors; iterates contract geometrically (Lean: Contraction; Prop. 5.12)',
            'N'),
    'A19': ('Inference collapse: Q I K^T = Q K^T; affine bias absorption; one-way cache sufficiency (Lean: InferenceCollapse)',
            'S + N'),
    'A20': ("Derivative envelopes as in the authors' audit: for |u| <= U, |iSwiGLU'(u)| <= 2U sigma(U) + U^2/4 and |SiLU'(u)| <= sigma(U) + U/4 (sup |SiLU'| = 1.0998 near u = 2.40); the greedy-margin criterion 2B < margin",
            'I + N'),
    'G1': ("EG-MHSA: Q'K'^T = Q M^2 K^T; grading is absorbed by W~ = W M and the compiled standard transformer gives identical outputs (Rem. 1, Cor. 1)",
           'S + N'),
    'G2': ('At a fixed norm budget the graded constraint set is an ellipsoid aligned with the grades that contains the uniform ball (Prop. 5)',
           'S'),
    'G3': ('Lambda(g) = (sum a_j g_j^-2)(sum t_j g_j^2): Lambda(cg) = Lambda(g), Lambda(1) = 1, min Lambda = BC(alpha, tau)^2 <= 1 at g*_j proportional to (alpha_j/tau_j)^(1/4) (Prop. 7)',
           'S + I'),
    'G4': ('log Lambda convex in q; admissible cone convex and open; gradient at q = 0 is 2 log(lambda)(tau - alpha); first-order criterion <q, alpha - tau> > 0 (Prop. 8)',
           'S + N'),
    'G5': ('Level reduction BC(alpha, tau) = BC(a, s); geometric-profile closed form of BC (Cor. 3); affine increasing level grades are admissible',
           'S'),
    'G6': ('Table 3 (L = 4, C = 2): Lambda*, Lambda*_C, token gain, g*_C for (nu, mu) = (0.5,0.2), (0.6,0.3), (0.7,0.3), (0.8,0.4); bound Lambda*_C >= max(BC^2, C^-2) (0.459 vs 0.531 at (0.6,0.3))',
           'I'),
    'G7': ('Prop. 6: ||G - direct-sum M|| <= L lambda^qmax eta',
           'N'),
    'G8': ('Minimax envelope (Lem. 3–4, Thm 4.1): risk ~ sum_l min(cap_l, d_l eps^2); m_sat, window W, cap ratio g_0^2 sum a_k g_k^-2',
           'N + MC'),
    'G9': ('GIT dictionary (Prop. 12): Lambda - 1 = F(t)/prod t; moment-map coincidence alpha^(u*) = tau^(u*) = sqrt(alpha tau)/BC',
           'S + N'),
    'G10': ("Selection ladder (Table 2, Prop. 8, Lem. 2): arms whose grades consult more of the profiles (uniform, random, taxonomic, corpus proxy, educated, oracle) order in token efficiency as their admissibility inner products <q, alpha_hat - tau_hat> predict; the educated gain approaches 1/Lambda*_C; profile-estimation error costs quadratically",
            'MC'),
    'G11': ('Training overhead (§8.1.3): d^2 + K H d_k + d + |V| is 0.33 % of 345M at GLLM-Medium and 0.24 % of 7B at GLLM-7B; the quoted totals 1.13M and 17.0M are sums of rounded terms (exact 1,124,433 and 16,944,384)',
            'S'),
}

LIBRARY: dict[str, tuple[str, ...]] = {
    **{f"P{i}": ("theorylab.psa.shear", "theorylab.psa.symplectic") for i in (1, 2, 3, 8)},
    **{f"P{i}": ("theorylab.psa.shear",) for i in (4, 5, 7)}, "P6": ("theorylab.psa.shear", "theorylab.psa.scores"),
    "P9": ("theorylab.psa.rotary", "theorylab.psa.positional", "theorylab.psa.scores", "theorylab.psa.symplectic"),
    "P10": ("theorylab.nn.attention", "theorylab.nn.tasks"), "P11": ("theorylab.psa.scoremodel",),
    "P12": ("theorylab.psa.softmax",), "P13": ("theorylab.psa.shear", "theorylab.psa.rotary", "theorylab.psa.positional"),
    **{f"P{i}": ("theorylab.psa.transition", "theorylab.psa.crossing") for i in (14, 15, 16)},
    **{f"P{i}": ("theorylab.psa.transition", "theorylab.psa.montecarlo", "theorylab.psa.mc_crossing",
                 "theorylab.psa.quadrature") for i in (17, 18, 19)},
    "P20": ("theorylab.psa.deploy", "theorylab.nn.decoder"),
    **{f"P{i}": ("theorylab.nn.train", "theorylab.nn.evaluation") for i in (21, 22)}, "P23": ("theorylab.nn.train",),
    "P24": ("theorylab.psa.observables", "theorylab.psa.peaks"),
    "A1": ("theorylab.plga.params", "theorylab.nn.specs", "theorylab.nn.attention"), "A2": ("theorylab.plga.chain", "theorylab.plga.diagnostics"),
    "A3": ("theorylab.plga.chain", "theorylab.plga.perron"), "A4": ("theorylab.symbolic.plga",),
    "A5": ("theorylab.plga.notears",), "A6": ("theorylab.plga.rope",), "A7": ("theorylab.psa.softmax",),
    "A8": ("theorylab.nn.decoder",), "A9": ("theorylab.nn.attention", "theorylab.nn.decoder", "theorylab.nn.prefix"),
    "A10": ("theorylab.plga.chain", "theorylab.plga.diagnostics"),
    "A11": ("theorylab.plga.chain", "theorylab.plga.diagnostics"), "A12": ("theorylab.plga.rope",),
    "A13": ("theorylab.plga.notears",), "A14": ("theorylab.plga.chain",),
    "A15": ("theorylab.plga.chain", "theorylab.plga.diagnostics"), "A16": ("theorylab.plga.perron",),
    "A17": ("theorylab.psa.softmax",), "A18": ("theorylab.plga.contraction",),
    "A19": ("theorylab.plga.chain", "theorylab.nn.attention", "theorylab.nn.compiled"),
    "A20": ("theorylab.plga.envelopes",),
    "G1": ("theorylab.graded.attention",), **{f"G{i}": ("theorylab.graded.grades",) for i in (2, 4, 5)},
    **{f"G{i}": ("theorylab.graded.grades", "theorylab.graded.optimal") for i in (3, 6, 9)},
    "G7": ("theorylab.graded.embedding",), "G8": ("theorylab.graded.envelope", "theorylab.graded.risk_sim"),
    "G10": ("theorylab.graded.ladder",),
    **{f"P{i}": ("theorylab.psa.laws",) for i in range(25, 29)}, "G11": ("theorylab.graded.overhead",),
}
"""The library modules whose code each catalogue row checks (used for precise pending reasons)."""

ISSUE = {"P": {10: 6, 13: 6, 17: 3, 18: 3, 19: 3, 20: 6, 21: 14, 22: 14, 23: 14, 24: 12, 25: 22, 26: 22, 27: 22, 28: 22},
         "A": {**{i: 6 for i in range(1, 14)}, **{i: 13 for i in range(14, 21)}}, "G": {10: 15, 11: 22}}
"""Issue that owns the library code of a row (rows not listed: P issue 4, A issue 6, G issue 5)."""


def issue_of(cid: str) -> int:
    """The issue number whose work lands row ``cid``'s library code."""
    return ISSUE[cid[0]].get(int(cid[1:]), {"P": 4, "A": 6, "G": 5}[cid[0]])


EVIDENCE_ELSEWHERE = {
    "P23": "measured by study (j), docs/results.md: gamma_c per dk needs tens of training runs (minutes), "
           "beyond certify's one-minute budget",
}
"""Rows whose claim is measured by a study instead of a certificate, and why."""


def pending_reason(cid: str) -> str:
    """Why row ``cid`` has no certificate: where its evidence is instead, which library modules are missing,
    or that only the check is."""
    import importlib.util

    if cid in EVIDENCE_ELSEWHERE:
        return EVIDENCE_ELSEWHERE[cid]
    modules = LIBRARY.get(cid, ())
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        return f"library code not written yet: {', '.join(missing)} (issue {issue_of(cid)})"
    return (f"library code present ({', '.join(modules)}); no certificate registered yet "
            f"(certificates/ module of issue {issue_of(cid)})")
