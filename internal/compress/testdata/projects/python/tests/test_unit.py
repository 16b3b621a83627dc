import unittest

from shop.cart import Cart, apply_discount


class CartTest(unittest.TestCase):
    def test_total(self):
        cart = Cart()
        cart.add("tea", 3, qty=2)
        self.assertEqual(cart.total(), 6)

    def test_discount(self):
        self.assertAlmostEqual(apply_discount(100, "TEN"), 90)

    def test_bad_code(self):
        apply_discount(100, "NOPE")

    def test_empty(self):
        self.assertEqual(Cart().total(), 0)


if __name__ == "__main__":
    unittest.main()
