package io.gridlimit.app;

import io.micronaut.runtime.Micronaut;

/** Entry point of the GridLimit rate-limiting service. */
public final class Application {
    private Application() {
    }

    /**
     * Starts the service.
     *
     * @param args command-line arguments, passed to Micronaut
     */
    public static void main(String[] args) {
        Micronaut.run(Application.class, args);
    }
}
