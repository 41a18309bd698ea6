"""Earth's economy: trading ore (step 8), contracting Earth's industry
(step 9) and the market's movement at the end of the turn (manual §Trading
and Earth Contracting l.736-874; spec 3.4, 5.10, 7.8, 7.9; rulings R-27 to
R-30, R-34).

The manual gives Earth a living market (prices on the sheet, stock, industry
for hire, reserves when damaged) but no numbers for how it moves; the model
here is gm's (R-27), with every constant named below so a game master can
read and tune it. Earth's market stock (`Market.stock`) is what empires buy
from and sell to; it is not the Earth planet's own ore, which only an empire
holding Earth would use like any planet of its own (R-34).

Payments take Earth credits first, then score at the Credits:Score rate
(R-29); every order is cut to what can be paid, carried and afforded (P1).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from .answers import Limit, outcome, own_ship, reduce
from .formulas import BUILD_SHIP_UNIT, sell_price
from .galaxy import EARTH_PDUS, ORE_TYPES
from .industry import UNIT_NAMES, add_units, unit_cost
from .orders import BuyOre, Contract, Order, SellAllOre, SellOre
from .report import Report
from .rotation import in_sub_steps
from .state import NEUTRAL, Empire, GameState, Planet, Ship

# Trade
EARTH_NEEDS = 100
"""Limited Selling: "Earth thinks it needs about 100 of each type of ore"; it
buys no more than this less its stock (l.853-856, R-28)."""

# The end-of-turn market model: gm's invention, every figure a constant.
PRICE_STEP = 1
"""A price moves by this much a turn, up when more was bought than sold, down when more was sold."""
PRICE_FLOOR = 1
"""No price falls below this."""
STOCK_TARGET = 100
"""Earth's stock of each ore drifts towards this (Earth's own "mining")..."""
STOCK_RECOVERY = 10
"""... by at most this many units a turn."""
INDUSTRY_GROWTH = 5
"""Industry Earth builds in a turn when the bids asked for more than it had."""
INDUSTRY_CAP = 200
"""Earth builds no industry beyond this."""
EARTH_FULL_PDUS = EARTH_PDUS
"""Earth's PDUs at the start of the game (200, l.2297), to which it rebuilds."""
PDU_REBUILD = 20
"""PDUs Earth rebuilds in a turn while below `EARTH_FULL_PDUS` and neutral."""
RESERVE_BELOW = EARTH_FULL_PDUS // 2
"""While Earth has fewer PDUs than this it reserves for its defence ..."""
RESERVE_SHARE = 2
"""... one in this many of its industry and of each ore stock, rounded up (l.793-795, l.829-831)."""


def damaged(earth: Planet) -> bool:
    """Earth keeps reserves while its PDUs are below half their starting number (R-27)."""
    return earth.pdus < RESERVE_BELOW


