"""The kernel's Jinja templates, installed as the package ``gm.templates``.

This folder stays at the top of the project, and setup.cfg's ``package_dir``
maps it into gm. Being a regular package (this file) is what lets every kind
of install find it by that name: a wheel or an sdist install holds it as
gm/templates, and an editable install's import hook maps ``gm.templates``
to this folder, which a folder without ``__init__.py`` does not get (its
parent gm is searched on the disk, where no gm/templates is). gm reads the
templates through the package (`gm.pbem.writing.mailer.TEMPLATES`, the web's static
files), never through a path of its own.
"""
