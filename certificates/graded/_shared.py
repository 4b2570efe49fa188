"""What several GLLM certificates share: Table 3 as printed in the paper and the float-vs-enclosure comparison."""
from __future__ import annotations

# Table 3 as printed in the paper (§7.6): the claim under test, not a computed value.
TABLE3_PRINTED = {
    ("0.5", "0.2"): ("0.279", "0.424", "2.36", ("1.00", "1.31", "2.00", "2.00")),
    ("0.6", "0.3"): ("0.459", "0.531", "1.88", ("1.00", "1.30", "2.00", "2.00")),
    ("0.7", "0.3"): ("0.534", "0.582", "1.72", ("1.00", "1.32", "1.95", "2.00")),
    ("0.8", "0.4"): ("0.700", "0.708", "1.41", ("1.00", "1.27", "1.69", "2.00")),
}
PROP10_PRINTED = ("0.459", "0.531")   # bound vs true Lambda*_C at (0.6, 0.3)


def near(x: float, enc, rel: float = 1e-12) -> bool:
    """A float computed value agrees with an enclosure up to float rounding (``rel``)."""
    return bool(float(enc.a) * (1 - rel) - 1e-300 <= x <= float(enc.b) * (1 + rel) + 1e-300)

