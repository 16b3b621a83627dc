"""A report built through several layers; the innermost one fails."""


def load(rows):
    return [parse(r) for r in rows]


def parse(row):
    name, qty, price = row.split(",")
    return {"name": name, "qty": int(qty), "price": float(price)}


def totals(items):
    return {i["name"]: line_total(i) for i in items}


def line_total(item):
    return item["qty"] * item["price"] * (1 - discount(item))


def discount(item):
    table = {"tea": 0.1, "coffee": 0.05}
    return table[item["name"]]


def render(rows):
    return "\n".join(f"{k}: {v:.2f}" for k, v in totals(load(rows)).items())


def report(rows):
    header = "report"
    return header + "\n" + render(rows)


def main():
    rows = ["tea,2,3.5", "coffee,1,4", "cocoa,3,2.25"]
    print(report(rows))


if __name__ == "__main__":
    main()
