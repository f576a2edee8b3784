package io.gridlimit.micronaut.userapp;

import io.micronaut.runtime.Micronaut;

/** The {@code main} a user's Micronaut service has, as Micronaut's project generator writes it. */
public final class ShopApplication {
    private ShopApplication() {
    }

    /** @param args command-line arguments, passed to Micronaut */
    public static void main(String[] args) {
        Micronaut.run(ShopApplication.class, args);
    }
}
