package com.acme.shop;

public class Price {
    public static int cents(String amount) {
        double value = Double.parseDouble(amount);
        return value * 100;
    }

    public static String format(int cents) {
        return Currency.symbol() + (cents / 100.0);
    }
}