def withheld(amount: int, earth: Planet) -> int:
    """How much of ``amount`` Earth keeps for its defence now."""
    return -(-amount // RESERVE_SHARE) if damaged(earth) else 0


def ore_for_sale(state: GameState, ore_type: int) -> int:
    """The ore of one type empires may buy now: the market's stock less reserves."""
    stock = state.market.stock[ore_type]
    return stock - withheld(stock, state.planets[state.earth])


def industry_for_hire(state: GameState, report: Report) -> int:
    """Earth's industry not yet used this turn, less reserves (R-27, R-53)."""
    earth = state.planets[state.earth]
    return max(0, report.free_industry(earth) - withheld(earth.industry, earth))


def funds(state: GameState, empire: Empire) -> int:
    """What the empire can pay, in credits: its credits, and its score at the Credits:Score rate (R-29)."""
    return empire.credits + max(0, empire.score) // state.market.score_per_credit


def pay(state: GameState, empire: Empire, cost: int) -> str:
    """Take ``cost`` credits from the empire, credits first, then score at the
    Credits:Score rate for the rest (R-29); says what was paid."""
    assert 0 <= cost <= funds(state, empire)
    from_credits = min(cost, empire.credits)
    points = (cost - from_credits) * state.market.score_per_credit
    empire.credits -= from_credits
    empire.score -= points
    return f"paid {from_credits} credits" + (f" and {points} score" if points else "")


def _away_from_earth(state: GameState, ship: Ship, doing: str) -> str:
    """Why ``ship`` cannot trade or take a contract where it is ("" over Earth)."""
    if ship.planet != state.earth:
        return f"{doing} only over Earth (planet {state.earth}); ship {ship.number} is at planet {ship.planet}"
    return ""


def selling_limit(state: GameState, ore_type: int) -> int | None:
    """What Earth still buys of one ore type this turn: None with Unlimited
    Selling, else 100 less its stock, shrinking as it buys (R-28)."""
    if not state.market.limited_selling:
        return None
    return max(0, EARTH_NEEDS - state.market.stock[ore_type])


TRADE_STEPS: tuple[type, ...] = (SellAllOre, SellOre, BuyOre)
"""Step 8's sub-steps: a global selling, b selling, c buying (l.232-236)."""


def trading(state: GameState, orders: Sequence[tuple[int, Order]], report: Report) -> None:
    """``SxxxX``, ``SxxxXyyRz``, ``SxxxPyyRz``: an own ship over Earth sells
    ore from its hold at two thirds of the sheet's price (R-28) or buys ore
    into its hold at the price (R-29); prices stay as printed for the whole
    turn (R-27). Earth need not be neutral (R-34)."""
    for empire, order in in_sub_steps(orders, TRADE_STEPS):
        assert isinstance(order, (SellAllOre, SellOre, BuyOre))
        found = own_ship(state, empire, order.ship, order, report)
        if found is None:
            continue
        away = _away_from_earth(state, found, "ore is traded")
        if away:
            report.refused(empire, order, away)
        elif isinstance(order, SellAllOre):
            _sell_all(state, empire, found, order, report)
        elif isinstance(order, SellOre):
            _sell(state, empire, found, order, report)
        else:
            assert isinstance(order, BuyOre)
            _buy(state, empire, found, order, report)


def _sale(state: GameState, ship: Ship, ore_type: int, amount: int, report: Report) -> None:
    """Move ``amount`` ore from the ship's hold to Earth's stock."""
    ship.hold.ore[ore_type] -= amount
    state.market.stock[ore_type] += amount
    report.earth_trade.sold[ore_type] += amount


def _sell(state: GameState, empire: int, ship: Ship, order: SellOre, report: Report) -> None:
    z = order.ore_type
    limits: list[Limit] = [(ship.hold.ore[z], f"R{z}", f"{ship.hold.ore[z]} ore {z} in the hold")]
    limit = selling_limit(state, z)
    if limit is not None:
        limits.append((limit, "EL", f"Earth buys only {limit} more ore {z} this turn"))
    n, code, why = reduce(order.amount, limits)
    if n == 0:
        report.refused(empire, order, f"{code}: {why}" if code else "no ore asked for")
        return
    credits = sell_price(state.market.price[z], n)
    _sale(state, ship, z, n, report)
    state.empires[empire].credits += credits
    report.did(empire, order, outcome(dataclasses.replace(order, amount=n), code, why, f"{credits} credits"))


def _sell_all(state: GameState, empire: int, ship: Ship, order: SellAllOre, report: Report) -> None:
    """All ore but fuel (type 0, l.861-862), each type as far as Earth buys
    it; one rounding for the whole order (R-28)."""
    sold: list[str] = []
    cut: list[str] = []
    value = 0
    for z in range(1, ORE_TYPES):
        have = ship.hold.ore[z]
        limit = selling_limit(state, z)
        n = have if limit is None else min(have, limit)
        if n < have:
            cut.append(f"ore {z} ({have - n} kept)")
        if n:
            value += n * state.market.price[z]
            _sale(state, ship, z, n, report)
            sold.append(f"{n} ore {z}")
    if not sold:
        report.refused(empire, order, "EL: Earth buys no more of the ore in the hold" if cut
                       else "no ore but fuel in the hold")
        return
    credits = sell_price(value, 1)
    state.empires[empire].credits += credits
    code, why = ("EL", "Earth's limit on " + ", ".join(cut)) if cut else ("", "")
    report.did(empire, order, outcome(order, code, why, f"sold {', '.join(sold)} for {credits} credits"))


def _buy(state: GameState, empire: int, ship: Ship, order: BuyOre, report: Report) -> None:
    z, price = order.ore_type, state.market.price[order.ore_type]
    payer = state.empires[empire]
    stock = ore_for_sale(state, z)
    room = max(0, ship.free_space())
    n, code, why = reduce(order.amount, [
        (stock, f"R{z}", f"Earth has {stock} ore {z} for sale"),
        (room, "C", f"{room} cargo units free"),
        (funds(state, payer) // price, "$", f"credits and score pay for {funds(state, payer) // price}"),
    ])
    if n == 0:
        report.refused(empire, order, f"{code}: {why}" if code else "no ore asked for")
        return
    paid = pay(state, payer, n * price)
    state.market.stock[z] -= n
    ship.hold.ore[z] += n
    report.earth_trade.bought[z] += n
    report.did(empire, order, outcome(dataclasses.replace(order, amount=n), code, why, paid))


def contracting(state: GameState, orders: Sequence[tuple[int, Order]], report: Report) -> None:
    """``SxxxByyCzz`` (and F, T, S): bids of ``zz`` credits an industry for
    Earth to build units onto an own ship over Earth from the ore in that
    ship's hold. All valid bids of the turn, the four unit types together,
    are taken from the highest price down, equal prices in R-11's order; each
    takes what it needs of Earth's industry and can pay and has ore for, the
    rest passes to the next (R-30). A bid that gets nothing costs nothing
    (l.772-773)."""
    bids: list[tuple[int, Contract, Ship]] = []
    for empire, order in orders:
        assert isinstance(order, Contract)
        found = own_ship(state, empire, order.ship, order, report)
        if found is None:
            continue
        away = _away_from_earth(state, found, "bids are made")
        minimum = state.market.minimum_bids.get(order.unit, 1)
        if away:
            report.refused(empire, order, away)
        elif found.is_empty_hull():
            report.refused(empire, order, "units cannot be built onto an empty hull over Earth: "
                                          "it is Earth's (l.763-764)")
        elif order.bid < minimum:
            report.refused(empire, order, f"ignored: the minimum bid for {UNIT_NAMES[order.unit]} units "
                                          f"is {minimum}")
        elif order.amount <= 0:
            report.refused(empire, order, "no units asked for")
        else:
            bids.append((empire, order, found))
            report.earth_trade.industry_asked += order.amount * BUILD_SHIP_UNIT[order.unit][2]
    earth = state.planets[state.earth]
    report.earth_trade.industry_offered = industry_for_hire(state, report)
    for empire, order, ship in sorted(bids, key=lambda bid: -bid[1].bid):
        ore, industry = unit_cost(order.unit)
        free = industry_for_hire(state, report)
        payer = state.empires[empire]
        limits: list[Limit] = [(free // industry, "I", f"higher bids left {free} of Earth's industry")]
        limits += [(ship.hold.ore[t] // ore[t], f"R{t}", f"{ship.hold.ore[t]} ore {t} in the ship's hold")
                   for t in range(ORE_TYPES) if ore[t]]
        limits.append((funds(state, payer) // (order.bid * industry), "$",
                       f"credits and score pay for {funds(state, payer) // (order.bid * industry)}"))
        n, code, why = reduce(order.amount, limits)
        if n == 0:
            report.refused(empire, order, f"nothing built, nothing paid: {code}: {why}")
            continue
        report.use_industry(earth, n * industry)
        for t in range(ORE_TYPES):
            ship.hold.ore[t] -= n * ore[t]
        add_units(ship, order.unit, n)
        paid = pay(state, payer, n * industry * order.bid)
        report.did(empire, order, outcome(dataclasses.replace(order, amount=n), code, why, paid))


def earth_market(state: GameState, report: Report) -> None:
    """Earth's market, industry and PDUs move for the next turn (R-27; gm's
    model, the manual has none). It must run last, after the score step
    (step 24) and the other end-of-turn steps, so the turn is scored and
    ended on the prices and stock the sheet printed: it is the last entry
    of `steps.END_OF_TURN`.

    * each ore type: price up `PRICE_STEP` if empires bought more than they
      sold this turn, down if they sold more (never below `PRICE_FLOOR`);
      stock moves towards `STOCK_TARGET` by up to `STOCK_RECOVERY`;
    * industry: up `INDUSTRY_GROWTH` (to `INDUSTRY_CAP`) if the bids asked
      for more than Earth had for hire;
    * PDUs: while NEUTRAL holds Earth, up `PDU_REBUILD` a turn to
      `EARTH_FULL_PDUS` (an empire holding Earth rebuilds nothing, R-34).
    """
    market, trade = state.market, report.earth_trade
    for z in range(ORE_TYPES):
        if trade.bought[z] > trade.sold[z]:
            market.price[z] += PRICE_STEP
        elif trade.sold[z] > trade.bought[z]:
            market.price[z] = max(PRICE_FLOOR, market.price[z] - PRICE_STEP)
        gap = STOCK_TARGET - market.stock[z]
        market.stock[z] += max(-STOCK_RECOVERY, min(STOCK_RECOVERY, gap))
    earth = state.planets[state.earth]
    if trade.industry_asked > trade.industry_offered and earth.industry < INDUSTRY_CAP:
        earth.industry = min(INDUSTRY_CAP, earth.industry + INDUSTRY_GROWTH)
    if earth.owner == NEUTRAL and earth.pdus < EARTH_FULL_PDUS:
        earth.pdus = min(EARTH_FULL_PDUS, earth.pdus + PDU_REBUILD)
