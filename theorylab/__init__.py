"""theorylab: compute, simulate and certify the claims of three ML-theory papers.

* Phase Space Attention (PSA): ``theorylab.psa``
* Power Law Graph Attention (PLGA): ``theorylab.plga``
* Graded LLMs (GLLM): ``theorylab.graded``

Every public function validates its input once and raises
:class:`ParameterError` (a ``ValueError``) naming the parameter and its valid range.
"""
from theorylab.errors import ParameterError

__version__ = "0.1.0"
__all__ = ["ParameterError", "__version__"]
