"""`python -m rules <command> …`: the rules calculator (see rules.calculator)."""

from rules.calculator import main

raise SystemExit(main())
