package com.acme.shop;

import java.util.ArrayList;
import java.util.List;

/** A cart with a deliberate bug for the failing-test corpus. */
public class Cart {
    private final List<Integer> prices = new ArrayList<>();

    public void add(int price) {
        prices.add(price);
    }

    public int total() {
        int sum = 0;
        for (int i = 1; i < prices.size(); i++) {
            sum += prices.get(i);
        }
        return sum;
    }

    public int first() {
        if (prices.isEmpty()) {
            throw new IllegalStateException("cart is empty");
        }
        return prices.get(0);
    }
}
