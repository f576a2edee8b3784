package io.gridlimit.app.beans;

/**
 * The switch of the service's own beans (the demo controller, the decision API, the admin API, the start-up
 * warm-up), in a package of its own so that every part of the service can require it without depending on the
 * service's entry point (the {@code Application} class, which depends on them).
 */
public final class ServiceBeans {
    /**
     * The property that turns the service's own beans on. The service's {@code application.yml} sets it; a service
     * that merely depends on micronaut-app for the integration has its own {@code application.yml}, which Micronaut
     * reads instead, so it gets none of them unless it sets this property itself.
     */
    public static final String ENABLED = "gridlimit.service.enabled";

    private ServiceBeans() {
    }
}
