import pytest

from pricing.rates import gross, parse_price

REGIONS = ["EU", "US", "UK", "CH"]


@pytest.mark.parametrize("region", REGIONS)
@pytest.mark.parametrize("qty", [1, 2])
def test_gross_per_region(region, qty):
    assert gross(10, region, qty) > 10 * qty


@pytest.mark.parametrize("net", [1, 5, 10, 20, 50, 100, 200, 500])
def test_gross_eu(net):
    assert gross(net, "EU") == round(net * 1.2, 2)


@pytest.mark.parametrize("net", [1, 5, 10, 20, 50, 100, 200, 500])
def test_gross_us(net):
    assert gross(net, "US") == round(net * 1.07, 2)


@pytest.mark.parametrize("net", [1, 5, 10, 20, 50, 100, 200, 500])
def test_gross_uk(net):
    assert gross(net, "UK") == round(net * 1.2, 2)


@pytest.mark.parametrize("net", [1, 5, 10, 20, 50, 100, 200, 500])
def test_gross_ch(net):
    assert gross(net, "CH") == round(net * 1.081, 2)


@pytest.mark.parametrize("net", [1, 5, 10, 20, 50, 100])
def test_gross_lower(net):
    assert gross(net, "eu") == round(net * 1.2, 2)


@pytest.mark.parametrize("text", ['{"price": 3}', "{'price': 3}", "{price: 3}"])
def test_parse_price(text):
    assert parse_price(text) == 3


def test_gross_rounding():
    assert gross(0.1, "eu", 3) == 0.36
