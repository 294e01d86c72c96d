"""Factoid analysis (van Halteren & Teufel 2004): factoid inventories and marks of summary sentences, their agreement, weighted factoid scores and stability.

Everything about the kind is in this folder; ``spec.py`` puts it together.
"""
