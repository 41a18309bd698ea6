"""archive: see gm/pbem/__init__.py for what lives here."""
