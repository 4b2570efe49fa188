"""The measured certificate costs that deal ``theorylab certify``'s work longest first."""
from theorylab.certify.costs import COST_SECONDS, UNMEASURED_SECONDS, cost_hint, longest_first
from theorylab.certify.registry import certificate_modules, discover


def test_every_costed_id_is_a_registered_certificate():
    assert set(COST_SECONDS) <= set(discover())       # a renamed certificate would silently lose its cost


def test_longest_first_orders_by_cost_and_keeps_ties_in_order():
    ids = ["P2", "A1.symbolic", "P3", "P8", "no-such-id"]
    assert cost_hint("no-such-id") == UNMEASURED_SECONDS
    assert longest_first(ids) == [1, 3, 0, 2, 4]        # 4.8 s, 2.5 s, then the unmeasured in given order


def test_certificate_modules_are_what_discovery_imports():
    names = certificate_modules()
    assert "theorylab.certificates.psa.symplectic" in names
    assert not any(".reference" in n for n in names)
    assert {spec.check.__module__ for spec in discover().values()} <= set(names)
