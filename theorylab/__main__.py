"""``python -m theorylab`` runs the CLI."""
import sys

from theorylab.cli import exit_interrupted, main

status = main()
if status == 130:
    exit_interrupted()
sys.exit(status)
