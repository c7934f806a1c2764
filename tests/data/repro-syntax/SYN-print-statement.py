"""SYN-print-statement: syntax check sample.

First verified: 2026-12-01 (evokb test data)
"""
print "hello"
