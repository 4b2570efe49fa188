"""``python -m theorylab`` runs the CLI."""
import sys

from theorylab.cli import main

sys.exit(main())
