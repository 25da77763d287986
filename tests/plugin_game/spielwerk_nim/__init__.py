"""Nim, a test game living outside spielwerk: one pile, take 1 to ``take`` stones, the
player who takes the last stone wins. Declared by :mod:`spielwerk_nim.plugin` alone."""
