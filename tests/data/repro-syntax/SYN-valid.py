"""SYN-valid: syntax check sample.

First verified: 2026-12-01 (evokb test data)
"""
import math


def 面积(r: float) -> float:
    return math.pi * r ** 2


async def g():
    async with h() as y:
        pass

match 面积(1.0):
    case 3.0:
        print(f"{面积(1.0):.2f}")
    case _:
        pass
