"""Certificates: runnable checks of the claims catalogue (``theorylab.certify.catalogue``).

A certificate is a function registered with :func:`certificate`. It takes only
keyword arguments whose defaults are the library functions under test (so a
mutation test can pass a deliberately wrong one and see FAIL) and returns an
:class:`Outcome`. The runner times it, catches errors (status ERROR), hashes its
raw arrays and builds a :class:`Certificate` record.
"""
from theorylab.certify.record import (METHODS, STATUSES, Certificate, Evidence, Outcome, Skip, bound,
                                      computed, proxy)
from theorylab.certify.registry import REGISTRY, CertificateSpec, certificate, discover, select
from theorylab.certify.runner import environment, run, run_one

__all__ = ["METHODS", "STATUSES", "Certificate", "Evidence", "Outcome", "Skip", "bound", "computed", "proxy",
           "REGISTRY", "CertificateSpec", "certificate", "discover", "select", "environment", "run", "run_one"]
