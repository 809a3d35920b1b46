"""Battle pages, one module per page or group of pages: the pack and its print sheets
(`pack`), the campaign's battle history and each battle's report (`history`)."""
