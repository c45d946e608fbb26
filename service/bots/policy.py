"""The greedy rules of the basic bot, over masks: also the policy the expert's playouts follow.

Each rule sees only what its seat knows: its hand, the cards still unseen by it (the other
hands together, from public information) and the cards of the trick so far. Each returns the
bit of the card to play and a short reason.
"""

from __future__ import annotations

from .bits import COINS, SUIT_MASKS, lowest, winning_seconds, winning_thirds

__all__ = ["choose", "lead", "follow", "close", "sure_seconds"]

TAKE_WITH_COIN = "takes the trick with a coin, as cheaply as possible"
TAKE_COINS = "takes the coins on the table as cheaply as possible"
SURE_COIN = "plays a coin that no unseen card can beat"
SURE_TAKE = "takes the coin led with a card no unseen card can beat"
DUMP = "throws away its cheapest card that holds no coin"
DUMP_COIN = "has only coins it cannot win with: throws the cheapest"
TAKE_EMPTY = "takes a trick with no coins rather than give one away"
LEAD_LOW = "leads its cheapest card that holds no coin"
LEAD_COIN = "has only coins left: leads the cheapest"


def choose(hand: int, unseen: int, trick: tuple[int, ...]) -> tuple[int, str]:
    """The card (bit) and reason for a seat holding ``hand`` with ``trick`` on the table."""
    if not trick:
        return lead(hand)
    if len(trick) == 1:
        return follow(hand, unseen, trick[0])
    return close(hand, trick[0], trick[1])


def lead(hand: int) -> tuple[int, str]:
    """Lead the cheapest non-coin card: the last seat decides most tricks, so keep coins back."""
    plain = hand & ~COINS
    if plain:
        return lowest(plain), LEAD_LOW
    return lowest(hand), LEAD_COIN


def follow(hand: int, unseen: int, lead_bit: int) -> tuple[int, str]:
    """Second to play: take only what no unseen card can take back, else throw a cheap card."""
    sure = sure_seconds(hand, unseen, lead_bit)
    if sure & COINS:
        return lowest(sure & COINS), SURE_COIN
    if sure and COINS >> lead_bit & 1:
        return lowest(sure), SURE_TAKE
    return _dump(hand)


def sure_seconds(hand: int, unseen: int, lead_bit: int) -> int:
    """The cards of ``hand`` that win the trick played second after ``lead_bit``, whatever unseen card comes third."""
    suit = SUIT_MASKS[lead_bit & 3]
    if unseen & suit:
        # A third card of the led suit pairs with the lead, so only a card of that suit above
        # the lead and above every unseen card of the suit is sure to win.
        top = max(lead_bit, (unseen & suit).bit_length() - 1)
        return hand & suit & ~((2 << top) - 1)
    sure = 0
    rest = hand
    while rest:
        low = rest & -rest
        rest ^= low
        if not unseen & ~winning_seconds(lead_bit, low.bit_length() - 1):
            sure |= low
    return sure


def close(hand: int, lead_bit: int, second: int) -> tuple[int, str]:
    """Last to play: the trick is known, so win it when it pays, else lose it cheaply."""
    wins = hand & winning_thirds(lead_bit, second)
    if wins & COINS:
        return lowest(wins & COINS), TAKE_WITH_COIN
    on_table = (COINS >> lead_bit & 1) + (COINS >> second & 1)
    if wins and on_table:
        return lowest(wins), TAKE_COINS
    safe = hand & ~wins & ~COINS
    if safe:
        return lowest(safe), DUMP
    if wins:
        return lowest(wins), TAKE_EMPTY
    return lowest(hand), DUMP_COIN


def _dump(hand: int) -> tuple[int, str]:
    plain = hand & ~COINS
    if plain:
        return lowest(plain), DUMP
    return lowest(hand), DUMP_COIN
