"""Stored data of an earlier format, brought to today's: the events and dice ledgers written
before the engine spoke in codes (format 1: English prose in reasons, outcomes and details)
are converted once, by a data migration for the database and on import for an export.
Each converter is frozen: it reads one old format and never changes with the engine."""
