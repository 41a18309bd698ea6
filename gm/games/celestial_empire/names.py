"""Initial planet names for a Celestial Empire galaxy, made up from syllables.

The manual says planets start named (revision 1.9: "Planets start of named")
and that a name must be under 24 characters (section Naming, l.351). The
original game drew its names from a Latin word list (the turn sheet example
shows Abduco, Affirmare, Aeternus); gm makes its own instead: two or three
syllables from a small, bland inventory, plus sometimes an ending, which
gives pronounceable names such as "Toravis" or "Mendelon".

Deterministic: the names depend only on the `random.Random` passed in, which
is only asked for `choice` and `randrange` (whose results for a given seed
have not changed since Python 3.2; `random.sample` and `random.choices` are
avoided). Names are unique ignoring case, never "Earth" (Earth is named by
the galaxy), and never contain any of `BLOCKED`, a guard against the
syllables happening to spell a rude word.
"""

from __future__ import annotations

import itertools
import random

MAX_LENGTH = 10
"""Well under the manual's limit of 23 characters, so names fit the turn sheet's columns."""

ONSETS = ("", "b", "d", "g", "k", "l", "l", "m", "n", "n", "r", "r", "s", "t", "t", "v", "z",
          "br", "dr", "kr", "tr", "st", "th")
VOWELS = ("a", "a", "a", "e", "e", "i", "i", "o", "o", "u", "ae", "ia", "eo")
CODAS = ("", "", "", "", "", "", "n", "r", "l", "s")
ENDINGS = ("", "", "", "a", "on", "is", "us", "ar", "ia", "or", "el", "ea")

BLOCKED = ("anal", "anus", "arse", "ass", "bum", "butt", "cock", "crap", "cum", "damn", "dick", "dyke", "fag",
           "fart", "fuck", "gay", "hell", "homo", "jew", "kike", "kkk", "nazi", "nig", "nob", "pee", "penis",
           "piss", "poo", "porn", "puss", "rape", "sex", "shit", "slut", "spaz", "tit", "turd", "twat", "vag",
           "whor", "earth", "neutral")
"""Substrings (lower case) a name may not contain. "earth" and "neutral"
keep names from being mistaken for Earth or for the NEUTRAL owner."""


def syllable(rng: random.Random) -> str:
    """One syllable: an optional onset, a vowel, an optional coda."""
    return rng.choice(ONSETS) + rng.choice(VOWELS) + rng.choice(CODAS)


def planet_name(rng: random.Random) -> str:
    """One candidate name: two syllables and an optional ending, or three,
    capitalised. It may be too long or blocked; `planet_names` filters."""
    if rng.randrange(3):
        word = syllable(rng) + syllable(rng) + rng.choice(ENDINGS)
    else:
        word = syllable(rng) + syllable(rng) + syllable(rng)
    return word.capitalize()


def acceptable(name: str) -> bool:
    """Whether a candidate may be used: short enough, at least four letters,
    no vowel or consonant run of more than two, and nothing blocked."""
    lower = name.lower()
    if not 4 <= len(name) <= MAX_LENGTH or not lower.isalpha():
        return False
    if any(word in lower for word in BLOCKED):
        return False
    run = 1
    for before, after in itertools.pairwise(lower):
        run = run + 1 if (before in "aeiou") == (after in "aeiou") else 1
        if run > 2 or before == after:
            return False
    return True


def planet_names(rng: random.Random, count: int) -> list[str]:
    """``count`` distinct acceptable names, in the order drawn.

    Raises RuntimeError if they cannot be found in a bounded number of draws
    (the inventory allows hundreds of thousands of names, so for a galaxy's
    255 this never happens)."""
    names: list[str] = []
    seen: set[str] = set()  # membership only: the result's order never depends on it
    for _ in range(100 * count + 100):
        if len(names) == count:
            break
        name = planet_name(rng)
        if acceptable(name) and name.lower() not in seen:
            seen.add(name.lower())
            names.append(name)
    if len(names) != count:
        raise RuntimeError(f"found only {len(names)} of {count} planet names")
    return names
