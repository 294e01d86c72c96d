"""A small topic of every kind and a complete, valid payload for each (shared by tests/hostile)."""

TOPICS = {
    "pairs": {"query": "John Smith", "candidates": [{"id": "c1", "text": "Jon Smith"}, {"id": "c2", "text": "J. Smyth"},
                                                    {"id": "c3", "text": "Joan Smit", "runs": ["sys1"]}]},
    "ordering": {"items": [{"id": "a", "text": "Boil water"}, {"id": "b", "text": "Add tea"},
                           {"id": "c", "text": "Pour"}]},
    "clustering": {
        "documents": [{"id": "d1", "title": "One"}, {"id": "d2"}],
        "sentences": [
            {"id": "s1", "document": "d1", "position": 0, "text": "The volcano erupted."},
            {"id": "s2", "document": "d1", "position": 1, "text": "Ash fell on the town."},
            {"id": "s3", "document": "d2", "position": 0, "text": "An eruption began on Monday."},
            {"id": "s4", "document": "d2", "position": 1, "text": "Flights were cancelled."},
        ],
    },
    "nuggets": {
        "target": "Aspirin",
        "nuggets": [{"id": "n1", "text": "a painkiller", "label": "vital"}, {"id": "n2", "text": "made by Bayer"},
                    {"id": "n3", "text": "thins blood"}],
        "responses": [{"id": "r1", "run": "sysA", "text": "Aspirin is a painkiller."},
                      {"id": "r2", "run": "sysB", "text": "Bayer sells it."}],
    },
    "factoids": {
        "text": "Iraq invaded Kuwait.",
        "summaries": [
            {"id": "M1", "author": "ann-a", "sentences": [{"id": "m1s1", "text": "Iraq invaded Kuwait."},
                                                         {"id": "m1s2", "text": "Oil went up."}]},
            {"id": "S1", "run": "sys-1", "sentences": [{"id": "x1", "text": "Kuwait was invaded."}]},
        ],
    },
}

#: A complete, valid payload for each topic above.
PAYLOADS = {
    "pairs": {"matches": {"c1": True, "c2": False, "c3": True}},
    "ordering": {"order": ["b", "a", "c"]},
    "clustering": {"clusters": [["s1", "s3"], ["s2", "s4"]], "descriptions": ["eruption", "effects"]},
    "nuggets": {"labels": {"n1": "vital", "n2": "okay", "n3": "okay"}, "matches": {"r1": ["n1"], "r2": []}},
    "factoids": {"factoids": [{"id": "F1", "text": "Iraq invaded Kuwait"}, {"id": "F2", "text": "Oil rose"}],
                 "marks": {"m1s1": ["F1"], "m1s2": ["F2"], "x1": ["F1"]}},
}

# -- hostile text (issue 11, item 2) ---------------------------------------------------------------

import unicodedata

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
        min_size=1, max_size=8,
    )
    return st.sampled_from(HOSTILE_STRINGS) | mixed
