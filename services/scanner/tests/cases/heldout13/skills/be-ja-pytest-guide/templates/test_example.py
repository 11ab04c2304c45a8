"""pytest の雛形: パラメータ化・例外・tmp_path・monkeypatch の例。"""
from decimal import Decimal

import pytest

from pricing import load_prices, parse_price


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("100", Decimal("100")),
        ("1,200", Decimal("1200")),
        ("19.99", Decimal("19.99")),
    ],
)
def test_parse_price_valid_inputs_return_decimal(raw, expected):
    assert parse_price(raw) == expected


def test_parse_price_negative_raises():
    with pytest.raises(ValueError, match="負の数"):
        parse_price("-1")


def test_load_prices_reads_csv_from_given_path(tmp_path):
    csv = tmp_path / "prices.csv"
    csv.write_text("sku,price\nA-1,100\nB-2,1,200\n", encoding="utf-8")
    assert load_prices(csv)["A-1"] == Decimal("100")


def test_parse_price_uses_locale_separator(monkeypatch):
    monkeypatch.setenv("PRICE_DECIMAL_SEPARATOR", ",")
    assert parse_price("19,99") == Decimal("19.99")
