"""Sentence clustering (Geiss 2009): judges' clusterings of a document set's sentences, compared with each other and with system clusterings.

Everything about the kind is in this folder; ``spec.py`` puts it together.
"""
