"""SYN-bad-indent: syntax check sample.

First verified: 2026-12-01 (evokb test data)
"""
x = 1
    y = 2
