"""Spaceships 2.6.1 (and its early rules and optional rules): the pure rules
core (state, fleet, notation, checking, resolution: no I/O, no clock, no
randomness of its own), its adapter to the kernel (`mail`), sheets, robot and
web page. Clause numbers such as [8.1.4] refer to the rules' text; rulings:
``docs/rulings.md``.
"""
