"""SYN-unterminated-string: syntax check sample.

First verified: 2026-12-01 (evokb test data)
"""
s = "abc
t = 1
