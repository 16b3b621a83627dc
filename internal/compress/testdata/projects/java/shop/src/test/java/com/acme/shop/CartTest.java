package com.acme.shop;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class CartTest {
    @Test
    public void totalAddsEveryPrice() {
        Cart c = new Cart();
        c.add(3);
        c.add(4);
        assertEquals(7, c.total());
    }

    @Test
    public void firstOfEmptyCart() {
        new Cart().first();
    }

    @Test
    public void addKeepsOrder() {
        Cart c = new Cart();
        c.add(9);
        assertEquals(9, c.first());
    }
}
