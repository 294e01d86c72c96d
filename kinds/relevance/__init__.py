"""Graded relevance (TREC-style): grade each pooled document of a query, assessor agreement
(Cohen's kappa, Voorhees' overlap, Krippendorff's alpha) and system evaluation under every
assessor's qrels and the consensus (ir-measures over pytrec_eval), with ranking stability.

Everything about the kind is in this folder; ``spec.py`` puts it together.
"""
