package io.gridlimit.bench.http;

import io.micronaut.runtime.Micronaut;

/** Entry point of the HTTP bench application ({@code bench/http-skewed.sh}). */
public final class Application {
    private Application() {
    }

    /** @param args command-line arguments, passed to Micronaut */
    public static void main(String[] args) {
        Micronaut.run(Application.class, args);
    }
}
