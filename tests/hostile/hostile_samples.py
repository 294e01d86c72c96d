"""A small topic of every kind and a complete, valid payload for each (shared by tests/hostile),
and hostile text."""

import unicodedata

from kinds.registry import KINDS

#: Each kind's example topic and a complete, valid payload of it (the kind's
#: own examples, kinds/<kind>/examples.py).
TOPICS = {name: dict(spec.examples.topic) for name, spec in KINDS.items()}
PAYLOADS = {name: dict(spec.examples.payloads[0]) for name, spec in KINDS.items()}

# -- hostile text ---------------------------------------------------------------


#: Text a client can send that no response or database should choke on: lone
#: surrogates (not encodable as UTF-8), NUL (PostgreSQL refuses it), an
#: over-long string, and one id in both Unicode normalisation forms.
HOSTILE_STRINGS = [
    "\ud800",
    "a\udfffb",
    "\udc00\ud800",  # a pair in the wrong order: two lone surrogates
    "\x00",
    "c1\x00",
    "x" * 200_001,
    unicodedata.normalize("NFC", "caf\u00e9"),
    unicodedata.normalize("NFD", "caf\u00e9"),
    unicodedata.normalize("NFD", "\u00c5ngstr\u00f6m"),
    "\U0001f600",  # an ordinary astral character (a valid surrogate pair in JSON)
]


def hostile_text():
    """A Hypothesis strategy: one of the strings above, or short text with a
    surrogate, a NUL or combining marks mixed in."""
    from hypothesis import strategies as st

    mixed = st.text(
        st.characters(codec=None, categories=["L", "Mn", "Cs", "Cc"], include_characters="\x00\u0301\u0308"),
        min_size=1,
        max_size=8,
    )
    return st.sampled_from(HOSTILE_STRINGS) | mixed
