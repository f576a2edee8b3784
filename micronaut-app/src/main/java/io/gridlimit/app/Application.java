package io.gridlimit.app;

import io.gridlimit.app.beans.ServiceBeans;

/** Entry point of the GridLimit rate-limiting service. */
public final class Application {
    /** The property that turns the service's own beans on: {@link ServiceBeans#ENABLED}. */
    public static final String SERVICE_PROPERTY = ServiceBeans.ENABLED;

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
