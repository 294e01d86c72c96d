"""Orderings of items (Kim, Zhai & Han 2010): agreement between assessors' orderings and scores of system orderings against several of them.

Everything about the kind is in this folder; ``spec.py`` puts it together.
"""
