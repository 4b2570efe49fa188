"""The one table of option names every command draws from, each with its single meaning.

An option name means the same thing in every command that has it (``--seed`` is always the base
seed, ``--variant`` always the model variant, ``-o/--out`` always the file the command writes its
result to). docs/cli.md shows this table ("Option vocabulary"), and
``tests/test_cli_vocabulary.py`` fails when a command has an option that is not in it.

File outputs follow one scheme: ``-o/--out PATH`` is the file a command writes its result to (a
report, an export, the figure of ``plot``, which is its result); ``--plot FIG`` is a figure written
beside a result that is printed; and two records that are neither keep a name saying what they are,
``certify --docs`` (the generated certificates page) and ``ladder --prereg`` (the pre-registration,
written before anything is measured and read back by ``--from-prereg``).
"""
from __future__ import annotations

OUTPUT_OPTIONS = {
    "--out": "the file the command writes its result to (short form -o)",
    "--plot": "a figure (.png, .pdf or .svg, by its suffix) written beside the printed result",
    "--docs": "certify: the generated certificates page (Markdown)",
    "--prereg": "ladder: the pre-registration (JSON), written before measuring",
}
"""The only options that name a file a command writes, and what each holds."""

VOCABULARY = {
    # shared by every command
    "--help": "show the help and exit (short form -h)",
    "--version": "print the version and exit",
    "--format": "output format: table, csv or json (certify: table or json)",
    "--max-memory": "refuse a request estimated to need more memory than SIZE",
    "--max-time": "refuse a request estimated to take longer than DURATION",
    "--no-progress": "never show a progress bar (none is shown when stderr is not a terminal)",
    "--seed": "base seed, an integer in [0, 2^64); several runs use seed, seed + 1, ...",
    "--seeds": "number of seeds (runs use --seed, --seed + 1, ...)",
    "--workers": "number of worker processes",
    **OUTPUT_OPTIONS,
    # inputs
    "--store": "SQLite sweep store",
    "--grid": "grid of (dk, T) points: 'paper' or a CSV/JSON file",
    "--verify": "a JSON report to re-run and compare",
    "--from-prereg": "a pre-registration file to measure",
    "--equivalent": "file of equivalent mutants",
    "--resume": "keep the journalled verdicts of an interrupted --out run",
    # model and paper quantities (the papers' names)
    "--variant": "model variant (score-model variant, trained variant, order-lattice member; plot: a filter)",
    "--gamma": "couplings g (PSA)",
    "--dk": "head width d_k",
    "--T": "context length T",
    "--c": "condensation constant c of the t4-only law",
    "--observable": "transition observable where the coupling gamma_c is read",
    "--method": "route: annealed, exact or mc",
    "--sigma0": "target score noise sigma_0",
    "--dtype": "kernel arithmetic (float32 or float64)",
    "--theta": "RoPE per-step angle theta",
    "--rope-base": "standard RoPE spectrum base B",
    "--placement": "shear placement (post or pre RoPE)",
    "--nu": "target concentration nu of geometric level profiles (GLLM Cor. 3)",
    "--mu": "data decay mu of geometric level profiles (GLLM Cor. 3)",
    "--alpha": "coordinate target-energy profile alpha_j (GLLM §6)",
    "--tau": "coordinate data-variance profile tau_j (GLLM §6)",
    "--a": "level target profile a_l = sum of alpha_j over level l (GLLM §6.5)",
    "--s": "level data profile s_l = sum of tau_j over level l (GLLM §6.5)",
    "--q": "candidate grades q (log-grades, Eq. 15)",
    "--g": "level grades g",
    "--lam": "base lambda of Lambda(q)",
    "--levels": "number of levels L",
    "--dims": "level sizes d_l",
    "--d": "design width d",
    "--sigma-xi": "noise standard deviation sigma_xi",
    "--clip": "grade clip C (grades in [1, C])",
    "--table3": "the rows of GLLM Table 3",
    "--m": "training sample sizes m",
    "--n-pilot": "pilot sample size",
    "--target": "target risk as a fraction of the null risk",
    "--degradation": "pilot sizes of the degradation sweep",
    "--draws": "pilots per size of the degradation sweep",
    # sizes of the computation
    "--samples": "Monte Carlo samples",
    "--reps": "Monte Carlo repetitions",
    "--points": "grid size",
    "--bootstrap": "bootstrap resamples",
    "--pilot-bootstrap": "bootstrap resamples of the pilot",
    "--repeat": "timed repetitions of a benchmark",
    "--warm-repeat": "warm repetitions of the certificate benchmark",
    "--baseline-samples": "samples of a benchmark's baseline",
    "--no-cold": "skip the cold-start measurement of a benchmark",
    "--steps": "training steps",
    # training
    "--task": "training task",
    "--pairs": "recall: key-value pairs",
    "--alphabet": "recall: shared alphabet size",
    "--padding": "recall: PAD tokens",
    "--vocab": "canonical task: vocabulary size",
    "--d-model": "residual width",
    "--mlp": "MLP width",
    "--batch": "sequences per step",
    "--lr": "peak learning rate",
    "--eval-size": "held-out sequences",
    "--init": "initialisation of the query and key projections (gamma-aware or plain)",
    "--lr-scale": "peak learning-rate scaling (none, or the paper's (1 + 2 gamma)^-2)",
    "--loss": "training loss (query position or whole sequence)",
    "--padding-placement": "recall: where the PAD tokens go (fixed or random)",
    # selection of what runs
    "--only": "certificate ids or catalogue rows to run",
    "--exact": "certify: --only names exact certificate ids; simulate: add the exact (quadrature) mass",
    "--list": "list what would run (catalogue coverage, mutants) and exit",
    "--fail-fast": "stop at the first failure",
    "--verbose": "print every certificate's evidence (short form -v)",
    "--package": "library packages to mutate",
    "--file": "library files to mutate",
    "--mutant": "mutant ids to run",
    "--max-mutants": "a seeded sample of N mutants",
    "--per-package": "a seeded sample of N mutants per package",
    "--certificates": "the certificates that judge the mutants",
    "--isolation": "how each mutant run starts (fork or exec)",
    "--show-survivors": "print every surviving mutant",
    "--scheduler": "an existing Dask scheduler",
    "--local-cluster": "a fresh Dask LocalCluster of N workers",
    "--predicted": "plot compare: predicted route",
    "--simulated": "plot compare: simulated route",
    "--axis": "plot gamma-c: horizontal axis",
    "--title": "figure title",
}
"""Every option name any command takes, with its one meaning."""

SHORT_FORMS = {"-h": "--help", "-o": "--out", "-v": "--verbose"}
"""The only single-letter spellings, each the short form of one long option."""
