"""A cart with deliberate bugs for the failing-test corpus."""


class Cart:
    def __init__(self):
        self.items = {}

    def add(self, name, price, qty=1):
        self.items[name] = (price, qty)

    def total(self):
        return sum(price for price, qty in self.items.values())

    def remove(self, name):
        del self.items[name.lower()]


def apply_discount(total, code):
    rates = {"TEN": 0.10, "HALF": 0.5}
    return total * (1 - rates[code])
