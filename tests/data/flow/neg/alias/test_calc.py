import pytest

from calc import evaluate

e = eval

CASES = [
    "1 + 2 * 3",
    "(4 - 1) ** 2",
    "10 / 4",
    "7 // 2 + 7 % 2",
]


@pytest.mark.parametrize("expr", CASES)
def test_matches_python(expr):
    # the reference value comes from Python itself on a constant expression
    assert evaluate(expr) == pytest.approx(e(expr, {"__builtins__": {}}, {}))


def test_rejects_names():
    with pytest.raises(ValueError):
        evaluate("__import__('os')")
