"""Where players find each other and measure themselves: public names,
seeks, ratings and tournaments, as pure values and functions.

Like a game's rules core, nothing here does I/O, reads a clock or draws a
random number: the mail edge (`gm.pbem`) stores what players asked for and
the games' archives, and derives everything here from them, so a rebuild
from the archives always gives the same result. The league knows the
kernel's values (a game's end, its seats) and no game.
"""
