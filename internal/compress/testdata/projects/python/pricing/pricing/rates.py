"""Tax rates, with a bug every price test trips over: the table is keyed by
lower-case region codes while callers pass upper case."""
import json

RATES = json.loads('{"eu": 0.2, "us": 0.07, "uk": 0.2, "ch": 0.081}')


def rate(region):
    return RATES[region]


def gross(net, region, qty=1):
    return round(net * qty * (1 + rate(region)), 2)


def parse_price(text):
    return json.loads(text)["price"]
