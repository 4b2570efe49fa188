"""geometric_profiles refuses levels whose smallest NORMALISED mass underflows (full support, Cor. 3).

Before the fix the check ran on nu^(L-1) before dividing by the sum, so at nu = 1/2, L = 1075 it accepted
2^-1074 and returned a_0 = 2^-1074 / 2 = 0: a profile without full support.
"""
import numpy as np
import pytest

from theorylab.errors import ParameterError
from theorylab.graded import grades


@pytest.mark.parametrize("nu, mu", [(0.5, 0.9), (0.9, 0.5), (0.5, 0.5)])
def test_support_boundary_is_on_the_normalised_masses(nu, mu):
    a, s = grades.geometric_profiles(nu, mu, 1074)
    assert a.min() > 0 and s.min() > 0
    assert min(a.min(), s.min()) == 2.0 ** -1074
    with pytest.raises(ParameterError, match="levels"):
        grades.geometric_profiles(nu, mu, 1075)
