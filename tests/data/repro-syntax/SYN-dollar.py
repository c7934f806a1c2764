"""SYN-dollar: syntax check sample.

First verified: 2026-12-01 (evokb test data)
"""
a = 1
b = $a
