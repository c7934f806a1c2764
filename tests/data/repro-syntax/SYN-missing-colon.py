"""SYN-missing-colon: syntax check sample.

First verified: 2026-12-01 (evokb test data)
"""
def f(x)
    return x
