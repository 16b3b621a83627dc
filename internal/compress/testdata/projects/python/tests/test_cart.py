import pytest

from shop.cart import Cart, apply_discount


def test_total_counts_quantity():
    cart = Cart()
    cart.add("tea", 3, qty=2)
    assert cart.total() == 6


def test_remove_is_case_sensitive():
    cart = Cart()
    cart.add("Tea", 3)
    cart.remove("Tea")
    assert cart.items == {}


@pytest.mark.parametrize("n", range(120))
def test_add_many(n):
    cart = Cart()
    for i in range(n):
        cart.add(f"item{i}", 1)
    assert len(cart.items) == n


def test_unknown_discount():
    assert apply_discount(100, "TWENTY") == 80
