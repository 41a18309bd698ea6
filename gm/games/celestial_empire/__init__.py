"""Celestial Empire (1992), the economic and military game of up to nine
empires in a galaxy of 256 planets, after ../shared/rules/celestial-empire-manual.tex.

Being built in steps (issue 11): the galaxy (`galaxy`), the orders'
notation (`notation`, `celestial_empire.lark`), and the rules core. Not yet
registered with the kernel, so gm does not offer it until it can be played
by mail to the end.
"""
