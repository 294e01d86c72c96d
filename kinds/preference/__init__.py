"""Preference (Bradley & Terry 1952; Davidson 1970; Chiang et al. 2024): the better of two systems' outputs to a prompt, side by side, and the leaderboard of the systems.

Everything about the kind is in this folder; ``spec.py`` puts it together.
"""
