"""Names people can read: the rule for every name a client gives (a player's, an anonymous seat's, a bot seat's).

A name is shown to other people as it is, so it must show something, stay on one line, keep to a
size, and not pass for one of the service's own players. :func:`checked_name` applies, in order:

1. **The PRECIS nickname profile** (RFC 8266, as `precis-i18n` implements it): width mapping and
   NFKC (``Ａna`` is ``Ana``), every space a plain one, none at either end, none doubled; refused
   are control, format and unassigned characters, default-ignorable ones (U+200B, U+2060, U+17B4 …),
   joiners outside the scripts that need them, old Hangul jamo (the fillers U+1160, U+3164, U+FFA0
   become them), and separators other than the space (U+2028, U+2029).
2. **It shows something**: at least one grapheme cluster that starts with a letter, a digit, a
   punctuation mark or a symbol that draws ink (:data:`BLANKS` lists the symbols that do not:
   U+2800 BRAILLE PATTERN BLANK …). A name of only marks, spaces and blanks is refused.
3. **Its size**: at most :data:`MAX_GRAPHEMES` grapheme clusters (what a reader counts as
   characters: ``é`` written as ``e`` and a combining accent is one) and :data:`MAX_CODE_POINTS` code
   points. Together they bound a Zalgo stack (one letter can carry at most 79 marks, and the name
   then has no room for more) and a run of the widest glyphs (forty of U+FDFD at most).
4. **Not the service's own**: :data:`RESERVED` (the bots' names, also with the letter that tells two
   bots of one strength apart, and the name of a deleted account) are refused, and so is every name whose confusable skeleton (Unicode TR39, over the
   confusables data `confusable_homoglyphs` ships) equals one of theirs, the skeleton taken of the name
   as written and case-folded, each folded after: a Cyrillic ``Ехреrt bot`` is ``Expert bot``,
   ``Basic b0t`` is ``Basic bot``, a Greek capital ``Εxpert bot`` and ``DeIeted player`` (capital I) too.
   Small capitals read as their letters, but the data maps few of them: each Latin small capital of
   one letter (``ᴇ``, ``ʀ``, ``ʙ`` …, by its Unicode name) is taken as that letter, so ``ᴇxpert bot``
   and ``ʙasic bot`` are refused as well.

The name kept is the profile's output (case preserved). :func:`name_problem` says what is wrong, or None.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from functools import cache

import precis_i18n
import regex

__all__ = [
    "BLANKS",
    "BOT_NAMES",
    "DELETED_PLAYER",
    "MAX_CODE_POINTS",
    "MAX_GRAPHEMES",
    "RESERVED",
    "NameRefused",
    "checked_name",
    "name_problem",
    "skeleton",
]

MAX_GRAPHEMES = 40
MAX_CODE_POINTS = 80
DELETED_PLAYER = "Deleted player"
BOT_NAMES = ("Random bot", "Basic bot", "Expert bot", "Master bot")
# The bot strengths' players' names, with the letters that tell two bots of one strength apart at a
# table ("Expert bot A"), and a deleted account's.
RESERVED = (*BOT_NAMES, *(f"{name} {letter}" for name in BOT_NAMES for letter in "ABC"), DELETED_PLAYER)
# Symbols and letters that PRECIS lets through but that draw nothing.
BLANKS = frozenset("\u2800\u3164\uffa0\u115f\u1160\u17b4\u17b5\U0001d159")
_VISIBLE_CATEGORIES = ("L", "N", "P", "S")

# Where the small capitals are (IPA extensions, phonetic extensions and their supplement, Latin Extended-D and -F,
# Latin Extended-G), and how their names say which letter each is.
_SMALL_CAPITAL_BLOCKS = (
    range(0x0250, 0x0300),
    range(0x1D00, 0x1DC0),
    range(0xA720, 0xA800),
    range(0x10780, 0x107C0),
    range(0x1DF00, 0x1E000),
)
_SMALL_CAPITAL = regex.compile(r"^(?:LATIN|MODIFIER) LETTER SMALL CAPITAL ([A-Z])$")

_PROFILE = precis_i18n.get_profile("NicknameCasePreserved")
_FOLDED = precis_i18n.get_profile("NicknameCaseMapped")
_GRAPHEME = regex.compile(r"\X")

# The PRECIS profile's reasons for refusing a character (``DISALLOWED/<reason>``), in words.
_DISALLOWED = {
    "controls": "a control character",
    "precis_ignorable_properties": "an invisible (default-ignorable) character",
    "zero_width_joiner": "a zero-width joiner",
    "zero_width_nonjoiner": "a zero-width non-joiner",
    "old_hangul_jamo": "a Hangul filler or old jamo",
    "unassigned": "an unassigned code point",
    "other": "a character names may not hold (a line or paragraph separator, a private-use or surrogate code point …)",
}


class NameRefused(ValueError):
    """A name the rule refuses; the message says which part of the rule, for ``errors.name``."""


def checked_name(text: str) -> str:
    """The name to keep for ``text`` (the PRECIS nickname profile's output), or :class:`NameRefused`."""
    try:
        name: str = _PROFILE.enforce(text)
    except UnicodeEncodeError as error:
        raise NameRefused(_refusal(error)) from None
    if not any(_shows_ink(cluster) for cluster in _GRAPHEME.findall(name)):
        raise NameRefused("Must show something: only spaces, marks or blank characters are not a name.")
    if len(name) > MAX_CODE_POINTS:
        raise NameRefused(f"Must be at most {MAX_CODE_POINTS} code points.")
    if len(_GRAPHEME.findall(name)) > MAX_GRAPHEMES:
        raise NameRefused(f"Must be at most {MAX_GRAPHEMES} characters (grapheme clusters).")
    if not _reserved_skeletons().isdisjoint(_reserved_forms(name)):
        raise NameRefused("Is reserved: it is, or looks like, a name of the service's own players.")
    return name


def name_problem(text: str) -> str | None:
    """What the rule finds wrong with ``text``, or None if it is a name."""
    try:
        checked_name(text)
    except NameRefused as refused:
        return str(refused)
    return None


def skeleton(text: str) -> str:
    """The confusable skeleton of ``text`` (Unicode TR39, section 4): NFD, each character replaced by
    its prototype in the confusables data, NFD again. Two strings that look alike have one skeleton."""
    prototypes = _prototypes()
    return unicodedata.normalize(
        "NFD", "".join(prototypes.get(char, char) for char in unicodedata.normalize("NFD", text))
    )


def _shows_ink(cluster: str) -> bool:
    base = cluster[0]
    return base not in BLANKS and unicodedata.category(base).startswith(_VISIBLE_CATEGORIES)


def _refusal(error: UnicodeEncodeError) -> str:
    reason = error.reason.partition("/")[2]
    if reason == "empty":
        return "Must not be empty (or only white space)."
    char = error.object[error.start] if error.start < len(error.object) else ""
    named = unicodedata.name(char, "")
    code = (f"U+{ord(char):04X} ({named})" if named else f"U+{ord(char):04X}") if char else "a character"
    what = _DISALLOWED.get(reason, "a character the nickname profile of PRECIS (RFC 8266) refuses")
    return f"Must not contain {code}: {what}."


def _reserved_forms(name: str) -> frozenset[str]:
    """The skeletons of the name as written and case-folded, each folded again (``b0t``'s skeleton
    ``bOt`` is ``bot``). Both: folding first loses what only the capital looks like (Greek ``Ε`` folds
    to ``ε``, whose skeleton is not ``e``; ``I`` folds to ``i``, while its skeleton is ``l``), and
    the skeleton first loses what only the small letter looks like."""
    return frozenset((skeleton(_FOLDED.enforce(name)).casefold(), skeleton(name).casefold()))


@cache
def _reserved_skeletons() -> frozenset[str]:
    return frozenset(form for name in RESERVED for form in _reserved_forms(name))


@cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype, from `confusable_homoglyphs`' data.

    The library keeps Unicode's confusables.txt (``source ; prototype``) in both directions: a source
    character lists its one prototype, and a prototype lists its sources. A prototype is never itself
    a source, so a character naming one other that names several (or a sequence) is a source. Where
    two characters each name only the other, either may be the prototype: both map to the smaller, so
    their skeletons still agree (a skeleton is for comparing, not for showing).
    """
    from confusable_homoglyphs.confusables import confusables_data  # loads its JSON data: only when needed

    prototypes: dict[str, str] = {}
    for char, entries in confusables_data.items():
        targets = _targets(entries)
        if len(char) != 1 or len(targets) != 1:
            continue  # a sequence, or a prototype (it lists its sources)
        target = targets[0]
        back = _targets(confusables_data.get(target, ()))
        prototypes[char] = target if len(target) > 1 or len(back) > 1 else min(char, target)
    # A small capital is its letter, whatever the data says (it pairs some with another look-alike instead).
    letters = {char: prototypes.get(letter, letter) for char, letter in _small_capitals()}
    prototypes = {char: letters.get(prototype, prototype) for char, prototype in prototypes.items()}
    return prototypes | letters


def _small_capitals() -> Iterable[tuple[str, str]]:
    """Each Latin small capital of one letter, with that letter (small): ``ᴇ`` is ``e``, ``ʀ`` is ``r``."""
    for block in _SMALL_CAPITAL_BLOCKS:
        for code in block:
            match = _SMALL_CAPITAL.match(unicodedata.name(chr(code), ""))
            if match:
                yield chr(code), match[1].lower()


def _targets(entries: Iterable[dict[str, str]]) -> list[str]:
    return [entry["c"] for entry in entries]
