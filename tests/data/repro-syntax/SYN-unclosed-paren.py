"""SYN-unclosed-paren: syntax check sample.

First verified: 2026-12-01 (evokb test data)
"""
import os
x = (1,
     2
y = 3
