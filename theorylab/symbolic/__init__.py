"""SymPy derivations used by certificates. Identities are decided by exact polynomial
or rational arithmetic (``Poly(...).is_zero``), never by hoping ``simplify`` returns 0."""
