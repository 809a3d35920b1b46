"""One module per phase of the campaign turn (spec §3); each exposes `resolve`."""
