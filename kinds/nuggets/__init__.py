"""Nugget pyramids (Lin & Demner-Fushman 2006): vital/okay labels of answer nuggets and nugget matches in responses, scored under every assessor and the pyramid.

Everything about the kind is in this folder; ``spec.py`` puts it together.
"""
