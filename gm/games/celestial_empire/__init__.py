"""Celestial Empire (1992), the economic and military game of up to nine
empires in a galaxy of 256 planets, after ../shared/rules/celestial-empire-manual.tex.

The galaxy (`galaxy`), the orders' notation (`notation`,
`celestial_empire.lark`), the state (`state`) and the turn (`turn`, which
runs the steps `steps` lists in the manual's order, each writing to the
turn's `report`), the sheets (`sheets`) and the
kernel's adapter (`mail`). docs/celestial_empire/ holds the specification
read from the manual, the rulings where the manual is silent or contradicts
itself, and the players' guide.
"""
