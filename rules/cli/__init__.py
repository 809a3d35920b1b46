"""The engine's command-line edge: the rules calculator (`python -m rules`) and the process
pool that shares a simulation out. Unlike the rest of rules/, this package reads files and
stdin, picks fresh seeds, reads a clock and starts processes.

- calculator: `main`, `calculate`, `build_parser`; the commands in check_commands and
  turn_commands, their options in arguments, their input files in files, the registry in
  registry
- pool: `odds_pool(runs)`, the pool to pass to `rules.tactical.simulate`
"""
