package io.gridlimit.app;

/** Entry point of the GridLimit rate-limiting service. */
public final class Application {
    /**
     * The property that turns the service's own beans on (the demo controller, the decision API, the start-up
     * warm-up). The service's {@code application.yml} sets it; a service that merely depends on micronaut-app for the
     * integration has its own {@code application.yml}, which Micronaut reads instead, so it gets none of them unless
     * it sets this property itself.
     */
    public static final String SERVICE_PROPERTY = "gridlimit.service.enabled";

    private Application() {
    }

    /**
     * Starts the service; invalid GridLimit configuration, a port in use or a configuration file that is not valid
     * YAML stops it with one ERROR line naming the property and the value, the port's property or the file, and exit
     * status 1 ({@link ServiceLauncher}).
     *
     * @param args command-line arguments, passed to Micronaut
     */
    public static void main(String[] args) {
        new ServiceLauncher().classes(Application.class).args(args).start();
    }
}
