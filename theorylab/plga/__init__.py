"""Power Law Graph Attention (PLGA): the operator G_LM and its structural quantities.

Modules, each of one job; data flows one way (``params <- chain <- perron, notears, rope, diagnostics,
envelopes <- contraction``, an import-linter contract in pyproject.toml):

* :mod:`~theorylab.plga.params` -- parameters of one head and their reference initialisation (§3.1);
* :mod:`~theorylab.plga.chain` -- the forward chain G_LM and the scores (eqs. 3.1-3.9);
* :mod:`~theorylab.plga.perron` -- Perron-Frobenius data, the rank-one ``1 alpha^T`` (§3.3-3.4);
* :mod:`~theorylab.plga.notears` -- NOTEARS ``h(W)`` and the DAG-loss floor (§4.3);
* :mod:`~theorylab.plga.rope` -- the RoPE commutant and the rotary twirl (Prop. 4.1, Lemma 5.9);
* :mod:`~theorylab.plga.diagnostics` -- positivity margins, order parameter, density report,
  LayerNorm scale error, row stability (§3.2, §5.1-5.3);
* :mod:`~theorylab.plga.envelopes` -- derivative envelopes of SiLU and iSwiGLU (the authors' audit);
* :mod:`~theorylab.plga.contraction` -- diameter contraction of the metric learner's row map (Prop. 5.12).

:mod:`theorylab.plga.operator` is the former single module, a deprecated path kept for one release.
The public names of all of them are re-exported here.
"""
from __future__ import annotations

from theorylab.plga import chain, contraction, diagnostics, envelopes, notears, params, perron, rope
from theorylab.plga.chain import *  # noqa: F403
from theorylab.plga.contraction import *  # noqa: F403
from theorylab.plga.diagnostics import *  # noqa: F403
from theorylab.plga.envelopes import *  # noqa: F403
from theorylab.plga.notears import *  # noqa: F403
from theorylab.plga.params import *  # noqa: F403
from theorylab.plga.perron import *  # noqa: F403
from theorylab.plga.rope import *  # noqa: F403

__all__ = [name for module in (params, chain, perron, notears, rope, diagnostics, envelopes, contraction)
           for name in module.__all__]
