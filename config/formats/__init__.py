"""The date formats of the site's languages where Django's own do not suit it
(`FORMAT_MODULE_PATH`): English dates as in Britain, not in America. Italian keeps Django's
("07/12/2026 18:40")."""
