package com.example.orders;

import io.micronaut.runtime.Micronaut;

/** The orders service's entry point. */
public final class Application {
    private Application() {
    }

    /** @param args command-line arguments, passed to Micronaut */
    public static void main(String[] args) {
        Micronaut.run(Application.class, args);
    }
}
