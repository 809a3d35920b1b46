"""`python -m rules <command> …`: the rules calculator (see rules.cli.calculator)."""

from rules.cli.calculator import main

raise SystemExit(main())
