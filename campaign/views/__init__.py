"""Campaign pages, one module per area and one view per page."""
