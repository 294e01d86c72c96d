"""Pair adjudication (Arehart, Wolf & Miller 2008): match / no-match judgments of name-search candidates, adjudicator agreement, truth sets and system evaluation.

Everything about the kind is in this folder; ``spec.py`` puts it together.
"""
